package stepper

import (
	"math"
	"slices"
	"sync"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
)

// IslandStats are one island's share of a step's solve (Stats.Islands).
type IslandStats struct {
	// Body is the island's smallest body index, its identity from step to
	// step (the key of its solver's state); −1 for the loose rows, those
	// naming no dynamic body, solved as one more problem. Islands without
	// rows (a body on its own) have nothing to solve and no entry.
	Body int
	// Bodies and Rows are the island's dynamic bodies and MLCP rows.
	Bodies, Rows int
	// Iterations, Status, BudgetHit and Picked are Stats' fields for the
	// island's own solve.
	Iterations int
	Status     lcp.Status
	BudgetHit  bool
	Picked     int
	// Bound is the certified bound of the island's used iterate (J,
	// errmeasure.CertifiedBound).
	Bound float64
}

// islandStage is the solve stage's state when a step's MLCP is solved by
// island (World.solveIslands): the partition, one slot of solver state per
// island identity, this step's problems in island order, and the worker
// pool that runs them.
type islandStage struct {
	set islandSet
	// setStep is the step (World.steps+1 while it runs) whose rows set
	// was built from, so that updateSleep reuses it instead of building
	// the same partition again.
	setStep int
	// layStep is the step (World.steps+1 while it runs) whose rows the
	// assembly's layout check saw (World.assemble): partition then keeps
	// the set by the layout's generation.
	layStep int
	// activeVersion is the set's version (islandSet.version) that active
	// and local were made for (splitIslands, which keeps them while the
	// set stands), 0 when none.
	activeVersion uint64
	// slots[b] is the state of the island whose smallest body is b,
	// created when such an island first appears and kept after it
	// dissolves, so that an island that persists, or comes back with the
	// same smallest body, keeps its solver's warm factor. loose is the
	// loose rows' slot.
	slots []*islandSlot
	loose *islandSlot
	// active are this step's problems: the islands in order, then the
	// loose rows' slot if there are any.
	active []*islandSlot
	// sums[k] and stats[k] are what active[k]'s solve reports
	// (islandSlot.summarize), written by the island's task.
	sums  []islandSum
	stats []IslandStats
	// bppFails and bppDense are the islands' BPP options of the step
	// (lcp.BPP's MaxBlockFailures and MaxDenseFallback: the default's, or
	// the user's BPP's), set on each island's own BPP by its solve.
	bppFails, bppDense int
	pool               islandPool
	// world is, during solveIslands, the world's problem.
	world lcp.Problem
	local []int32 // each row's place among its problem's rows
	// pointAt is the contact point whose first row each row is, −1 for
	// the others (anchor), filled for the step's solve by the first island
	// that asks (pointAtRows; pointOK, under pointMu): an island whose
	// solve converges asks nothing.
	pointAt []int32
	pointOK bool
	pointMu sync.Mutex
}

// islandSlot is one island's sub-MLCP and the state of its solve: its own
// matrix (extracted from the world's, lcp.Sparse.Submatrix), solver,
// Pickers and energy model. A worker writes only into its islands' slots.
type islandSlot struct {
	rows   []int32 // the island's rows in the world's problem, ascending
	bodies []int32 // its dynamic bodies
	key    int     // IslandStats.Body

	a             lcp.Sparse
	dense         lcp.Dense // A's block when the island is dense (islandSlot.isDense)
	kkt           lcp.KKT   // the island's body-space form (lcp.KKT.SubTo), when the world's has one
	b, lo, hi     []float64
	start         []lcp.State
	ref, xref     []float64 // the pre-solve's x on the rows (Settings.Reference) when it ran, else nil; its storage
	prob          lcp.Problem
	res           lcp.Result
	bpp           lcp.BPP
	picker, guard *errmeasure.Picker
	energy        energyModel
	prevX         []float64
	// world is the slot's world during its solve; energyReady is set when
	// energy describes this step's island, which gain (islandSlot.islandGain,
	// made once) fills on its first call.
	world       *World
	energyReady bool
	gain        errmeasure.GainFunc

	solved  errmeasure.Solved
	guarded errmeasure.Safeguarded
	err     error
	// skip is set for a step's solve again (solveStage.again) when no row
	// of the island changed: its answer and sums are the last solve's.
	skip bool
}

