package stepper

import (
	"testing"

	"github.com/gorigid/gorigid/contact"
)

// TestContactCacheAsMap: contactCache answers get as a map filled in point
// order would, through steps whose keys repeat (the records overwritten in
// place), change order, shrink, repeat a key within a step (the later
// point's record wins) and gain a key by put (a woken island's contacts);
// getAt, asked for any key at any point index, answers as get (the keys
// {2, 2, 5}: point 0's key is record 1's).
func TestContactCacheAsMap(t *testing.T) {
	key := func(i int) contactKey { return contactKey{ga: i, gb: i + 1, key: contact.Key{A: uint32(i)}} }
	steps := [][]int{{1, 2, 3}, {1, 2, 3}, {3, 1, 2}, {3, 1}, {2, 2, 5}, {2, 2, 5}}
	var cc contactCache
	for s, ks := range steps {
		ps := make([]point, len(ks))
		for i, k := range ks {
			ps[i].ck = key(k)
		}
		want := map[contactKey]cached{}
		cc.begin(len(ps))
		for i, k := range ks {
			c := cached{xn: float64(100*s + 10*k + i)}
			cc.set(i, ps[i].ck, c)
			want[key(k)] = c
		}
		cc.end(ps)
		if s == 3 {
			c := cached{xn: -7}
			cc.put(key(9), c)
			want[key(9)] = c
		}
		for k := range 10 {
			c, ok := cc.get(key(k))
			w, wok := want[key(k)]
			if ok != wok || c != w {
				t.Fatalf("step %d (keys %v): get(%d) = %v, %v; want %v, %v", s, ks, k, c.xn, ok, w.xn, wok)
			}
			for i := range 4 {
				if c, ok := cc.getAt(i, key(k)); ok != wok || c != w {
					t.Fatalf("step %d (keys %v): getAt(%d, %d) = %v, %v; want %v, %v", s, ks, i, k, c.xn, ok, w.xn, wok)
				}
			}
		}
		n := 0
		cc.each(func(k contactKey, c cached) {
			n++
			if want[k] != c {
				t.Errorf("step %d: each gave %v for key %v, want %v", s, c.xn, k, want[k].xn)
			}
		})
		if n != len(want) {
			t.Errorf("step %d: each visited %d keys, want %d", s, n, len(want))
		}
	}
}
