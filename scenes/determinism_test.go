package scenes_test

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
)

// determinismCase is one run of TestDeterminism: a world, the steps it
// takes, and the FNV-64a hash of its final state (stateHash) on amd64.
type determinismCase struct {
	name  string
	scene string            // a registered scene, or "" for build
	set   map[string]string // its parameter overrides
	build func() (*stepper.World, error)
	tune  func(*stepper.World) // settings changed after the build
	steps int
	hash  string
}

// determinismCases cover every built-in scene (TestDeterminism fails when
// a registered scene has no case) at a size and length that keeps the
// whole test to about a second: the 496-brick pyramid runs with a base of
// 8 (36 bricks), the brick wall for its 2 s of settling, the forklift
// through its torque ramp and onto the circle. A few variants exercise the
// paths the defaults do not: post-stabilization (a second MLCP per step),
// a budget with the safeguard, propagated impacts and restitution, the
// pre-solve of new contacts on a pile landing. The random piles run
// through their landing (1.5 s), the dominoes through their toppling.
var determinismCases = []determinismCase{
	{name: "brickwall", scene: "brickwall", steps: 120, hash: "c2deeb5edbf52482"},
	// Settings.Coherent off: the hash the default had before coherence
	// became it, bit for bit
	{name: "brickwall coherent off", scene: "brickwall", tune: func(w *stepper.World) { w.Settings.Coherent = stepper.CoherentOff }, steps: 120, hash: "3c9fb66edcc28072"},
	{name: "chain6", scene: "chain6", steps: 1000, hash: "20d7b085605aaa5c"},
	{name: "chain6 post", scene: "chain6", set: map[string]string{"stabilization": "post"}, steps: 500, hash: "01cea8a5e3dfdfc7"},
	{name: "forklift", scene: "forklift", steps: 300, hash: "b863e355058d56ab"},
	{name: "forklift budget 5", scene: "forklift", tune: func(w *stepper.World) { w.Settings.Budget = 5 }, steps: 300, hash: "8dc251dbf285b2b1"},
	{name: "pendulum", scene: "pendulum", steps: 1000, hash: "5d302bff986aae21"},
	{name: "pendulum baumgarte", scene: "pendulum", set: map[string]string{"stabilization": "baumgarte", "baumgarte": "20"}, steps: 500, hash: "95646a7172ae3d16"},
	{name: "push", scene: "push", steps: 100, hash: "e5235c9799cc56eb"},
	// Settings.Coherent off: the push at centre 0
	{name: "push coherent off", scene: "push", tune: func(w *stepper.World) { w.Settings.Coherent = stepper.CoherentOff }, steps: 100, hash: "44733b6e9abc92a4"},
	{name: "pyramid base 8", scene: "pyramid", set: map[string]string{"base": "8"}, steps: 60, hash: "0b901dc316bef1bb"},
	{name: "rod", scene: "rod", steps: 50, hash: "e74ea5a55fb29b7a"},
	{name: "randompile 30", scene: "randompile", set: map[string]string{"boxes": "30"}, steps: 90, hash: "47ba207c21357713"},
	{name: "randompile 30 coherent off", scene: "randompile", set: map[string]string{"boxes": "30"}, tune: func(w *stepper.World) { w.Settings.Coherent = stepper.CoherentOff }, steps: 90, hash: "653e2513cd96392f"},
	{name: "piles 2×10", scene: "piles", set: map[string]string{"piles": "2", "boxes": "10"}, steps: 90, hash: "a047f976f670a8d5"},
	{name: "dominoes", scene: "dominoes", steps: 120, hash: "d6b5ba647dbaa0ca"},
	{name: "everyday", build: everydayWorld, steps: 200, hash: "89d0ac0ec328f267"},
	{name: "cradle", build: cradleWorld, steps: 30, hash: "c962be7790675764"},
}

// everydayFile: a ball bouncing (restitution 0.7, propagated impacts), a
// box sliding to rest on μ = 0.3, a stack of three boxes dropped 1 cm, and
// a capsule rolling.
const everydayFile = `{
  "version": 1,
  "settings": {"h": 0.01, "impacts": "propagated"},
  "world_shapes": [{"type": "plane", "material": {"friction": 0.3, "restitution": 0.7}}],
  "bodies": [
    {"name": "ball", "mass": 0.5, "position": [0, 0, 1], "shapes": [{"type": "sphere", "radius": 0.1, "material": {"restitution": 0.7}}]},
    {"name": "slider", "density": 500, "position": [1, 0, 0.1], "velocity": [2, 0.5, 0],
     "shapes": [{"type": "box", "size": [0.4, 0.2, 0.2], "material": {"friction": 0.3}}]},
    {"name": "s1", "mass": 1, "position": [3, 0, 0.06], "shapes": [{"type": "box", "size": [0.1, 0.1, 0.1]}]},
    {"name": "s2", "mass": 1, "position": [3.01, 0, 0.17], "shapes": [{"type": "box", "size": [0.1, 0.1, 0.1]}]},
    {"name": "s3", "mass": 1, "position": [3.02, 0, 0.28], "shapes": [{"type": "box", "size": [0.1, 0.1, 0.1]}]},
    {"name": "roller", "mass": 1, "position": [-1, 0, 0.05], "angular_velocity": [0, 0, 1], "velocity": [0, 1, 0],
     "shapes": [{"type": "capsule", "radius": 0.05, "length": 0.3, "orientation": [0.7071068, 0, 0.7071068, 0], "material": {"friction": 0.5, "rolling": 0.001}}]}
  ]
}`

