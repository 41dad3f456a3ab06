package viewer

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"io"
	"io/fs"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
	"github.com/gorigid/gorigid/trajectory"
)

// The page, its script and the vendored three.js (viewer/web/vendor.sh
// writes the vendor files from the pinned npm package).
//
//go:embed web/index.html web/viewer.js web/vendor/three.module.js web/vendor/three.core.js web/vendor/OrbitControls.js web/vendor/LICENSE
var webFiles embed.FS

// DefaultChunkValues is the default cap on the numbers in one /api/frames
// or /api/stats answer (about 1 MB of JSON), so no single response stalls
// the page.
const DefaultChunkValues = 100_000

// poseLen is the numbers per body per frame: x, y, z, qw, qx, qy, qz.
const poseLen = 7

// Trajectory is a trajectory file read into memory for the viewer.
type Trajectory struct {
	Bodies int       // bodies per frame
	Names  []string  // body names (JSON files); nil for CSV
	Steps  []int64   // step of each frame
	Times  []float64 // time of each frame, s
	Poses  []float32 // frames × Bodies × 7: x, y, z, qw, qx, qy, qz
	// Dropped says what a cut CSV file lost ("" if nothing): its torn last
	// line, and for a .partial file the incomplete last frame.
	Dropped string
}

// Frames returns the number of frames.
func (t *Trajectory) Frames() int { return len(t.Steps) }

// Load reads a trajectory CSV or JSON file (by extension) with
// trajectory.Open, keeping poses as float32. A CSV file's .partial (left
// by a killed run) is read too, without its incomplete last frame. A file
// without frames is an error.
func Load(path string) (*Trajectory, error) {
	f, err := trajectory.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr := &Trajectory{}
	for {
		fr, err := f.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		tr.Steps = append(tr.Steps, fr.Step)
		tr.Times = append(tr.Times, fr.Time)
		for _, b := range fr.Bodies {
			tr.Poses = append(tr.Poses, float32(b.Pos[0]), float32(b.Pos[1]), float32(b.Pos[2]),
				float32(b.Rot[0]), float32(b.Rot[1]), float32(b.Rot[2]), float32(b.Rot[3]))
		}
	}
	tr.Bodies, tr.Names, tr.Dropped = f.Bodies(), f.Names(), f.Dropped()
	if tr.Frames() == 0 {
		return nil, fmt.Errorf("%s: no frames", path)
	}
	return tr, nil
}

// Options are New's names and limits; the zero value works.
type Options struct {
	Scene      string // scene name shown on the page
	Trajectory string // trajectory name shown on the page
	// ChunkValues caps the numbers per /api/frames or /api/stats answer;
	// 0 means DefaultChunkValues.
	ChunkValues int
	// MaxTriangles caps the triangles /api/scene sends for the scene's
	// hulls, triangle meshes and heightfields together; 0 means
	// DefaultMaxTriangles. Meshes are served smallest first; a heightfield
	// over what is left is drawn on a coarser grid, a hull or triangle
	// mesh as its bounding box, and the page says so.
	MaxTriangles int
}

// BodyCountError is New's error for a trajectory whose frames have
// another number of bodies than the scene.
type BodyCountError struct{ Trajectory, Scene int }

func (e *BodyCountError) Error() string {
	return fmt.Sprintf("the trajectory has %d bodies per frame, the scene has %d", e.Trajectory, e.Scene)
}

// StatsRangeError is New's error for statistics whose steps lie outside
// the trajectory's: they belong to another run.
type StatsRangeError struct {
	StatsFirst, StatsLast float64 // the statistics' first and last step
	First, Last           int64   // the trajectory's
}

func (e *StatsRangeError) Error() string {
	return fmt.Sprintf("the statistics cover steps %v–%v, but the trajectory covers %d–%d",
		e.StatsFirst, e.StatsLast, e.First, e.Last)
}

// Viewer serves one trajectory of one scene: the page at / and its JSON
// API under /api/. It is an http.Handler that answers any host; wrap it
// in LoopbackOnly when it listens on loopback.
type Viewer struct {
	chunkValues int
	scene       []byte // /api/scene, marshalled once
	meta        []byte // /api/meta
	tr          *Trajectory
	st          *trajectory.StatsTable // nil without statistics
	mux         *http.ServeMux
}

