package trajectory

import (
	"bytes"
	"io"
	"testing"
)

// No input makes a reader panic or loop: every file either reads to
// io.EOF or ends in an error, and frames have the reported body count.
func FuzzReaders(f *testing.F) {
	h := Header + "\n"
	f.Add(h + "0,0,0,1,2,3,1,0,0,0,0,0,0,0,0,0\n1,0.1,0,1,2,3,1,0,0,0,0,0,0,0,0,0\n")
	f.Add(h + "0,0,0,1,2,3,1,0,0,0,0,0,0,0,0,0\n0,0,1,1,2,3,1,0,0,0,0,0,0,0,0,0\n1,0,0,1,2")
	f.Add(`{"bodies":["a"],"dt":0.1,"frames":[{"step":0,"time":0,"bodies":[{"x":[1,2,3],"q":[1,0,0,0]}]}]}`)
	f.Add(`{"frames":[{"step":1,"time":null,"bodies":[]}],"bodies":[]}`)
	f.Add(StatsHeader + "\n1,0.01,5,1,0,1,0,0,0,0.5,-1,0,0,0,0,0\n")
	f.Fuzz(func(t *testing.T, in string) {
		for _, format := range []Format{CSV, JSON} {
			for _, drop := range []bool{false, true} {
				r, err := NewReader(bytes.NewReader([]byte(in)), format)
				if err != nil {
					continue
				}
				r.DropIncomplete = drop
				for n := 0; ; n++ {
					fr, err := r.Next()
					if err != nil {
						if _, again := r.Next(); again != io.EOF {
							t.Fatalf("after %v, Next returned %v, want io.EOF", err, again)
						}
						break
					}
					if len(fr.Bodies) != r.Bodies() {
						t.Fatalf("frame %d has %d bodies, the reader says %d", n, len(fr.Bodies), r.Bodies())
					}
				}
			}
		}
		if tab, err := ReadStats(bytes.NewReader([]byte(in))); err == nil {
			for j := range tab.Cols {
				if len(tab.Cols[j]) != tab.Rows() {
					t.Fatalf("column %s has %d rows, want %d", tab.Columns[j], len(tab.Cols[j]), tab.Rows())
				}
			}
		}
	})
}