// islandPool runs the islands of a step on the world's workPool. The
// islands are taken in a fixed order (sort), the large ones of each end
// of the island order first, so that a large island starts first and does
// not finish last.
// Each island's solve reads only the world's finished problem and writes
// only its own slot.
type islandPool struct {
	world *World
	order []int32  // the active islands in the pool's order (sort)
	keys  []uint64 // sort's keys
	// version is the island set's version (islandSet.version) that order
	// was sorted for: the active islands are a function of the set.
	version uint64
	// tasks cuts order into the pool's tasks (group): task k solves the
	// islands order[tasks[k]:tasks[k+1]].
	tasks []int32
	task  func(int) // runs task k; made once
}

// splitIslands reports whether the step's MLCP of rs is to be solved by
// island, and when it is, fills ws.islands.set and its active slots. The
// world's problem is solved as one when Settings.SingleProblem is set, when
// it is one island (the same code path, the same bits, as a world without
// islands) and on a gyroscopic step (whose dense, non-symmetric A is not
// extracted).
func (w *World) splitIslands(as *assemblyStage, rs *rowStage) bool {
	if w.Settings.SingleProblem || as.eq.Gyroscopic > 0 {
		return false
	}
	is := &w.ws.islands
	w.partition(rs.rows)
	if is.activeVersion == is.set.version && len(is.local) == len(rs.rows) {
		return true // the set this step's problems were made of last
	}
	if problems(&is.set) < 2 {
		return false
	}
	// Each row's place in its own problem, for Submatrix.
	is.local = slices.Grow(is.local[:0], len(rs.rows))[:len(rs.rows)]
	for k := range is.set.n() {
		for p, i := range is.set.islandRows(k) {
			is.local[i] = int32(p)
		}
	}
	for p, i := range is.set.loose {
		is.local[i] = int32(p)
	}
	if len(is.slots) < len(w.Bodies) {
		is.slots = slices.Grow(is.slots, len(w.Bodies)-len(is.slots))[:len(w.Bodies)]
	}
	is.active = is.active[:0]
	for k := range is.set.n() {
		if len(is.set.islandRows(k)) == 0 {
			continue // a body on its own: nothing to solve
		}
		bodies := is.set.islandBodies(k)
		key := bodies[0]
		if is.slots[key] == nil {
			is.slots[key] = &islandSlot{}
		}
		sl := is.slots[key]
		sl.key, sl.rows, sl.bodies = int(key), is.set.islandRows(k), bodies
		is.active = append(is.active, sl)
	}
	if len(is.set.loose) > 0 {
		if is.loose == nil {
			is.loose = &islandSlot{}
		}
		is.loose.key, is.loose.rows, is.loose.bodies = -1, is.set.loose, nil
		is.active = append(is.active, is.loose)
	}
	is.activeVersion = is.set.version
	return true
}