// New returns a viewer of tr, a run of the scene w was built from; st,
// the run's step statistics (trajectory.ReadStats), may be nil. It
// returns a *BodyCountError or *StatsRangeError when tr or st do not
// belong to w or tr. The viewer keeps tr and st and does not modify them.
func New(w *stepper.World, tr *Trajectory, st *trajectory.StatsTable, o Options) (*Viewer, error) {
	if tr == nil || tr.Frames() == 0 {
		return nil, errors.New("viewer: the trajectory has no frames")
	}
	if tr.Bodies != len(w.Bodies) {
		return nil, &BodyCountError{Trajectory: tr.Bodies, Scene: len(w.Bodies)}
	}
	if st != nil {
		for _, c := range []string{"step", "iterations", "budget_hit", "err_energy"} {
			if _, ok := st.Col(c); !ok {
				return nil, fmt.Errorf("viewer: the statistics have no column %q", c)
			}
		}
		if st.Rows() > 0 {
			steps := col(st, "step")
			first, last := tr.Steps[0], tr.Steps[len(tr.Steps)-1]
			if lo, hi := steps[0], steps[len(steps)-1]; lo < float64(first) || hi > float64(last) {
				return nil, &StatsRangeError{StatsFirst: lo, StatsLast: hi, First: first, Last: last}
			}
		}
	}
	v := &Viewer{chunkValues: o.ChunkValues, tr: tr, st: st}
	if v.chunkValues <= 0 {
		v.chunkValues = DefaultChunkValues
	}
	maxTris := o.MaxTriangles
	if maxTris <= 0 {
		maxTris = DefaultMaxTriangles
	}
	sj, reach, fixed := sceneJSONOf(w, o.Scene, maxTris)
	v.scene, _ = json.Marshal(sj) // plain numbers and strings: cannot fail
	v.meta = v.metaJSON(o.Trajectory, o.Scene, reach, fixed)
	v.mux = http.NewServeMux()
	web, _ := fs.Sub(webFiles, "web") // "web" is embedded: cannot fail
	v.mux.Handle("GET /", http.FileServerFS(web))
	v.mux.HandleFunc("GET /api/scene", func(w http.ResponseWriter, r *http.Request) { writeRawJSON(w, v.scene) })
	v.mux.HandleFunc("GET /api/meta", func(w http.ResponseWriter, r *http.Request) { writeRawJSON(w, v.meta) })
	v.mux.HandleFunc("GET /api/frames", v.serveFrames)
	v.mux.HandleFunc("GET /api/stats", v.serveStats)
	return v, nil
}

// ServeHTTP serves the page and the API.
func (v *Viewer) ServeHTTP(w http.ResponseWriter, r *http.Request) { v.mux.ServeHTTP(w, r) }

// col returns a column every statistics file has (New checked it).
func col(st *trajectory.StatsTable, name string) []float64 {
	c, _ := st.Col(name)
	return c
}

// LoopbackOnly wraps h so that requests must name a loopback host (Host
// header: localhost, 127.0.0.0/8 or ::1) and others get 403, which keeps
// a web page on another origin from reaching h through DNS rebinding.
func LoopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		ip := net.ParseIP(strings.Trim(host, "[]"))
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			http.Error(w, "the viewer answers only to loopback host names", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Serve serves h on ln until ctx is cancelled, then gives open requests
// 500 ms to finish and closes the connections, so it returns within about
// a second of the cancel, with ctx.Err(). It returns the server's error if
// serving fails first.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		_ = srv.Close()
	}
	return ctx.Err()
}

