package stepper

import (
	"bufio"
	"cmp"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/internal/num"
)

// MemoryEstimate is what a World's step is expected to hold, from its
// bodies, geoms and joints and the contacts of its current poses
// (World.EstimateMemory). Counts are exact for the current state; Bytes
// is a model of the memory they take (the constants of EstimateMemory).
type MemoryEstimate struct {
	Bodies, Geoms, Joints int
	JointRows             int // rows of the joints (Constraint.Dim)
	// Pairs is the number of geom pairs whose bounding boxes (padded by
	// the contact margin and how far each geom can move in a step at its
	// current velocity) overlap, after the collision filter; Points the
	// contact points the narrow phase finds for them, ContactRows their
	// rows (ContactInfo.Layout).
	Pairs, Points, ContactRows int
	Rows                       int // JointRows + ContactRows
	// Nonzeros bounds the stored entries of A = J M⁻¹ Jᵀ + C from above:
	// the sum over bodies of the square of the rows touching it.
	Nonzeros int64
	// Bytes is the estimated peak heap of a step (B): live memory times
	// two, the Go runtime's default heap growth before a collection
	// (GOGC = 100).
	Bytes int64
	// Partial: the count stopped once Bytes passed the limit given to
	// EstimateMemory; every figure is then a lower bound.
	Partial bool
}

func (e MemoryEstimate) String() string {
	s := fmt.Sprintf("%d bodies, %d geoms, %d joints; %d contact pairs, %d rows, %d nonzeros of A: %s",
		e.Bodies, e.Geoms, e.Joints, e.Pairs, e.Rows, e.Nonzeros, num.FormatBytes(e.Bytes))
	if e.Partial {
		s = "at least " + s
	}
	return s
}

// The memory model's constants (bytes), fitted to the live heap
// (runtime.MemStats.HeapAlloc after a collection, the world kept) after
// the first steps of these worlds, whose step-1 rows the estimate counts
// exactly (TestEstimateMemoryMatchesTheFirstStep logs both):
//
//	world                  rows   nonzeros   live       model
//	chain6 links=2000     10000     0.20 M   52.3 MiB   41.4 MiB
//	pyramid base=20        7080     0.94 M   28.6 MiB   65.0 MiB
//	dominoes count=500     6000     0.07 M   33.5 MiB   22.5 MiB
//
// Rows cost about 3 KB each in the stages that hold them; the entries
// of A cost more where the factor fills in (a clump of spheres at one
// point has a nearly dense A, whose factor holds several times A's
// entries). A world whose steps never read A off its diagonal (the
// pyramid, solved in body space) holds none of A's pattern
// (lcp.Sparse.ResetCliquesLazy), so the model is above it there.
const (
	memPerBody    = 1024 // the body, its state, sleep and island records
	memPerGeom    = 256  // the geom, its pose, box and sweep
	memPerPair    = 48   // a broad-phase pair and its cached manifold
	memPerRow     = 3072 // the row in each stage (a constraint.Row is ≈ 300 B), the solvers' vectors and states, labels, the warm start
	memPerNonzero = 48   // an entry of A and of its factor (value and index), with the factor's fill
	memBase       = 1 << 20
	memLiveToPeak = 2 // GOGC = 100: the heap grows to twice the live data before a collection
)