// solveIslands solves the step's MLCP island by island: each island's
// sub-problem (A's principal block on its rows, their b, bounds and warm
// start) by its own solver under Settings.Budget, with its own Picker and
// safeguard Picker, the energy model restricted to its bodies and rows
// (the island's share of energyModel: e₀ summed over its bodies), the
// safeguard towards its rows' last impulses (anchor), and
// Settings.Polish. The islands' x, w and index sets are scattered into ws.solve.res, so that
// integrate, storeImpulses, the projection and World.LastSolution see one
// answer of the world's problem: A is block diagonal by island, so the
// scattered x solves the world's MLCP exactly when each island's solves
// its own. It returns the combined Stats (see Stats.Islands) and the
// first island's error in island order.
//
// Solvers: with Settings.Solver nil or an *lcp.BPP, each island solves
// with a BPP of its own (the user's BPP's options copied), kept in its
// slot across steps, and the islands run in parallel (islandPool). Any
// other solver may carry state that is not safe to share or copy, so the
// islands solve in turn with it, in island order; so they do when
// Settings.Observer is set, which then sees each island's iterates in
// island order with World.LastProblem the island's sub-problem.
func (w *World) solveIslands(sol *solveStage, rs *rowStage) (Stats, error) {
	ws := &w.ws
	is := &ws.islands
	s := &w.Settings
	// Each island fills its bodies' and rows' terms of the world's energy
	// model when its gain is first asked (islandSlot.islandGain); the
	// islands' bodies and rows are disjoint, so they fill in parallel.
	w.growEnergy()
	is.pointOK = false // this step's points: filled on demand (pointAtRows)
	is.world = sol.prob
	shared, parallel := ws.step.solver, s.Observer == nil
	if user, ok := s.Solver.(*lcp.BPP); ok || s.Solver == nil {
		shared = nil
		fails, dense := 0, 0 // the default's options, or the user's BPP's
		if ok {
			fails, dense = user.MaxBlockFailures, user.MaxDenseFallback
		}
		is.bppFails, is.bppDense = fails, dense // set by each island's solve
	} else {
		parallel = false
	}
	n := len(rs.rows)
	res := &sol.res
	res.X, res.W = grow(res.X, n), grow(res.W, n)
	res.States = slices.Grow(res.States[:0], n)[:n]
	na := len(is.active)
	is.sums = slices.Grow(is.sums[:0], na)[:na]
	is.stats = slices.Grow(is.stats[:0], na)[:na]
	for k, sl := range is.active {
		sl.skip = sol.again && len(sol.changed) == n && !slices.ContainsFunc(sl.rows, func(i int32) bool { return sol.changed[i] })
		if sl.skip {
			// Not solved again: no iterations of this solve.
			is.sums[k].iterations, is.sums[k].pivots, is.stats[k].Iterations = 0, 0, 0
		}
	}
	if parallel {
		is.pool.solve(w, is.active)
	} else {
		for k, sl := range is.active {
			if sl.skip {
				continue
			}
			sl.prepare(w)
			sol.prob = sl.prob // LastProblem, for the Observer
			sl.solve(w, shared)
			sl.scatter(res)
			sl.summarize(&is.sums[k], &is.stats[k])
		}
		sol.prob = is.world
	}
	st, complete := w.gatherIslands(sol)
	if !complete {
		// An island's problem failed validation: report the world's
		// error, whose indices are the world's rows (explainInvalid).
		if err := is.world.Validate(); err != nil {
			return st, err
		}
	}
	return st, firstIslandError(is.sums)
}