// Scene geometry as /api/scene serves it; poses are [x,y,z] and
// quaternions [w,x,y,z] like the trajectory's.
type (
	viewSceneJSON struct {
		Name    string         `json:"name"`
		Gravity [3]float64     `json:"gravity"`
		Bodies  []viewBodyJSON `json:"bodies"`
		Geoms   []viewGeomJSON `json:"geoms"`
		// MaxTriangles is the cap on the mesh triangles sent; Notes say
		// which meshes it made the page draw coarser or as boxes.
		MaxTriangles int      `json:"max_triangles"`
		Notes        []string `json:"notes"`
	}
	viewBodyJSON struct {
		Name   string  `json:"name"`
		Mass   float64 `json:"mass"`
		Static bool    `json:"static"`
		// Box is the half extents of the uniform box with the body's mass
		// and inertia diagonal, for drawing bodies that have no geom (a
		// chain of point masses and inertias); nil for bodies with geoms.
		Box *[3]float64 `json:"inertia_box,omitempty"`
	}
	viewGeomJSON struct {
		Body       int         `json:"body"` // index in bodies, −1 = the world
		Kind       string      `json:"kind"` // plane, box, sphere, capsule, cylinder, convex, trimesh, heightfield
		Half       *[3]float64 `json:"half,omitempty"`
		Radius     float64     `json:"radius,omitempty"`
		HalfLength float64     `json:"half_length,omitempty"`
		Pos        [3]float64  `json:"pos"`
		Q          [4]float64  `json:"q"`
		// Convex, trimesh and heightfield: the triangles drawn, in the
		// geom's frame (which Pos and Q place in the body's): x, y, z per
		// vertex and three vertex indices per triangle, counter-clockwise
		// seen from outside (from above for a heightfield). A hull's faces
		// are fanned into triangles; a heightfield's cells are split as
		// contact.HeightGrid splits them. Triangles is the shape's own
		// count, Note set when the cap made the drawing coarser.
		Vertices  []float64 `json:"vertices,omitempty"`
		Faces     []int32   `json:"faces,omitempty"`
		Triangles int       `json:"triangles,omitempty"`
		Note      string    `json:"note,omitempty"`
	}
)

// sceneJSONOf returns /api/scene for w with at most maxTris mesh
// triangles (meshBudget), how far each body's drawing extends from its
// centre of mass, and the world box of the world's geoms other than
// planes (inverted when there are none).
func sceneJSONOf(w *stepper.World, sceneName string, maxTris int) (viewSceneJSON, []float64, contact.AABB) {
	sj := viewSceneJSON{Name: sceneName, Gravity: w.Settings.Gravity, Bodies: make([]viewBodyJSON, len(w.Bodies)), Geoms: []viewGeomJSON{},
		MaxTriangles: maxTris, Notes: []string{}}
	hasGeom := make([]bool, len(w.Bodies))
	meshes, notes := meshBudget(w.Geoms, maxTris)
	meshR := make([]float64, len(w.Geoms)) // a mesh geom's reach from its body's centre
	sj.Notes = append(sj.Notes, notes...)
	inf := math.Inf(1)
	fixed := contact.AABB{Min: mgl64.Vec3{inf, inf, inf}, Max: mgl64.Vec3{-inf, -inf, -inf}}
	for gi, g := range w.Geoms {
		gj := viewGeomJSON{Body: g.Body, Kind: g.Shape.Kind.String(), Pos: g.Local.Pos, Q: [4]float64{1, 0, 0, 0}}
		if g.Body < 0 {
			gj.Body = -1
		} else if g.Body < len(hasGeom) {
			hasGeom[g.Body] = true
		}
		if q := g.Local.Rot; q.W != 0 || q.V != [3]float64{} { // a zero quaternion means no rotation
			l := q.Len()
			gj.Q = [4]float64{q.W / l, q.V[0] / l, q.V[1] / l, q.V[2] / l}
		}
		switch g.Shape.Kind {
		case contact.Box:
			h := [3]float64(g.Shape.Size.Mul(0.5)) // the page draws half extents
			gj.Half = &h
		case contact.Sphere:
			gj.Radius = g.Shape.Radius
		case contact.Capsule, contact.Cylinder:
			gj.Radius, gj.HalfLength = g.Shape.Radius, 0.5*g.Shape.Length
		}
		if m := meshes[gi]; m != nil {
			gj.Vertices, gj.Faces, gj.Note = m.vertices, m.faces, m.note
			gj.Triangles = shapeTriangles(g.Shape)
			if gj.Body >= 0 {
				r := meshReach(m.vertices, gj.Pos, gj.Q)
				if m.note != "" { // drawn coarser: the whole shape's box
					lo, hi := localBounds(g.Shape)
					r = meshReach(boxMesh(lo, hi).vertices, gj.Pos, gj.Q)
				}
				meshR[gi] = r
			}
		}
		if gj.Body < 0 && g.Shape.Kind != contact.Plane {
			pose := contact.Pose{Pos: g.Local.Pos, Rot: mgl64.Quat{W: gj.Q[0], V: mgl64.Vec3{gj.Q[1], gj.Q[2], gj.Q[3]}}}
			if b := g.Shape.Bounds(pose, 0); !b.Unbounded() && b.Min[0] <= b.Max[0] {
				for k := range 3 {
					fixed.Min[k], fixed.Max[k] = math.Min(fixed.Min[k], b.Min[k]), math.Max(fixed.Max[k], b.Max[k])
				}
			}
		}
		sj.Geoms = append(sj.Geoms, gj)
	}
	for i, b := range w.Bodies {
		bj := viewBodyJSON{Name: b.Name, Mass: b.Mass, Static: b.Static}
		if !hasGeom[i] {
			bj.Box = inertiaBox(b.Mass, b.Inertia[0], b.Inertia[4], b.Inertia[8])
		}
		sj.Bodies[i] = bj
	}
	// reach[i]: how far body i's drawing extends from its centre of mass.
	reach := make([]float64, len(w.Bodies))
	for i, b := range sj.Bodies {
		if b.Box != nil {
			reach[i] = math.Hypot(b.Box[0], math.Hypot(b.Box[1], b.Box[2]))
		}
	}
	for gi, g := range sj.Geoms {
		if g.Body < 0 || g.Body >= len(reach) {
			continue
		}
		r := g.Radius
		switch g.Kind {
		case "box":
			r = math.Hypot(g.Half[0], math.Hypot(g.Half[1], g.Half[2]))
		case "capsule":
			r = g.Radius + g.HalfLength
		case "cylinder":
			r = math.Hypot(g.Radius, g.HalfLength)
		}
		r += math.Hypot(g.Pos[0], math.Hypot(g.Pos[1], g.Pos[2]))
		if g.Vertices != nil {
			r = meshR[gi]
		}
		reach[g.Body] = math.Max(reach[g.Body], r)
	}
	return sj, reach, fixed
}