// EstimateMemory counts what w's next step holds: its bodies, geoms and
// joint rows, and the contacts of the current poses as the step's
// detection would find them (the broad phase over boxes padded by the
// contact margin and each geom's sweep at its current velocity, the
// collision filter, then the narrow phase, whose points it counts without
// keeping them), and models the bytes they take (MemoryEstimate.Bytes).
// It allocates O(bodies + geoms), not O(pairs): 2 000 spheres at one
// point, 2 million pairs, are counted, not stored. limit > 0 stops the
// count once Bytes passes it (Partial), so that a world far beyond a
// limit is refused in about the time the limit's worth of contacts takes
// to count. It does not change the world, except for the collision
// filter's record of joined bodies, which the next step brings up to
// date anyway.
//
// The model is of the step as built today; what later steps hold grows
// with the contacts they meet (a pile that collapses into one heap), and
// a factorization's fill depends on the order of the rows, so the
// estimate is for refusing a world far beyond a limit, not a bound.
//
// A world that Step would refuse for its links (a nil body or joint, a geom
// whose Body names no body, a geom AddGeom would refuse) is counted by its
// bodies and geoms alone, with no rows or contacts.
func (w *World) EstimateMemory(limit int64) MemoryEstimate {
	e := MemoryEstimate{Bodies: len(w.Bodies), Geoms: len(w.Geoms), Joints: len(w.Joints)}
	bytes := func() int64 {
		e.Rows = e.JointRows + e.ContactRows
		live := memBase + memPerBody*int64(e.Bodies) + memPerGeom*int64(e.Geoms) +
			memPerPair*int64(e.Pairs) + memPerRow*int64(e.JointRows+e.ContactRows) + memPerNonzero*e.Nonzeros
		return memLiveToPeak * live
	}
	if w.checkLinks() != nil {
		// A world Step refuses (a nil body or joint, a geom of no body,
		// edited in after AddGeom): counted by its sizes alone.
		e.Bytes = bytes()
		return e
	}
	perBody := make([]int64, len(w.Bodies)) // rows touching each body
	addRows := func(b, k int) {
		if b >= 0 && b < len(perBody) && !w.Bodies[b].Static {
			r := perBody[b]
			e.Nonzeros += (r+int64(k))*(r+int64(k)) - r*r
			perBody[b] = r + int64(k)
		}
	}
	for _, j := range w.Joints {
		d := j.Dim()
		e.JointRows += d
		for _, b := range j.Bodies() {
			addRows(b, d)
		}
	}
	ng := len(w.Geoms)
	if ng < 2 {
		e.Bytes = bytes()
		return e
	}
	margin := w.margin()
	poses := make([]contact.Pose, ng)
	boxes := make([]contact.AABB, ng)
	sweep := make([]float64, ng)
	var still Mass // no free velocities yet: the sweep of the current ones
	for g := range w.Geoms {
		poses[g] = w.geomPose(g)
		ext := w.Geoms[g].Shape.Extent(poses[g])
		sweep[g] = w.geomSweep(g, ext, &still)
		boxes[g] = ext.Padded(margin + sweep[g])
	}
	order := make([]int32, ng)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(boxes[a].Min[0], boxes[b].Min[0]), cmp.Compare(a, b))
	})
	w.updateJoined()
	var pts []contact.Point
	check := 0
	for oi, gi := range order {
		a := int(gi)
		for _, gj := range order[oi+1:] {
			b := int(gj)
			if boxes[b].Min[0] > boxes[a].Max[0] {
				break
			}
			if !boxes[a].Overlaps(boxes[b]) || w.bodyOf(a) == w.bodyOf(b) ||
				(w.infiniteMass(a) && w.infiniteMass(b)) || !w.mayCollide(a, b) {
				continue
			}
			ga, gb := min(a, b), max(a, b)
			e.Pairs++
			pts = contact.Collide(pts[:0], w.Geoms[ga].Shape, poses[ga], w.Geoms[gb].Shape, poses[gb], margin+sweep[ga]+sweep[gb])
			if len(pts) > 0 {
				ma, mb := w.Geoms[ga].Material, w.Geoms[gb].Material
				per := 1
				if math.Sqrt(ma.Friction*mb.Friction) > 0 {
					per = 3
				}
				k := per * len(pts)
				if len(pts) == 2 && math.Max(ma.Rolling, mb.Rolling) > 0 {
					k++
				}
				e.Points += len(pts)
				e.ContactRows += k
				addRows(w.bodyOf(ga), k)
				addRows(w.bodyOf(gb), k)
			}
			if check++; limit > 0 && check%1024 == 0 && bytes() > limit {
				e.Partial = true
				e.Bytes = bytes()
				return e
			}
		}
	}
	e.Bytes = bytes()
	return e
}

// FallbackMemoryLimit is DefaultMemoryLimit where the machine's memory
// cannot be read (no /proc/meminfo): 4 GiB.
const FallbackMemoryLimit = 4 << 30

// DefaultMemoryLimit is the memory limit the commands default to (sim run
// and sim mlcp solve --max-memory): half of the machine's memory (MemTotal
// of /proc/meminfo), in whole MiB, or FallbackMemoryLimit where that
// cannot be read. Half leaves room for the rest of the machine and for
// what an estimate misses.
func DefaultMemoryLimit() int64 {
	if total, ok := machineMemory("/proc/meminfo"); ok {
		return total / 2 &^ (1<<20 - 1)
	}
	return FallbackMemoryLimit
}

// machineMemory reads MemTotal (kB) from a meminfo file, in bytes.
func machineMemory(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 2 && fields[1] == "kB" {
			if kb, err := strconv.ParseInt(fields[0], 10, 64); err == nil && kb > 0 && kb < math.MaxInt64/1024 {
				return kb * 1024, true
			}
		}
		return 0, false
	}
	return 0, false
}
