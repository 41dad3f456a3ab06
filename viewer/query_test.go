package viewer

import (
	"encoding/json"
	"math/big"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 28: /api/frames?stride=9223372036854775807 panicked the handler
// (from + stride overflowed to a negative index), and /api/stats too.
// Every combination of crafted from, to and stride values is served
// straight through ServeHTTP (so that a panic fails the test instead of
// being recovered by net/http) and must answer 200 with exactly the
// frames a reference computed in arbitrary precision (math/big) selects,
// or 400 naming the bad parameter when the reference says the query is
// out of range.
func TestViewCraftedRangeQueries(t *testing.T) {
	v, _ := newTestViewer(t, "chain6", 30, true) // 31 frames, 30 statistics rows
	values := []string{"", "0", "1", "2", "7", "30", "31", "32", "-1",
		"9223372036854775807", "9223372036854775806", "-9223372036854775808",
		"9223372036854775808", "99999999999999999999", "1e3", "0x10", " 1", "NaN", "1.5", "%00"}
	n := 0
	for _, path := range []string{"/api/frames", "/api/stats"} {
		items := v.tr.Frames()
		if path == "/api/stats" {
			items = v.st.Rows()
		}
		for _, from := range values {
			for _, to := range values {
				for _, stride := range values {
					q := url.Values{}
					for k, s := range map[string]string{"from": from, "to": to, "stride": stride} {
						if s != "" {
							q.Set(k, s)
						}
					}
					req := httptest.NewRequest("GET", path+"?"+q.Encode(), nil)
					rec := httptest.NewRecorder()
					v.ServeHTTP(rec, req) // a panic here fails the test
					n++
					want, ok := referenceRange(from, to, stride, items)
					body := rec.Body.String()
					if !ok {
						require.Equal(t, 400, rec.Code, "%s?%s: %s", path, q.Encode(), body)
						var e struct{ Error string }
						require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
						require.True(t, strings.Contains(e.Error, "from") || strings.Contains(e.Error, "to") ||
							strings.Contains(e.Error, "stride"), "%s?%s: %s", path, q.Encode(), e.Error)
						continue
					}
					require.Equal(t, 200, rec.Code, "%s?%s: %s", path, q.Encode(), body)
					var a struct {
						Count int
						Steps []int64
						Step  []float64
					}
					require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &a), body)
					require.Equal(t, len(want), a.Count, "%s?%s", path, q.Encode())
					for k, i := range want {
						if path == "/api/frames" {
							require.Equal(t, v.tr.Steps[i], a.Steps[k])
						} else {
							require.Equal(t, col(v.st, "step")[i], a.Step[k])
						}
					}
				}
			}
		}
	}
	t.Logf("%d crafted queries answered without a panic", n)
}

// referenceRange is the documented meaning of from, to and stride over n
// items, in arbitrary precision: the selected item indices, or ok false
// when a value is not a decimal integer or is out of range (from in
// [0, n], to ≥ from, stride in [1, max(n, 1)]). to is clamped to n.
func referenceRange(from, to, stride string, n int) (idx []int, ok bool) {
	parse := func(s string, def int64) (*big.Int, bool) {
		if s == "" {
			return big.NewInt(def), true
		}
		if strings.HasPrefix(s, "+") || s == "-" {
			return nil, false
		}
		x, ok := new(big.Int).SetString(s, 10)
		if !ok || !x.IsInt64() {
			return nil, false // not an integer, or beyond an int: 400
		}
		return x, true
	}
	f, ok1 := parse(from, 0)
	t, ok2 := parse(to, int64(n))
	s, ok3 := parse(stride, 1)
	if !ok1 || !ok2 || !ok3 {
		return nil, false
	}
	bn := big.NewInt(int64(n))
	if f.Sign() < 0 || f.Cmp(bn) > 0 || t.Cmp(f) < 0 || s.Sign() < 1 || s.Cmp(big.NewInt(int64(max(n, 1)))) > 0 {
		return nil, false
	}
	if t.Cmp(bn) > 0 {
		t = bn
	}
	for i := f.Int64(); i < t.Int64(); i += s.Int64() { // all ≤ n: no overflow
		idx = append(idx, int(i))
	}
	return idx, true
}