// inertiaBox returns the half extents of the uniform box of mass m whose
// principal moments are ixx, iyy, izz (I_xx = m(b² + c²)/3 for half
// extents a, b, c, so a² = 3(I_yy + I_zz − I_xx)/(2m)). A massless body,
// or moments no box has (a rod's zero moment about its axis), get a
// small floor so the body stays visible.
func inertiaBox(m, ixx, iyy, izz float64) *[3]float64 {
	const floor = 0.01 // m: 1 cm, visible at the scenes' scale
	var h [3]float64
	if !(m > 0) || math.IsInf(m, 0) {
		return &[3]float64{floor, floor, floor}
	}
	for i, s := range [3]float64{iyy + izz - ixx, ixx + izz - iyy, ixx + iyy - izz} {
		h[i] = math.Sqrt(math.Max(0, 3*s/(2*m)))
		if !(h[i] >= floor) {
			h[i] = floor
		}
	}
	return &h
}

// viewMetaJSON is /api/meta.
type viewMetaJSON struct {
	Trajectory  string        `json:"trajectory"`
	Scene       string        `json:"scene"`
	Bodies      int           `json:"bodies"`
	Frames      int           `json:"frames"`
	FirstStep   int64         `json:"first_step"`
	LastStep    int64         `json:"last_step"`
	T0          float64       `json:"t0"`
	T1          float64       `json:"t1"`
	BoundsMin   [3]float64    `json:"bounds_min"` // what the bodies' shapes cover over the run, m
	BoundsMax   [3]float64    `json:"bounds_max"`
	ChunkValues int           `json:"chunk_values"` // the cap on numbers per /api/frames or /api/stats answer
	Stats       *viewStatsSum `json:"stats"`        // null without statistics
}

type viewStatsSum struct {
	Rows           int     `json:"rows"`
	BudgetHits     int     `json:"budget_hits"`
	MeanIterations float64 `json:"mean_iterations"`
	MaxIterations  float64 `json:"max_iterations"`
	MaxEnergyError float64 `json:"max_err_energy"` // largest |err_energy|, J
}