// prepare fills the slot's sub-problem from the world's problem (A, b,
// bounds), energy model and warm start, by the slot's rows: A's block
// dense for a small island (isDense), else sparse with its body-space
// form. It reads only what the step finished before the islands' solves
// and writes only the slot, so the slots prepare in parallel.
func (sl *islandSlot) prepare(w *World) {
	is := &w.ws.islands
	p, rs := &is.world, &w.ws.build
	m := len(sl.rows)
	dense := sl.isDense()
	if dense {
		p.A.(*lcp.Sparse).DenseSubmatrix(&sl.dense, sl.rows, is.local)
	} else {
		sl.a.Submatrix(p.A.(*lcp.Sparse), sl.rows, is.local)
	}
	sl.b, sl.lo, sl.hi = grow(sl.b, m), grow(sl.lo, m), grow(sl.hi, m)
	sl.start = slices.Grow(sl.start[:0], m)[:m]
	for k, i := range sl.rows {
		sl.b[k], sl.lo[k], sl.hi[k] = p.B[i], p.Lo[i], p.Hi[i]
		sl.start[k] = rs.start[i]
	}
	sl.ref = nil
	if ref := w.ws.presolve.ref; ref != nil { // the pre-solve's x or the last step's impulses (estimateNewContacts)
		sl.xref = grow(sl.xref, m)
		for k, i := range sl.rows {
			sl.xref[k] = ref[i]
		}
		sl.ref = sl.xref
	}
	sl.prob = lcp.Problem{A: &sl.a, B: sl.b, Lo: sl.lo, Hi: sl.hi}
	if dense {
		sl.prob.A = &sl.dense
	} else if p.KKT != nil && p.KKT.SubTo(&sl.kkt, sl.rows) == nil {
		// The rows are the world's, so SubTo cannot fail; the island
		// would solve on the dual path if it did.
		sl.prob.KKT, sl.prob.KKTAssembled = &sl.kkt, p.KKTAssembled // the world's rows and blocks
	}
	sl.world, sl.energyReady = w, false // the energy model waits for the first gain asked
	pick := w.Settings.Pick
	if sl.picker == nil || sl.picker.Measure() != pick {
		if sl.gain == nil {
			sl.gain = sl.islandGain
		}
		sl.picker = errmeasure.NewPicker(pick)
		sl.guard = errmeasure.NewPicker(pick)
		sl.guard.RejectGain = true
		sl.guard.GainOf = sl.gain
		// The guard ranks by gain only when read: by the safeguard,
		// after a solve that did not converge.
		sl.guard.DeferGain = true
	}
	sl.err = nil
}

// denseIslandRows is the most rows of an island whose A block is solved
// dense (islandSlot.isDense).
const denseIslandRows = 48

// isDense reports whether the slot's island has at most denseIslandRows
// rows. Its A block is then extracted dense (lcp.Sparse.DenseSubmatrix)
// and lcp.BPP factors its faces with its dense Cholesky, whose row updates
// cost O(m²) per index that enters or leaves the free set: for a block of
// a few bodies that is cheaper than the sparse LDLᵀ's ordering, symbolic
// analysis and elimination-tree updates, which pay only on larger blocks,
// and than building the body-space system K̃ of lcp.KKT (6 per body + m
// unknowns): its sub-problem carries no KKT. A box resting alone on the ground (12 rows) and a heap of a few boxes
// (up to 48 rows) are such islands; a settled pile has hundreds.
func (sl *islandSlot) isDense() bool {
	return len(sl.rows) <= denseIslandRows
}

// solve runs the slot's solve: pickSolve, safeguard and polish as the
// world's solve does them, by solver, or by the slot's own BPP when solver
// is nil.
func (sl *islandSlot) solve(w *World, solver lcp.Solver) {
	s := &w.Settings
	if solver == nil {
		is := &w.ws.islands
		sl.bpp.MaxBlockFailures, sl.bpp.MaxDenseFallback = is.bppFails, is.bppDense
		solver = &sl.bpp
	}
	set := lcp.Settings{MaxIterations: s.Budget, Tolerance: s.Tolerance, Start: sl.start, Reference: sl.ref, Context: s.Context, Observer: s.Observer}
	set.Semidefinite = sl.semidefinite(w)
	sl.solved, sl.err = errmeasure.SolveGuarded(&sl.res, &sl.prob, solver, set, sl.picker, sl.guard)
	sl.guarded = errmeasure.Safeguarded{Scale: 1}
	if len(sl.res.X) == len(sl.rows) && sl.res.Status != lcp.Converged {
		sl.guarded = errmeasure.Safeguard(&sl.res, &sl.prob, sl.picker, sl.guard, &sl.solved, sl.gain, sl.anchor(w), SafeguardSweeps)
	}
	if sl.err == nil && s.Polish > 0 {
		sl.err = errmeasure.Polish(&sl.res, &sl.prob, s.Polish, sl.picker, &sl.solved)
	}
}

