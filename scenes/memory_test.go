package scenes

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Issue 18: the loader used about 500× a 2 MB file's size (1 GB, 13 s)
// before rejecting it. Pathological files of 1 MB: deep nesting, a flood
// of tiny values, of empty bodies, of keys in one object. Each is
// rejected with one clear error, allocating at most maxFactor times the
// file size (plus slack) in all (TotalAlloc, an upper bound of the peak).
func TestLoaderMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates up to 100 MB")
	}
	const size = 1 << 20
	// 64× plus 64 KiB: the reader allows one value per 4 bytes beyond
	// 65536 (maxValues), each a 128-byte tree node (size class) and slots
	// in its parent's slices, which grow by doubling.
	const maxFactor, slack = 64, 64 << 10
	var keys strings.Builder
	keys.WriteString(`{"version":1,"k0":0`)
	for i := 1; keys.Len() < size; i++ {
		fmt.Fprintf(&keys, `,"k%d":0`, i)
	}
	keys.WriteString("}")
	cases := []struct{ name, in, want string }{
		{"deep", strings.Repeat("[", size/2) + strings.Repeat("]", size/2), "exceeded max depth"}, // encoding/json's scanner: 10 000 levels
		{"deep 65", strings.Repeat("[", 65) + strings.Repeat("]", 65), "nested deeper than 64 levels"},
		{"zeros", "[" + strings.Repeat("0,", size/2-1) + "0]", "more than 327680 JSON values in 1048577 bytes"},
		{"empty bodies", `{"version":1,"settings":{"h":0.01},"bodies":[` + strings.Repeat("{},", size/3-1) + "{}]}", "more than 327691 JSON values"},
		{"nameless bodies", `{"version":1,"settings":{"h":0.01},"bodies":[` + strings.Repeat(`{"mass":1},`, size/11-1) + `{"mass":1}]}`, "bodies[19].name: required"},
		{"many keys", keys.String(), "k0: unknown key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runtime.GC()
			var a, b runtime.MemStats
			runtime.ReadMemStats(&a)
			_, err := ReadSpec(bytes.NewReader([]byte(c.in)), "f.json")
			runtime.ReadMemStats(&b)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an error containing %q, got %.300v", c.want, err)
			}
			alloc := b.TotalAlloc - a.TotalAlloc
			t.Logf("%d bytes: allocated %.1f MB (%.0f× the file)", len(c.in), float64(alloc)/1e6, float64(alloc)/float64(len(c.in)))
			if alloc > maxFactor*uint64(len(c.in))+slack {
				t.Errorf("allocated %d bytes, more than %d× the file's %d", alloc, maxFactor, len(c.in))
			}
		})
	}
}
