package main

import (
	"io"

	"github.com/gorigid/gorigid/lcp"
)

// writeJSON writes v as one line of JSON. encoding/json sorts map keys, so
// the output is deterministic. A non-finite number is written as the string
// "inf", "-inf" or "nan" (lcp.WriteJSON): no output is lost to one.
func writeJSON(w io.Writer, v any) error { return lcp.WriteJSON(w, v) }