func everydayWorld() (*stepper.World, error) {
	return scenes.Load(strings.NewReader(everydayFile), "everyday.json")
}

// cradleWorld is stepper's ExampleImpacts: five touching balls of
// restitution 1, the first moving at 1 m/s, no gravity.
func cradleWorld() (*stepper.World, error) {
	w, err := stepper.New(stepper.Settings{H: 1.0 / 60, Impacts: stepper.PropagatedImpacts})
	if err != nil {
		return nil, err
	}
	const m, r = 0.2, 0.025
	ball, err := contact.NewSphere(r)
	if err != nil {
		return nil, err
	}
	for i := 0; i < 5; i++ {
		x := 2 * r * float64(i)
		if i == 0 {
			x -= 0.002
		}
		b, err := body.New(body.Params{Mass: m, Inertia: body.SphereInertia(m, r), Pos: mgl64.Vec3{x, 0, 0}, Rot: mgl64.QuatIdent()})
		if err != nil {
			return nil, err
		}
		if i == 0 {
			b.Vel = mgl64.Vec3{1, 0, 0}
		}
		id, err := w.AddBody(b)
		if err != nil {
			return nil, err
		}
		if _, err := w.AddGeom(stepper.Geom{Body: id, Shape: ball, Material: stepper.Material{Restitution: 1}}); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// stateHash is the FNV-64a hash of the bits (math.Float64bits) of every
// body's position, orientation (w, x, y, z), velocity and angular velocity,
// in body order.
func stateHash(w *stepper.World) string {
	h := fnv.New64a()
	var buf [8]byte
	put := func(x float64) {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
		h.Write(buf[:])
	}
	for _, b := range w.Bodies {
		for _, x := range b.Pos {
			put(x)
		}
		put(b.Rot.W)
		for _, x := range b.Rot.V {
			put(x)
		}
		for _, x := range b.Vel {
			put(x)
		}
		for _, x := range b.AngVel {
			put(x)
		}
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// runDeterminismCase builds the case's world and steps it; it returns the
// final state's hash.
func runDeterminismCase(t *testing.T, c determinismCase) string {
	t.Helper()
	var w *stepper.World
	var err error
	if c.build != nil {
		w, err = c.build()
	} else {
		var sc scenes.Scene
		if sc, err = scenes.Lookup(c.scene); err == nil {
			w, err = sc.Build(c.set)
		}
	}
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	if c.tune != nil {
		c.tune(w)
	}
	for i := 0; i < c.steps; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatalf("%s: step %d: %v", c.name, i+1, err)
		}
	}
	return stateHash(w)
}

// TestDeterminism is the committed determinism hash (Box2D's
// test_determinism.c): each case's final poses and velocities, bit for
// bit, under GOMAXPROCS 1 and 4. A change that moves any bit of any case
// fails it; such a change must update the constants and say so, with the
// reason, in its commit message (a refactor must move no bits).
//
// The constants are for amd64 without fused multiply-add (GOAMD64 v1 or
// v2, the default v1): Go fuses x*y + z on arm64, ppc64, s390x and riscv64
// and, from GOAMD64=v3, on amd64, which rounds differently. The test skips
// elsewhere.
func TestDeterminism(t *testing.T) {
	if reason := noDeterminismConstants(); reason != "" {
		t.Skip(reason)
	}
	covered := map[string]bool{}
	for _, c := range determinismCases {
		covered[c.scene] = true
	}
	for _, n := range scenes.Names() {
		if !covered[n] {
			t.Errorf("scene %q has no case in determinismCases: add one (a few hundred steps at most) with its hash", n)
		}
	}
	for _, procs := range []int{1, 4} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for _, c := range determinismCases {
				if got := runDeterminismCase(t, c); got != c.hash {
					t.Errorf("%s, %d steps: state hash %s, committed %s. This change moves bits: "+
						"if it is meant to, update the constant in determinismCases and say so, "+
						"with the reason, in the commit message", c.name, c.steps, got, c.hash)
				}
			}
		})
	}
}

// noDeterminismConstants returns why the committed hashes do not apply to
// this build, or "".
func noDeterminismConstants() string {
	if runtime.GOARCH != "amd64" {
		return fmt.Sprintf("determinism hashes are committed for amd64; on %s Go fuses multiply-adds and the bits differ", runtime.GOARCH)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GOAMD64" && s.Value != "v1" && s.Value != "v2" {
				return fmt.Sprintf("determinism hashes are committed for GOAMD64 v1/v2; at %s Go fuses multiply-adds and the bits differ", s.Value)
			}
		}
	}
	return ""
}