// semidefinite reports, on a cold step (presolveStage.cold: the pre-solve
// of the whole problem ran), whether the island's first face is singular
// by structure (lcp.Problem.RedundantRigid on its rows and warm start), as
// pickSolve asks for the world's problem: its solve then starts in BPP's
// regularized mode (lcp.Settings.Semidefinite). A dense island carries no
// KKT; its rows' Jacobians are read from the world's (lcp.KKT.SubTo into
// the slot's storage), on cold steps only.
func (sl *islandSlot) semidefinite(w *World) bool {
	if !w.ws.presolve.cold {
		return false
	}
	if sl.prob.KKT != nil {
		return sl.prob.RedundantRigid(sl.start)
	}
	k := w.ws.islands.world.KKT
	if k == nil || k.SubTo(&sl.kkt, sl.rows) != nil {
		return false
	}
	p := lcp.Problem{A: sl.prob.A, B: sl.b, Lo: sl.lo, Hi: sl.hi, KKT: &sl.kkt}
	return p.RedundantRigid(sl.start)
}

// islandGain is the island's energy gain of impulses x with w = A x + b
// (energyModel.gain on its bodies and rows), filling the island's energy
// model on its first call after prepare: its bodies' and rows' terms of
// the world's model (energyBodies, energyRows, which write only those
// entries), then its share (restrict). An island whose solve converges
// asks none.
func (sl *islandSlot) islandGain(x, wv []float64) float64 {
	if !sl.energyReady {
		w := sl.world
		for _, i := range sl.bodies {
			w.energyBodies(int(i), int(i)+1)
		}
		for _, i := range sl.rows {
			w.energyRows(int(i), int(i)+1)
		}
		sl.energy.restrict(&w.ws.solve.energy, sl.bodies, sl.rows, sl.b)
		sl.energyReady = true
	}
	return sl.energy.gain(x, wv)
}

// anchor returns the last step's impulses on the slot's rows, the
// safeguard's first anchor, as previousImpulses does for the world's rows:
// a joint row's when the joint rows are the same, a contact point's rows'
// by its key (0 for a new point). It reads the contact cache, which no
// one writes during the islands' solves.
func (sl *islandSlot) anchor(w *World) []float64 {
	ws := &w.ws
	pointAt := w.pointAtRows()
	sl.prevX = grow(sl.prevX, len(sl.rows))
	clear(sl.prevX)
	nj := ws.build.nj
	joints := len(ws.memory.jointX) == nj
	for k, i := range sl.rows {
		switch {
		case int(i) < nj:
			if joints {
				sl.prevX[k] = ws.memory.jointX[i]
			}
		case pointAt[i] >= 0:
			// A point's rows are consecutive in the world's problem and
			// all in its island, so consecutive in the island's too.
			pt := &ws.contacts.points[pointAt[i]]
			if c, ok := ws.memory.cache.get(pt.ck); ok {
				copy(sl.prevX[k:k+pt.Rows], c.x[:pt.Rows])
			}
		}
	}
	return sl.prevX
}

// pointAtRows returns ws.islands.pointAt for the step's rows and contact
// points, filling it on the first call of the solve: the islands' solves
// call it in parallel (anchor), and the first fills it under pointMu for
// all, from the rows and points no one writes during the solves.
func (w *World) pointAtRows() []int32 {
	ws := &w.ws
	is := &ws.islands
	is.pointMu.Lock()
	defer is.pointMu.Unlock()
	if !is.pointOK {
		n := len(ws.build.rows)
		is.pointAt = slices.Grow(is.pointAt[:0], n)[:n]
		for i := range is.pointAt {
			is.pointAt[i] = -1
		}
		for i := range ws.contacts.points {
			is.pointAt[ws.contacts.points[i].Row] = int32(i)
		}
		is.pointOK = true
	}
	return is.pointAt
}

