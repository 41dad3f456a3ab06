package main

import (
	"encoding/json"
	"io"
)

// writeJSON writes v as one line of JSON. encoding/json sorts map keys, so
// the output is deterministic.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