// metaJSON builds /api/meta; reach[i] pads body i's positions in the
// bounds, so the page frames the bodies' shapes, not only their centres,
// and the bounds cover fixed, the world's own geoms (a terrain).
func (v *Viewer) metaJSON(trajName, sceneName string, reach []float64, fixed contact.AABB) []byte {
	tr := v.tr
	m := viewMetaJSON{
		Trajectory: trajName, Scene: sceneName, Bodies: tr.Bodies, Frames: tr.Frames(),
		FirstStep: tr.Steps[0], LastStep: tr.Steps[len(tr.Steps)-1],
		T0: finiteOr0(tr.Times[0]), T1: finiteOr0(tr.Times[len(tr.Times)-1]),
		ChunkValues: v.chunkValues,
	}
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i, body := 0, 0; i < len(tr.Poses); i, body = i+poseLen, (body+1)%tr.Bodies {
		for k := 0; k < 3; k++ {
			x := float64(tr.Poses[i+k])
			if !num.Finite(x) {
				continue
			}
			lo[k], hi[k] = math.Min(lo[k], x-reach[body]), math.Max(hi[k], x+reach[body])
		}
	}
	for k := 0; k < 3; k++ {
		lo[k], hi[k] = math.Min(lo[k], fixed.Min[k]), math.Max(hi[k], fixed.Max[k])
	}
	for k := 0; k < 3; k++ {
		if lo[k] > hi[k] { // no finite position at all
			lo[k], hi[k] = -1, 1
		}
	}
	m.BoundsMin, m.BoundsMax = lo, hi
	if st := v.st; st != nil {
		s := &viewStatsSum{Rows: st.Rows()}
		for i, it := range col(st, "iterations") {
			s.MeanIterations += it
			s.MaxIterations = math.Max(s.MaxIterations, it)
			if col(st, "budget_hit")[i] != 0 {
				s.BudgetHits++
			}
			if e := math.Abs(col(st, "err_energy")[i]); e > s.MaxEnergyError {
				s.MaxEnergyError = e
			}
		}
		if s.Rows > 0 {
			s.MeanIterations /= float64(s.Rows)
		}
		m.Stats = s
	}
	b, _ := json.Marshal(m) // finite numbers only: cannot fail
	return b
}

func finiteOr0(x float64) float64 {
	if !num.Finite(x) {
		return 0
	}
	return x
}

func writeRawJSON(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

func writeJSONError(w http.ResponseWriter, code int, format string, a ...any) {
	b, _ := json.Marshal(map[string]string{"error": fmt.Sprintf(format, a...)})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

// rangeQuery parses from, to and stride over n items: from in [0, n]
// (default 0), to in [from, n] (default and clamp n), stride in
// [1, max(n, 1)] (default 1). Anything else, an integer that overflows
// an int included, is an error naming the parameter and its value (the
// handlers answer 400); within these ranges no index arithmetic
// overflows.
func rangeQuery(r *http.Request, n int) (from, to, stride int, err error) {
	get := func(name string, def int) (int, error) {
		s := r.URL.Query().Get(name)
		if s == "" {
			return def, nil
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("%s: %q is not an integer", name, s)
		}
		return v, nil
	}
	if from, err = get("from", 0); err != nil {
		return
	}
	if to, err = get("to", n); err != nil {
		return
	}
	if stride, err = get("stride", 1); err != nil {
		return
	}
	switch {
	case from < 0 || from > n:
		err = fmt.Errorf("from: %d is outside [0, %d]", from, n)
	case to < from:
		err = fmt.Errorf("to: %d is before from = %d", to, from)
	case stride < 1 || stride > max(n, 1):
		err = fmt.Errorf("stride: must be in [1, %d], got %d", max(n, 1), stride)
	}
	return from, min(to, n), stride, err
}

// strideCount is the number of items from, from+stride, … below to
// (to ≥ from, stride ≥ 1), computed without overflow.
func strideCount(from, to, stride int) int {
	d := to - from
	return d/stride + min(d%stride, 1)
}

// clampChunk limits [from, to) so that at most chunkValues numbers are
// served when each item has perItem numbers; next is the new to, or −1
// when the range was served whole.
func clampChunk(from, to, stride, perItem, chunkValues int) (newTo, next int) {
	maxItems := max(1, chunkValues/max(1, perItem))
	if strideCount(from, to, stride) > maxItems {
		end := from + maxItems*stride // < to: no overflow
		return end, end
	}
	return to, -1
}

// serveFrames answers /api/frames?from=F&to=T&stride=S with
//
//	{"from":F,"to":T',"stride":S,"bodies":B,"count":K,"next":T' or null,
//	 "steps":[…K],"times":[…K],"poses":[…K·B·7]}
//
// for frames F, F+S, … < T', where T' ≤ T keeps the answer within one
// chunk; "next" is where to continue (from=T'), null when done. Poses
// are x, y, z, qw, qx, qy, qz per body, float32 precision, null for a
// non-finite number.
func (v *Viewer) serveFrames(w http.ResponseWriter, r *http.Request) {
	tr := v.tr
	from, to, stride, err := rangeQuery(r, tr.Frames())
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "frames: %v", err)
		return
	}
	to, next := clampChunk(from, to, stride, tr.Bodies*poseLen+2, v.chunkValues)
	count := strideCount(from, to, stride)
	b := make([]byte, 0, 64+count*(24+tr.Bodies*poseLen*12))
	b = fmt.Appendf(b, `{"from":%d,"to":%d,"stride":%d,"bodies":%d,"count":%d,"next":`, from, to, stride, tr.Bodies, count)
	b = appendNext(b, next)
	b = append(b, `,"steps":[`...)
	for k := range count {
		if k > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, tr.Steps[from+k*stride], 10)
	}
	b = append(b, `],"times":[`...)
	for k := range count {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendJSONFloat(b, tr.Times[from+k*stride])
	}
	b = append(b, `],"poses":[`...)
	first := true
	per := tr.Bodies * poseLen
	for k := range count {
		i := from + k*stride
		for _, x := range tr.Poses[i*per : (i+1)*per] {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendJSONFloat32(b, x)
		}
	}
	b = append(b, "]}"...)
	writeRawJSON(w, b)
}