// statusRank orders the statuses from best to worst for Stats.Status of a
// step solved by island: the world's status is its worst island's.
var statusRank = [...]int{
	lcp.Converged:       0,
	lcp.NotStarted:      1,
	lcp.Unconverged:     2,
	lcp.BudgetExhausted: 3,
	lcp.Failed:          4,
	lcp.Stopped:         5,
	lcp.Canceled:        6,
}

func worse(a, b lcp.Status) bool {
	ra, rb := len(statusRank), len(statusRank)
	if a >= 0 && int(a) < len(statusRank) {
		ra = statusRank[a]
	}
	if b >= 0 && int(b) < len(statusRank) {
		rb = statusRank[b]
	}
	return ra > rb
}

// islandSum is what gatherIslands reads of one island's solve: the
// island's task writes it (islandSlot.summarize) into a slice in island
// order, so that the step's serial combination reads contiguous memory
// rather than fields spread over every slot.
type islandSum struct {
	complete, states, hit, lastOK bool
	iterations, pivots, picked    int
	sweeps                        int // errmeasure.Solved.Sweeps
	status                        lcp.Status
	reason                        string
	bound                         float64
	totals, last                  errmeasure.Totals
	guarded                       errmeasure.Safeguarded
	err                           error
}

// summarize writes the slot's answer's statistics into sum and its
// IslandStats into stats (its entries of islandStage.sums and stats).
func (sl *islandSlot) summarize(sum *islandSum, stats *IslandStats) {
	r := &sl.res
	last, lastOK := sl.picker.LastTotals()
	status, reason := solveStatus(r, &sl.solved)
	*sum = islandSum{
		complete: len(r.X) == len(sl.rows), states: len(r.States) == len(sl.rows),
		hit: sl.solved.SolverStatus == lcp.BudgetExhausted, lastOK: lastOK,
		iterations: r.Iterations, pivots: r.Pivots, picked: sl.solved.Picked,
		sweeps: sl.solved.Sweeps, status: status, reason: reason, bound: sl.solved.Bound,
		totals: sl.solved.Totals, last: last, guarded: sl.guarded, err: sl.err,
	}
	*stats = IslandStats{
		Body: sl.key, Bodies: len(sl.bodies), Rows: len(sl.rows),
		Iterations: r.Iterations, Status: status, BudgetHit: sum.hit,
		Picked: sl.solved.Picked, Bound: sl.solved.Bound,
	}
}

// solveStatus is the status a step reports (Stats.Status,
// IslandStats.Status) of a solve whose used answer is r and whose solver
// ended as solved.SolverStatus, with its reason: r's own, but never
// lcp.Converged when the solver ran out of its budget. errmeasure labels
// Converged a picked or polished x whose natural residual is within
// errmeasure.ConvergedResidual·max(1, ‖b‖∞), a bound that does not scale
// below 1 m/s: on the 30-box random pile under Budget 2 (an island of
// four boxes, ‖b‖∞ = 0.32 m/s) it passed block pivoting's first iterate,
// of natural residual 6.3e-7 m/s, 2.0e-6·‖b‖∞, twice lcp.BPP's
// documented 1e-6·‖b‖∞ (a regularized semidefinite block; 1e-10
// elsewhere), an iterate BPP's own test had rejected before its budget
// ran out (TestNewUserConvergedOnlyWhenSolved, step 64). Only the
// solver's own test says a solve converged within its budget; r.Status
// itself, which the safeguard and the polish read, is left as it is, so
// no answer changes.
func solveStatus(r *lcp.Result, solved *errmeasure.Solved) (lcp.Status, string) {
	if r.Status == lcp.Converged && solved.SolverStatus == lcp.BudgetExhausted {
		return lcp.BudgetExhausted, solved.SolverReason
	}
	return r.Status, r.Reason
}

