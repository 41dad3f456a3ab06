package stepper

import (
	"math"
	"sync/atomic"

	"github.com/gorigid/gorigid/contact"
)

// pairReuse keeps the narrow phase of the position projection's last
// collect (positionRows, at the poses the step ends with) for the next
// step's detectContacts, which collides the same pairs at the same poses
// with a larger look-ahead (margin + sweeps). contact.CollideReach
// reports up to which margin a pair's points stay the same bits; a pair
// whose geoms stand at the recorded poses, with the recorded shapes,
// and whose look-ahead lies in [margin, reach) takes the recorded points
// instead of colliding again. Any other pair, and every pair after a
// change of pose (a projection solve, a user's move), collides as
// before: the step's points are the bits of colliding every pair.
type pairReuse struct {
	record bool         // collect records its narrow phase (positionRows' call)
	ok     bool         // the recording holds one not yet used
	off    bool         // no recording (the tests' reference: every pair collided)
	again  bool         // positionRows' call after a projection solve: it may take prev's points
	hits   atomic.Int64 // pairs that took recorded points, since the world began
	rehits atomic.Int64 // of those, pairs of a recording collect (lookupPrev)
	recording
	// prev is the recording before the current one; a recording collect
	// after a projection solve (again) takes from it the points of each
	// pair whose geoms the solve left at the recorded bits.
	prev recording
}

// recording is one recorded narrow phase (positionRows' collect).
type recording struct {
	complete bool // every pair collided and kept (finishRecording)
	margin   float64
	geoms    []reuseGeom // each geom's pose and shape at the recording
	same     []bool      // each geom stands as recorded (set by the next collect)
	pairs    []reusePair // the recorded pairs, in pair order
	first    []int32     // pairs[first[g]:first[g+1]] are the pairs of geom g as their first geom
	pts      []contact.Point
}

// reuseGeom is a geom's pose and shape at the recording.
type reuseGeom struct {
	pose  contact.Pose
	shape contact.Shape
}

// reusePair is one recorded pair: its geoms, its points pts[at:at+n] and
// reach (contact.CollideReach).
type reusePair struct {
	ga, gb int32
	at, n  int32
	reach  float64
}

// startRecording sizes the recording for the narrow phase of pairs
// (narrowPairs fills pairs[i] for each).
func (r *pairReuse) startRecording(npairs int, margin float64) {
	r.ok = false
	r.recording, r.prev = r.prev, r.recording
	r.complete = false
	if r.off {
		r.pairs = r.pairs[:0]
		return
	}
	r.margin = margin
	if cap(r.pairs) < npairs {
		r.pairs = make([]reusePair, npairs, npairs+npairs/4)
	}
	r.pairs = r.pairs[:npairs]
	for i := range r.pairs {
		r.pairs[i].n = -1 // not collided (a narrow phase cut short)
	}
}

// finishRecording keeps the points of the recorded narrow phase (dst, in
// pair order, as narrowPairs made them from each pair's contact.Point),
// the geoms' poses and shapes, and the index by first geom. The recording
// is dropped when the pairs do not ascend by first geom.
func (r *pairReuse) finishRecording(dst []point, poses []contact.Pose, geoms []Geom) {
	ng := len(geoms)
	if cap(r.geoms) < ng {
		r.geoms = make([]reuseGeom, ng)
		r.same = make([]bool, ng)
		r.first = make([]int32, ng+1)
	}
	r.geoms, r.same, r.first = r.geoms[:ng], r.same[:ng], r.first[:ng+1]
	for g := range geoms {
		r.geoms[g] = reuseGeom{pose: poses[g], shape: geoms[g].Shape}
	}
	r.pts = r.pts[:0]
	at := int32(0)
	g := 0
	r.first[0] = 0
	for i := range r.pairs {
		p := &r.pairs[i]
		if r.off || int(p.ga) < g || p.n < 0 || int(at+p.n) > len(dst) {
			return // not ascending, or not every pair collided: no recording
		}
		for ; g < int(p.ga); g++ {
			r.first[g+1] = int32(i)
		}
		p.at = at
		for _, q := range dst[at : at+p.n] {
			r.pts = append(r.pts, contact.Point{Pos: q.Point, Normal: q.Normal, Gap: q.Gap, Key: q.ck.key})
		}
		at += p.n
	}
	for ; g < ng; g++ {
		r.first[g+1] = int32(len(r.pairs))
	}
	r.ok = int(at) == len(dst)
	r.complete = r.ok
}

