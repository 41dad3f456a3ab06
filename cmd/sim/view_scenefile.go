package main

import (
	"fmt"

	"github.com/gorigid/gorigid/stepper"
)

// loadSceneFile builds the world of a JSON scene file for `sim view
// --scene FILE.json`.
var loadSceneFile = func(path string) (*stepper.World, error) {
	return nil, fmt.Errorf("%s: scene files are not supported yet (scenes.LoadFile is missing); use a built-in scene name", path)
}