// gatherIslands completes sol.res, into which the islands scattered their
// answers (islandSlot.scatter), and combines their statistics
// (islandStage.sums) in island order (Stats.Islands says how).
func (w *World) gatherIslands(sol *solveStage) (Stats, bool) {
	is := &w.ws.islands
	n := len(w.ws.build.rows)
	res := &sol.res
	res.Iterations, res.Pivots, res.Status, res.Reason = 0, 0, lcp.Converged, ""
	st := Stats{Rows: n}
	var last errmeasure.Totals
	complete, states := true, true
	st.Safeguard.Scale = 1
	for k := range is.sums {
		r := &is.sums[k]
		if !r.complete {
			complete = false
		} else {
			states = states && r.states
		}
		res.Iterations = max(res.Iterations, r.iterations)
		res.Pivots += r.pivots
		if worse(r.status, res.Status) {
			res.Status, res.Reason = r.status, r.reason
		}
		st.BudgetHit = st.BudgetHit || r.hit
		st.Picked = max(st.Picked, r.picked)
		st.Bound += r.bound
		st.Errors.FB += r.totals.FB
		st.Errors.Residual += r.totals.Residual
		st.Errors.Energy += r.totals.Energy
		if r.lastOK {
			last.FB += r.last.FB
			last.Residual += r.last.Residual
			last.Energy += r.last.Energy
		}
		g := &r.guarded
		st.PolishSweeps = max(st.PolishSweeps, r.sweeps)
		st.Safeguard.Gain += g.Gain
		st.Safeguard.Sweeps = max(st.Safeguard.Sweeps, g.Sweeps)
		if g.Anchor > st.Safeguard.Anchor {
			st.Safeguard.Anchor, st.Safeguard.Iter = g.Anchor, g.Iter
		}
		st.Safeguard.Scale = math.Min(st.Safeguard.Scale, g.Scale)
	}
	if !complete {
		res.X, res.W = res.X[:0], res.W[:0]
	}
	if !complete || !states {
		res.States = res.States[:0] // as a solver that reports none
	}
	st.Iterations, st.Status = res.Iterations, res.Status
	st.LastErrors = last
	st.Islands = is.stats
	return st, complete
}

// scatter writes the slot's answer into the world's result res (grown to
// the world's rows): x and w, and the index sets when the solver reported
// them, on the slot's rows. The islands' rows are disjoint, so the slots
// scatter in parallel; gatherIslands then empties what an incomplete
// island leaves undefined.
func (sl *islandSlot) scatter(res *lcp.Result) {
	r := &sl.res
	if len(r.X) != len(sl.rows) {
		return
	}
	states := len(r.States) == len(sl.rows)
	for k, i := range sl.rows {
		res.X[i], res.W[i] = r.X[k], r.W[k]
		if states {
			res.States[i] = r.States[k]
		}
	}
}

// firstIslandError returns the first error of the islands' solves, in
// island order.
func firstIslandError(sums []islandSum) error {
	for k := range sums {
		if err := sums[k].err; err != nil {
			return err
		}
	}
	return nil
}

// restrict sets em to the energy model of the bodies and rows of one
// island of the world's model src (energyModel): e₀ and its scale summed
// over the island's bodies in index order, the row terms of its rows in
// order, b the island's own.
func (em *energyModel) restrict(src *energyModel, bodies, rows []int32, b []float64) {
	m := len(rows)
	em.u, em.c, em.jvf = grow(em.u, m), grow(em.c, m), grow(em.jvf, m)
	em.motor = slices.Grow(em.motor[:0], m)[:m]
	for k, i := range rows {
		em.u[k], em.c[k], em.jvf[k], em.motor[k] = src.u[i], src.c[i], src.jvf[i], src.motor[i]
	}
	em.b = b
	k0, kf, wf := 0.0, 0.0, 0.0
	for _, i := range bodies {
		k0 += src.bk0[i]
		kf += src.bkf[i]
		wf += src.bwf[i]
	}
	em.e0 = kf - k0 - wf
	em.scale = k0 + kf + math.Abs(wf)
}