// checkPoses sets same for the geoms' current poses (collect's, before
// its narrow phase): a geom stands as recorded when its pose has the
// recorded bits and its shape is the recorded one.
func (r *pairReuse) checkPoses(poses []contact.Pose, geoms []Geom) {
	if !r.ok || len(r.geoms) != len(geoms) {
		r.ok = false
		return
	}
	for g := range geoms {
		r.same[g] = samePose(&r.geoms[g].pose, &poses[g]) && r.geoms[g].shape == geoms[g].Shape
	}
}

// checkPrev sets prev.same for the geoms' current poses (a recording
// collect's, again set, before its narrow phase), as checkPoses does for
// the current recording; without again or a complete prev, none is.
func (r *pairReuse) checkPrev(poses []contact.Pose, geoms []Geom) {
	p := &r.prev
	if !r.again || !p.complete || len(p.geoms) != len(geoms) {
		p.complete = false
		return
	}
	for g := range geoms {
		p.same[g] = samePose(&p.geoms[g].pose, &poses[g]) && p.geoms[g].shape == geoms[g].Shape
	}
}

// lookupPrev appends to pts the points prev recorded for pair (ga, gb)
// and returns them with the pair's reach and true, when both geoms stand
// as prev recorded them and look is prev's margin: contact.CollideReach
// of the same shapes at the same poses and look, the same bits.
// Otherwise it returns pts unchanged and false.
func (r *pairReuse) lookupPrev(pts []contact.Point, ga, gb int, look float64) ([]contact.Point, float64, bool) {
	p := &r.prev
	if !r.again || !p.complete || ga >= len(p.same) || gb >= len(p.same) || !p.same[ga] || !p.same[gb] || look != p.margin {
		return pts, 0, false
	}
	for _, q := range p.pairs[p.first[ga]:p.first[ga+1]] {
		if int(q.gb) == gb {
			return append(pts, p.pts[q.at:q.at+q.n]...), q.reach, true
		}
	}
	return pts, 0, false
}

// samePose reports whether a and b have the same bits.
func samePose(a, b *contact.Pose) bool {
	eq := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	return eq(a.Pos[0], b.Pos[0]) && eq(a.Pos[1], b.Pos[1]) && eq(a.Pos[2], b.Pos[2]) &&
		eq(a.Rot.W, b.Rot.W) && eq(a.Rot.V[0], b.Rot.V[0]) && eq(a.Rot.V[1], b.Rot.V[1]) && eq(a.Rot.V[2], b.Rot.V[2])
}

// lookup appends to pts the recorded points of pair (ga, gb) for a
// collision with look-ahead look and reports true, when the recording
// holds them (both geoms as recorded, margin ≤ look < reach); otherwise
// it returns pts unchanged and false.
func (r *pairReuse) lookup(pts []contact.Point, ga, gb int, look float64) ([]contact.Point, bool) {
	if !r.ok || ga >= len(r.same) || gb >= len(r.same) || !r.same[ga] || !r.same[gb] || !(look >= r.margin) {
		return pts, false
	}
	for _, p := range r.pairs[r.first[ga]:r.first[ga+1]] {
		if int(p.gb) != gb {
			continue
		}
		if !(look < p.reach) {
			return pts, false
		}
		return append(pts, r.pts[p.at:p.at+p.n]...), true
	}
	return pts, false
}
