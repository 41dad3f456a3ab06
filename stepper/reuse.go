package stepper

import (
	"slices"
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
	record bool // collect records its narrow phase (positionRows' call)
	ok     bool // the recording holds one not yet used
	off    bool // no recording (the tests' reference: every pair collided)
	again  bool // positionRows' call after a projection solve: it may take prev's points
	// writing: the current narrow phase is recorded (startRecording).
	writing bool
	// recorded: recordRange reported true for every range of the current
	// narrow phase (narrowPhase sets it for finishRecording).
	recorded bool
	hits     atomic.Int64 // pairs that took recorded points, since the world began
	rehits   atomic.Int64 // of those, pairs of a recording collect (lookupPrev)
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
// (narrowPairs fills pairs[i] for each) among ng geoms. The recording
// is written by recordRange over ranges of pairs and finishRecording, and
// only when the pairs ascend, by first geom and then by second (lookup's
// index, first, and its search of a geom's pairs, find, need them so;
// each range then writes its own part of first).
func (r *pairReuse) startRecording(pairs [][2]int, ng int, margin float64) {
	r.ok = false
	r.recording, r.prev = r.prev, r.recording
	r.complete = false
	npairs := len(pairs)
	if r.off {
		r.pairs = r.pairs[:0]
		r.writing = false
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
	if cap(r.geoms) < ng {
		r.geoms = make([]reuseGeom, ng)
		r.same = make([]bool, ng)
		r.first = make([]int32, ng+1)
	}
	r.geoms, r.same, r.first = r.geoms[:ng], r.same[:ng], r.first[:ng+1]
	r.writing = true
	for i := 1; i < npairs; i++ {
		if a, b := pairs[i-1], pairs[i]; b[0] < a[0] || (b[0] == a[0] && b[1] <= a[1]) {
			r.writing = false // not ascending: no recording
			break
		}
	}
}

// sizePoints makes room for the n points of the recorded narrow phase,
// which recordRange writes in place.
func (r *pairReuse) sizePoints(n int) {
	r.pts = slices.Grow(r.pts[:0], n)[:n]
}

// recordRange keeps the points of the recorded pairs lo…hi−1 (pts, in
// pair order, as narrowPairs made them from each pair's contact.Point;
// at is the place of pts[0] among the narrow phase's points, which
// sizePoints made room for), the pairs' places, their part of the index
// by first geom (first[g] for the g in (ga of pair lo−1, ga of pair
// hi−1], 0 standing for the ga before pair 0), and the poses and shapes
// of geoms g0…g1−1. Ranges that do not overlap write separate entries, so
// they run in parallel. It reports false when a pair was not collided
// (a narrow phase cut short), its points do not add up to pts, or the
// recording is not written (startRecording).
func (r *pairReuse) recordRange(lo, hi int, at int, pts []point, g0, g1 int, poses []contact.Pose, geoms []Geom) bool {
	if !r.writing {
		return false
	}
	for g := g0; g < g1; g++ {
		r.geoms[g] = reuseGeom{pose: poses[g], shape: geoms[g].Shape}
	}
	g := int32(0)
	if lo > 0 {
		g = r.pairs[lo-1].ga
	}
	end := at + len(pts)
	for i := lo; i < hi; i++ {
		p := &r.pairs[i]
		if p.n < 0 || at+int(p.n) > end {
			return false
		}
		for ; g < p.ga; g++ {
			r.first[g+1] = int32(i)
		}
		p.at = int32(at)
		out := r.pts[at : at+int(p.n)]
		for j := range out {
			q := &pts[j] // by pointer: a point is some 300 bytes
			out[j] = contact.Point{Pos: q.Point, Normal: q.Normal, Gap: q.Gap, Key: q.ck.key}
		}
		pts = pts[len(out):]
		at += int(p.n)
	}
	return len(pts) == 0
}

// finishRecording completes the recording of the narrow phase whose
// ranges recordRange wrote (ok: each reported true): the index by first
// geom past the last pair's, and whether the recording holds. It ends
// the recording: the narrow phases after it write none until the next
// startRecording.
func (r *pairReuse) finishRecording(ok bool) {
	if !r.writing || !ok {
		r.writing = false
		return
	}
	r.writing = false
	ng := len(r.geoms)
	g := int32(0)
	if n := len(r.pairs); n > 0 {
		g = r.pairs[n-1].ga
	}
	r.first[0] = 0
	for ; int(g) < ng; g++ {
		r.first[g+1] = int32(len(r.pairs))
	}
	r.ok = true
	r.complete = true
}

// checkPoses sets same for the geoms' current poses (collect's, before
// its narrow phase) (recording.check).
func (r *pairReuse) checkPoses(poses []contact.Pose, geoms []Geom) {
	r.ok = r.ok && r.recording.check(poses, geoms)
}

// checkPrev sets prev.same for the geoms' current poses (a recording
// collect's, again set, before its narrow phase), as checkPoses does for
// the current recording; without again or a complete prev, none is.
func (r *pairReuse) checkPrev(poses []contact.Pose, geoms []Geom) {
	r.prev.complete = r.again && r.prev.complete && r.prev.check(poses, geoms)
}

// check sets same for the geoms' current poses: a geom stands as
// recorded when its pose has the recorded bits and its shape is the
// recorded one. It reports false, setting none, when the recording is of
// another number of geoms.
func (rec *recording) check(poses []contact.Pose, geoms []Geom) bool {
	if len(rec.geoms) != len(geoms) {
		return false
	}
	for g := range geoms {
		rec.same[g] = samePose(&rec.geoms[g].pose, &poses[g]) && rec.geoms[g].shape == geoms[g].Shape
	}
	return true
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
	if q := p.find(ga, gb); q != nil {
		return append(pts, p.pts[q.at:q.at+q.n]...), q.reach, true
	}
	return pts, 0, false
}

// find returns the recorded pair (ga, gb), or nil: a binary search of
// ga's pairs, which ascend by gb (the narrow phase's pairs are sorted,
// startRecording), so the ground's pair with each box of a pile costs
// log n, not a scan of the ground's n pairs.
func (rec *recording) find(ga, gb int) *reusePair {
	ps := rec.pairs[rec.first[ga]:rec.first[ga+1]]
	lo, hi := 0, len(ps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int(ps[m].gb) < gb {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(ps) && int(ps[lo].gb) == gb {
		return &ps[lo]
	}
	return nil
}

// samePose reports whether a and b have the same bits (sameVec, sameQuat).
func samePose(a, b *contact.Pose) bool {
	return sameVec(&a.Pos, &b.Pos) && sameQuat(&a.Rot, &b.Rot)
}

// lookup appends to pts the recorded points of pair (ga, gb) for a
// collision with look-ahead look and reports true, when the recording
// holds them (both geoms as recorded, margin ≤ look < reach); otherwise
// it returns pts unchanged and false.
func (r *pairReuse) lookup(pts []contact.Point, ga, gb int, look float64) ([]contact.Point, bool) {
	if !r.ok || ga >= len(r.same) || gb >= len(r.same) || !r.same[ga] || !r.same[gb] || !(look >= r.margin) {
		return pts, false
	}
	p := r.find(ga, gb)
	if p == nil || !(look < p.reach) {
		return pts, false
	}
	return append(pts, r.pts[p.at:p.at+p.n]...), true
}