// solve runs the islands of active on the world's workPool and returns
// when all are done.
func (p *islandPool) solve(w *World, active []*islandSlot) {
	p.world = w
	if p.task == nil {
		p.task = func(k int) {
			is := &p.world.ws.islands
			for _, i := range p.order[p.tasks[k]:p.tasks[k+1]] {
				sl := is.active[i]
				if sl.skip {
					continue
				}
				sl.prepare(p.world)
				sl.solve(p.world, nil)
				sl.scatter(&p.world.ws.solve.res)
				// The Picker's deferred events run here, on the worker.
				sl.summarize(&is.sums[i], &is.stats[i])
			}
		}
	}
	if v := w.ws.islands.set.version; v != p.version || len(p.order) != len(active) {
		if nb := len(w.Bodies); cap(p.order) < nb {
			// An island holds a dynamic body: the active islands are at
			// most the bodies, so the order, keys and cuts are sized once
			// rather than growing with the island count while a pile
			// settles.
			p.order, p.keys, p.tasks = make([]int32, 0, nb), make([]uint64, 0, nb), make([]int32, 0, nb+1)
		}
		p.sort(active)
		p.group(active)
		p.version = v
	}
	w.ws.pool.do(len(p.tasks)-1, p.task)
}

// islandTaskRows is the fewest rows of one islandPool task but for a
// larger island's own: a box alone on the ground (4 contact points, 12
// rows) solves in a few µs, about as long as the hand-out of a task
// costs on a busy cache line, so such islands go three or more to a task.
const islandTaskRows = 36

// group sets p.tasks to the cuts of p.order into the pool's tasks: runs
// of consecutive islands in p.order, each ended as soon as it holds
// islandTaskRows rows (an island of so many rows is a task of its own),
// so that the tasks are a third of the islands on a settled pile.
func (p *islandPool) group(active []*islandSlot) {
	p.tasks = append(slices.Grow(p.tasks[:0], len(p.order)+1), 0)
	rows := 0
	for k, i := range p.order {
		if rows += len(active[i].rows); rows >= islandTaskRows || k == len(p.order)-1 {
			p.tasks = append(p.tasks, int32(k+1))
			rows = 0
		}
	}
}

// sort sets p.order to the islands of active in two halves, cut in
// island order where the rows first reach half of all: the first half's
// islands the most rows first, then the second half's the fewest rows
// first (ties in island order as each end reads them). The workPool's caller takes
// the tasks from the front and its helpers from the back (workPool), so
// each end starts on its half's largest island and the small ones fill in
// behind them (the cost of a block-pivoting solve grows faster than its
// rows), the two meeting among small islands; and each worker solves the
// islands of its own end of the island order, whose rows the forRange
// jobs before the solve (the contact rows, the assembly's) gave it in the
// same way, in its core's cache. It sorts one integer key per island
// (the rows' complement above, the island's place below, the second
// half's keys complemented), which orders as the comparison would
// without a comparison function's calls.
func (p *islandPool) sort(active []*islandSlot) {
	n := len(active)
	total := 0
	for _, sl := range active {
		total += len(sl.rows)
	}
	cut, sum := n, 0
	for k, sl := range active {
		if 2*sum >= total {
			cut = k
			break
		}
		sum += len(sl.rows)
	}
	p.keys = slices.Grow(p.keys[:0], n)[:n]
	for k, sl := range active {
		key := uint64(math.MaxUint32-uint32(len(sl.rows)))<<32 | uint64(k)
		if k >= cut {
			key = ^key // the second half reversed: the fewest rows first
		}
		p.keys[k] = key
	}
	slices.Sort(p.keys[:cut])
	slices.Sort(p.keys[cut:])
	p.order = slices.Grow(p.order[:0], n)[:n]
	for k, key := range p.keys {
		if k >= cut {
			key = ^key
		}
		p.order[k] = int32(uint32(key))
	}
}