func appendNext(b []byte, next int) []byte {
	if next < 0 {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(next), 10)
}

// appendJSONFloat32 writes x's shortest float32 decimal, null if not finite.
func appendJSONFloat32(b []byte, x float32) []byte {
	if f := float64(x); !num.Finite(f) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, float64(x), 'g', -1, 32)
}

// statsAgg says how /api/stats combines the rows of one stride: the
// first row's value (also for columns it does not list), the maximum, the
// largest magnitude (keeping its sign) or the sum. Budget hits add up and
// iteration counts and errors keep their worst, so a decimated chart still
// shows every spike.
var statsAgg = map[string]byte{
	"step": 'f', "time": 'f', "kinetic": 'f', "potential": 'f',
	"rows": 'M', "iterations": 'M', "picked": 'M',
	"presolve_iterations": 'M', "seed_sweeps": 'M', "projections": 'M', "projection_iterations": 'M',
	"budget_hit": 's',
	"err_energy": 'a', "err_fb": 'a', "err_residual": 'a', "max_violation": 'a',
	"energy_added": 'a', "projection_skipped": 'M',
}

// serveStats answers /api/stats?from=F&to=T&stride=S over the statistics
// rows with {"from","to","stride","count","next", COLUMN: […], …}, one
// array per column of the file; with S > 1 each value combines rows i … i+S−1
// (statsAgg). 404 without statistics.
func (v *Viewer) serveStats(w http.ResponseWriter, r *http.Request) {
	st := v.st
	if st == nil {
		writeJSONError(w, http.StatusNotFound, "stats: the viewer was started without statistics (sim view: without --stats)")
		return
	}
	from, to, stride, err := rangeQuery(r, st.Rows())
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "stats: %v", err)
		return
	}
	to, next := clampChunk(from, to, stride, len(st.Columns), v.chunkValues)
	count := strideCount(from, to, stride)
	b := make([]byte, 0, 64+count*len(st.Columns)*12)
	b = fmt.Appendf(b, `{"from":%d,"to":%d,"stride":%d,"count":%d,"next":`, from, to, stride, count)
	b = appendNext(b, next)
	for j, name := range st.Columns {
		col := st.Cols[j]
		b = fmt.Appendf(b, `,%q:[`, name)
		for k := range count {
			if k > 0 {
				b = append(b, ',')
			}
			i := from + k*stride
			end := i + min(stride, to-i)
			x := col[i]
			for _, y := range col[i+1 : end] {
				switch statsAgg[name] {
				case 'M':
					x = math.Max(x, y)
				case 's':
					x += y
				case 'a':
					if math.Abs(y) > math.Abs(x) || math.IsNaN(y) {
						x = y
					}
				}
			}
			b = appendJSONFloat(b, x)
		}
		b = append(b, ']')
	}
	b = append(b, '}')
	writeRawJSON(w, b)
}

// appendJSONFloat appends v's shortest round-trip decimal, null for NaN
// and ±Inf, which JSON cannot hold.
func appendJSONFloat(b []byte, v float64) []byte {
	if !num.Finite(v) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}
