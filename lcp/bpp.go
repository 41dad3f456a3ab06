package lcp

import (
	"errors"
	"fmt"
	"math"

	"github.com/gorigid/gorigid/internal/num"
	"gonum.org/v1/gonum/mat"
)

// BPP is the block principal pivoting method of Júdice and Pires (1994,
// ref. [29] of Enzenhöfer et al. 2019), extended to box bounds, with the
// safeguards that make it end on a time stepper's problems: single pivots,
// a damped Newton mode, and a regularized mode for semidefinite A. It is
// made for symmetric positive semidefinite A and for P-matrices: a bounded
// row with aᵢᵢ < 0, or with aᵢᵢ = 0 and coupled to another row (other than
// skew-symmetrically to a bilateral row, see notForBPP), is refused with
// ErrUnsupported (use Lemke or Auto).
//
// Iterations. Each row sits in one of three index sets: Free (F), AtLower
// (L) or AtUpper (U). One iteration fixes x_L = l_L and x_U = u_U, solves
// the face
//
//	A_FF x_F = −(b_F + A_FL l_L + A_FU u_U),
//
// sets w = A x + b, shows (x, w) to the Observer, and counts the infeasible
// rows: i ∈ F with x_i more than t_i below l_i or above u_i, i ∈ L with
// w_i < −t_w, i ∈ U with w_i > t_w. The tolerances are Settings.Tolerance
// (default 1e-10) times the velocity scale s_w = max|b| (1 if b = 0):
// t_w = Tolerance·s_w, and t_i = t_w/aᵢᵢ for the impulse of row i. Rows with
// l = u stay at their bound and rows with l = −∞, u = +∞ stay free.
//
// Guarantees:
//   - Termination: at most Settings.MaxIterations iterations (0 means
//     100 + 10 n), each one face solve. BudgetExhausted returns the last
//     iterate with its index sets, a warm start for the next solve.
//   - Every iterate, reported or returned, satisfies Eq. (2), w = A x + b,
//     with the fixed rows exactly at their bounds and, outside regularized
//     mode, w_F = 0 to the rounding of the face solve.
//   - Converged: the last face solution has no infeasible row, so x solves
//     the MLCP within t_i and t_w (in regularized mode, within the true
//     residual's tolerance described there).
//   - Failed (a face no factorization solves, inconsistent equations),
//     Canceled and Stopped return the iterate with the fewest
//     infeasibilities so far (the latest among equals) and its index sets,
//     with an error wrapping ErrSingular, the context's error or ErrStopped.
//
// Modes. A solve starts in block pivots and gives way to the next mode when
// one stalls:
//   - Block pivots (blockPivot) exchange every infeasible row at once:
//     F → L or U by the violated bound, L or U → F. Since they can cycle
//     even on P-matrices (Kostreva 1978, "Block pivoting methods for solving
//     the complementarity problem"), the solve keeps n̄, the least
//     infeasibility count seen, as Júdice and Pires (1994, "A block principal
//     pivoting algorithm for large-scale strictly monotone linear
//     complementarity problems") do; after MaxBlockFailures block pivots in
//     a row that do not reduce it,
//   - single pivots (singlePivot) exchange only the infeasible row of
//     largest index (Murty's least-index rule read from the end), which is
//     finite for P-matrices, and return to block pivots as soon as the count
//     drops below n̄.
//   - Damped mode (dampedStep): after maxSingles single pivots on a
//     symmetric A, or on any A in regularized mode, where single pivots
//     crawl (redundant contacts make A semidefinite), the solve becomes a semismooth Newton method on the
//     natural residual min(x − l, max(x − u, w)) whose Newton steps are the
//     face solves. From the best iterate an Armijo line search on
//     θ = ½‖x − P(x − w)‖² moves a damped point towards each face solution,
//     and the natural residual's index sets there (at a bound where x − w
//     lies beyond it, else free) choose the next face. While that is the
//     face just solved, whose solution is the one in hand, the next damped
//     step is taken from it without solving the face again (up to 64
//     steps, each a product with A): the damped points are those of a face
//     solve after every step, and an iteration is still one face solve. It
//     ends as pivoting does, on a face solution with no infeasible row.
//     A problem already in regularized mode (below), solved
//     without a budget (Settings.MaxIterations 0), enters the damped mode
//     as soon as block pivots stall, without single pivots, which crawl
//     there. A solve under a budget keeps the single pivots, whose
//     iterates change one row at a time, for the Picker to choose from.
//     The damped mode starts at the kept best iterate. When that is a face
//     solution, its natural residual's index sets are the block exchange's
//     (up to rows feasible within the tolerances), whose face was solved
//     by the iteration after it if that was a block pivot; the solve keeps
//     that face solution (or has it in hand), and the first damped steps
//     go towards it without solving the face again.
//   - Stalling in regularized mode: in regularized mode without a budget,
//     once a block pivot has failed, a new least count n < n̄ that does not
//     halve n̄ (2n > n̄) counts as a failure too and sets n̄ = n. Júdice and
//     Pires's n̄ ends cycling because it can drop at most n times, each
//     drop granting MaxBlockFailures more block pivots: O(n) block pivots
//     (face solves) before single pivots, which are finite on P-matrices
//     by the least index (Murty 1974, "Note on a Bard-type scheme for
//     solving the complementarity problem", where a Bard-type choice of
//     the pivot may cycle). On a semidefinite block the regularized
//     problems are P-matrices only by the shift ε, block pivots cycle
//     through new least counts, and the damped mode that follows is not
//     bounded by a count; after a failure the rule grants at most
//     (MaxBlockFailures + 1)(log₂ n̄ + 1) more block pivots, and block
//     pivots that converge, cutting the count by half or more each time,
//     are untouched (an island of the random pile, whose block pivots
//     cycle: 27 iterations, 31 without the rule and the damped mode's
//     first face in hand; TestBPPSemidefiniteCycleEndsEarly).
//   - Regularized mode (proximalMove): redundant rows make A_FF singular (a
//     box resting on four points with box friction gives 12 rows of rank
//     6), and block pivoting is only known to terminate on P-matrices. When
//     a factorization meets a pivot at rounding level, the solve pivots on
//     the regularized problem A + εD, b − εD x̄ instead (D = diag(A),
//     ε = SemidefiniteShift, x̄ the proximal centre, first
//     Settings.Reference or 0 without one), a P-matrix. A non-symmetric
//     A whose face LU finds singular (a gyroscopic body's response makes
//     the stepper's A non-symmetric, its redundant contacts make A_FF
//     singular) enters the mode as well, its faces A_FF + εD_FF solved by
//     LU: nonsingular, and a P-matrix, where A is monotone (x·Ax ≥ 0).
//     Its damped mode follows stalled block pivots as a symmetric one's
//     does, the Newton method needing no symmetry: on a gyroscopic wall
//     (TestBPPNonSymmetricDampedMode, 180 rows) single pivots crawled
//     through the whole budget of 1 900 iterations; damped, 96.
//     Each time that problem is solved while the true one is not, x̄ moves
//     to x and the solve goes on from the same index sets, with n̄ and the
//     failed block pivots counted afresh: the moved problem is another
//     P-matrix LCP, whose first block pivots, measured against the last
//     problem's n̄, would count as failures and send a converging solve to
//     the damped mode, which can crawl there (a forklift step: 13
//     iterations, 15 against the last n̄; TestBPPProximalMoveCountsAfresh);
//     a move shrinks
//     the error by ε/(λ + ε) along each eigenvalue λ of A and leaves the
//     null space, in which solutions may differ, alone. Converged here
//     means also that the true residual (the largest |w_F| and bound
//     violation of w on L and U, with w = A x + b) is at most regTol·s_w
//     (1e-6·s_w) when Settings.Tolerance is 0, and t_w when it is set; in
//     damped mode the moves go on to t_w while they keep cutting the
//     residual, and, once it is within regTol·s_w, while each move at least
//     halves it (a move that does not ends the solve as a stall does).
//     When proxStall moves in a row fail to cut it by 10 % the
//     equations are inconsistent (rigid rows closing a loop carry their
//     position errors φ/h): a residual within regTol·s_w is Converged with
//     the Reason "semidefinite block solved to the regularized tolerance", one within
//     proxAccept·s_w (1e-4·s_w) Converged with "semidefinite block
//     consistent to proxAccept of the velocity scale", a larger one Failed with ErrSingular. The
//     regularization is a device of the algorithm, not a compliance:
//     convergence is judged on the true w, which every iterate carries.
//   - Inherited regularization: a warm-started Solve (Settings.Start set)
//     on a BPP whose last Solve used the regularized mode starts in it, so
//     that a time stepper does not factor a singular block first at every
//     step; after semidefiniteInherit such solves in a row the next one
//     tests the unshifted block, so a problem that has become positive
//     definite leaves the regularization. A Solve with
//     Settings.Semidefinite (the caller found the first face singular by
//     its structure, Problem.RedundantRigid) starts in it as well.
//   - Light rows (holdLight): in a Solve with Settings.Semidefinite, in
//     regularized mode and not damped, a face solution whose true residual
//     is within regWtol and whose only infeasible rows are at a bound, each
//     with w beyond it by at most regWtol, is Converged with those rows
//     kept at their bounds: x is within its bounds to t_i and complementary
//     to w within regWtol, the tolerance the mode converges to, and
//     freeing them would only fix them again (rows that carry a load of
//     the regularization's level, ε aᵢᵢ |x − x̄|: the pre-solve of the
//     210-brick pyramid's step 1 freed 24 such rows after its proximal
//     move and fixed them again, 7 iterations instead of 5).
//
// Linear algebra. A symmetric A's free block is factored by Cholesky,
// updated row by row (O(m²) per changed index) when few indices change.
// A non-symmetric A, or a block that is not numerically positive definite,
// is solved by LU (singular above condition number 1e14). A *Sparse A's
// free block is factored by a sparse LDLᵀ in the fill-reducing order of
// the whole of A (sparseLDL: O(n) per iteration for a chain), updated
// between iterations and between solves of the same pattern; a block it
// finds not positive definite falls back to a dense LU up to
// MaxDenseFallback rows. Index sets, budget and warm starts are the same
// for Dense and Sparse, and the iterates agree to rounding.
//
// Body space. A *Sparse A with a Problem.KKT (A = J M⁻¹ Jᵀ + C, as the
// stepper assembles it) has its faces solved through the quasi-definite
// [M J_Fᵀ; J_F −C̃_F] instead, with the same sparse LDLᵀ machinery, when
// that factorization's structural flops are under half the dual's (a brick
// pyramid: 75 times fewer): C̃ is C + ε diag(A) in regularized mode (exact),
// and at least 1e-8·aᵢᵢ for rigid rows otherwise, each solve refined against
// K with the exact diagonal to the backward error of a direct solve (or,
// where refinement stalls at rounding on a regularized face, within
// 1e-10 of it; see kktLDL). A
// refinement that does not converge (a singular face with an inconsistent
// right-hand side) hands the face to the dual factorization, which then
// finds the rounding-level pivot that starts regularized mode, or, when
// that factorization would cost more than 32 body-space ones (a 210-brick
// pyramid: 75) or the face is singular by its structure
// (Problem.RedundantRigid: a brick wall's bricks on four coplanar contact
// points), starts regularized mode itself: a face whose refinement with
// δ = 1e-8·aᵢᵢ fails has an eigenvalue below about δ. A KKT that does
// not match A (checked once per Solve) hands the dual the whole Solve. The
// answers agree with the dual path's to the faces' rounding (see kktLDL).
//
// A BPP keeps its workspace between solves, so repeated solves of one size
// do not allocate; it is not safe for concurrent use.
type BPP struct {
	// MaxBlockFailures is the number of block pivots in a row that may fail
	// to reduce the number of infeasibilities before a single pivot; 0 means 3.
	MaxBlockFailures int

	// MaxDenseFallback is the largest free block of a *Sparse A that is
	// solved by a dense LU when the sparse LDLᵀ finds it not positive
	// definite (a larger one ends the solve with ErrSingular); 0 means 2000
	// (a 2000² LU holds 32 MB).
	MaxDenseFallback int

	// Workspace, reused across calls.
	state, next   []State
	pos           []int // position of row i in free, or -1
	free          []int // free rows in factor order
	rhs, xf, xtol []float64
	bestX         []float64
	bestW         []float64
	bestState     []State
	// The face solution a block pivot from the kept best iterate led to,
	// while it is one of the problem being solved (see enterDamped).
	succX     []float64
	succState []State
	succOK    bool
	fac       chol
	// Regularized mode (see BPP).
	reg          bool
	semidefinite bool      // the last Solve needed regularized mode: a warm-started next one starts in it
	wBody        bool      // the current iterate's w is kktLDL.mulAdd's (kktFace)
	inherited    int       // solves in a row that started in regularized mode without testing A_FF
	diag         []float64 // the diagonal of A
	xprox        []float64 // the proximal centre x̄
	ref          []float64 // Settings.Reference of this Solve (the caller's), the first x̄, or nil
	proxRes      float64   // the true residual at the last move that cut it by 10 %
	proxStay     int       // proximal moves since then
	regWtol      float64   // the velocity tolerance of the true residual
	// Damped mode (see BPP): the damped point, its merit, workspace.
	dmX, dmT, dmW []float64
	// dmWX and dmWF are A x + b at the damped point and at the Newton
	// point of the line search (dampedStep), without the proximal term.
	dmWX, dmWF   []float64
	face         []State // dampedSteps: the face last solved
	dampedRepeat int     // tests: the most damped steps per face solve; 0 means maxDampedRepeat
	strictHold   bool    // tests: holdLight is false
	dmTheta      float64
	// The sparse LDLᵀ and the dense LU of the free block.
	sfac         sparseLDL
	kkt          kktLDL // the body-space factorization (Problem.KKT)
	kktPath      int8   // tests: kktAuto, kktForce or kktOff
	lu           mat.LU
	blk          mat.Dense
	luRHS, luSol mat.VecDense
}

var _ Solver = (*BPP)(nil)

// Name returns "bpp".
func (s *BPP) Name() string { return "bpp" }

// scales returns the velocity tolerance and fills xtol (n entries) with
// the impulse tolerance of each row (see Settings.Tolerance).
func scales(p *Problem, tol float64, xtol []float64) float64 {
	return scalesDiag(p, tol, xtol, p.Diag(xtol)) // each a_ii read before xtol[i] is written
}

// scalesDiag is scales with A's diagonal given (Problem.Diag); diag may
// be xtol itself.
func scalesDiag(p *Problem, tol float64, xtol, diag []float64) float64 {
	tol = tolOrDefault(tol)
	sw := num.MaxAbs(p.B)
	if sw == 0 {
		sw = 1
	}
	wtol := tol * sw
	diag = diag[:len(xtol)]
	for i, a := range diag {
		if a > 0 {
			xtol[i] = wtol / a
		} else {
			xtol[i] = wtol
		}
	}
	return wtol
}

func tolOrDefault(tol float64) float64 {
	if tol <= 0 {
		return defaultTolerance
	}
	return tol
}

// initialStates fills st from s.Start, s.X0 or the default.
func initialStates(st []State, p *Problem, s *Settings) error {
	n := p.N()
	if s.Start != nil && len(s.Start) != n {
		return fmt.Errorf("settings: Start has %d entries, problem has %d rows", len(s.Start), n)
	}
	if s.X0 != nil && len(s.X0) != n {
		return fmt.Errorf("settings: X0 has %d entries, problem has %d rows", len(s.X0), n)
	}
	if s.Reference != nil && len(s.Reference) != n {
		return fmt.Errorf("settings: Reference has %d entries, problem has %d rows", len(s.Reference), n)
	}
	for i, v := range s.Reference {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("settings: Reference[%d]: must be finite, got %v", i, v)
		}
	}
	if s.Start != nil {
		// The warm start of a time stepper, every step: its own loop.
		lo, hi := p.Lo[:n], p.Hi[:n]
		for i, v := range s.Start[:n] {
			if v != Free && v != AtLower && v != AtUpper {
				return fmt.Errorf("settings: Start[%d]: unknown state %d", i, v)
			}
			st[i] = fixState(v, lo[i], hi[i])
		}
		return nil
	}
	for i := 0; i < n; i++ {
		l, u := p.Lo[i], p.Hi[i]
		var v State
		switch {
		case s.X0 != nil:
			x := s.X0[i]
			switch {
			case math.IsNaN(x):
				return fmt.Errorf("settings: X0[%d]: is NaN", i)
			case x <= l:
				v = AtLower
			case x >= u:
				v = AtUpper
			default:
				v = Free
			}
		default:
			v = AtLower
		}
		st[i] = fixState(v, l, u)
	}
	return nil
}

// fixState maps a state onto what the bounds allow: a row with l = u is at
// its lower bound; a missing bound cannot be active.
func fixState(v State, l, u float64) State {
	switch {
	case l == u:
		return AtLower
	case v == AtLower && math.IsInf(l, -1):
		if math.IsInf(u, 1) {
			return Free
		}
		return AtUpper
	case v == AtUpper && math.IsInf(u, 1):
		if math.IsInf(l, -1) {
			return Free
		}
		return AtLower
	}
	return v
}

// Solve runs block principal pivoting on p. See BPP.
func (s *BPP) Solve(dst *Result, p *Problem, set Settings) error {
	// Validate, with the KKT's mass blocks checked into the factors of
	// its body-space product (kktLDL.factorMass then computes none).
	s.kkt.mul.validated = nil
	if err := p.validate(&s.kkt.mul); err != nil {
		return err
	}
	st := bppSolve{BPP: s, p: p, dst: dst, set: set, n: p.N()}
	if err := st.start(); err != nil {
		return err
	}
	for st.it = 1; ; st.it++ {
		if done, err := st.iterate(); done {
			return err
		}
	}
}

// bppSolve is the state of one BPP.Solve: the problem, the answer being
// built, the tolerances and budget, and the counters of the pivoting
// rules. The index sets, the best iterate and the factors live in the
// BPP's workspace, which it embeds.
type bppSolve struct {
	*BPP
	p    *Problem
	sp   *Sparse // p.A if it is sparse
	dst  *Result
	set  Settings  // a copy: a pointer to Solve's would move it to the heap
	x, w []float64 // the iterate: dst.X, dst.W
	n    int

	symmetric bool
	wtol, sw  float64 // velocity tolerance and velocity scale max|b|
	budget    int
	maxFail   int // MaxBlockFailures or its default

	it       int     // the current iteration, 1-based
	ninf     int     // infeasible rows of the current face solution
	last     int     // the largest infeasible row
	trueRes  float64 // regularized mode: the true residual of the face solution
	bestInf  int     // the least infeasibility count seen (n̄)
	fails    int     // block pivots in a row that did not reduce bestInf
	singles  int     // single pivots so far
	damped   bool    // in damped mode
	keptInf  int     // infeasibilities of the kept best iterate, −1 before any
	bestIt   int     // the iteration of the kept best iterate
	fromBest bool    // the index sets are a block pivot from the kept best iterate
}

// start sizes the workspace, sets the initial index sets, the tolerances
// and the budget, and starts in regularized mode if a recent warm-started
// solve needed it. An error ends the solve.
func (st *bppSolve) start() error {
	s, p, n := st.BPP, st.p, st.n
	s.state = growStates(s.state, n)
	s.next = growStates(s.next, n)
	if err := initialStates(s.state, p, &st.set); err != nil {
		return err
	}
	st.dst.resize(n)
	s.grow(n)
	st.x, st.w = st.dst.X, st.dst.W
	s.diag = p.Diag(s.diag) // At(i, i) for every Matrix
	st.wtol = scalesDiag(p, st.set.Tolerance, s.xtol, s.diag)
	st.sw = st.wtol / tolOrDefault(st.set.Tolerance)
	s.kkt.sw = st.sw
	st.budget = st.set.MaxIterations
	if st.budget <= 0 {
		st.budget = 100 + 10*n
	}
	st.maxFail = s.MaxBlockFailures
	if st.maxFail <= 0 {
		st.maxFail = 3
	}
	st.symmetric = isSymmetric(p.A, 1e-12)
	if reason := notForBPP(p, st.symmetric, s.diag); reason != "" {
		fixFromStates(st.x, p, s.state)
		p.Residual(st.w, st.x)
		copy(st.dst.States, s.state)
		st.dst.Status, st.dst.Reason = Failed, reason
		return fmt.Errorf("bpp: %s: %w", reason, ErrUnsupported)
	}
	st.sp, _ = p.A.(*Sparse)
	// A new problem: K̃ is rebuilt on first use, and KKT checked against A.
	s.kkt.built, s.kkt.mismatch, s.kkt.verified = false, false, false
	if st.sp == nil {
		s.fac.reset(n)
	}
	s.sfac.shift = 0
	s.reg = false
	s.ref = st.set.Reference
	inherit := s.semidefinite && st.set.Start != nil && s.inherited < semidefiniteInherit
	s.semidefinite = false
	if inherit {
		// A recent (warm-starting) solve needed the regularization: start
		// in it rather than factor a singular block first.
		s.enterRegularized(st.x)
		s.inherited++
	} else {
		s.inherited = 0
		if st.set.Semidefinite {
			s.enterRegularized(st.x) // the caller knows A_FF is singular
		}
	}
	// Semidefinite problems are solved to regTol of the velocity scale
	// unless the caller asked for a tolerance (see BPP).
	s.regWtol = st.wtol
	if st.set.Tolerance == 0 {
		s.regWtol = math.Max(st.wtol, regTol*st.sw)
	}
	st.bestInf, st.keptInf = n+1, -1
	return nil
}

// grow sizes the workspace for n rows; no row is in the factor.
func (s *BPP) grow(n int) {
	s.pos = growInt(s.pos, n)
	s.free = growInt(s.free, n)[:0]
	s.rhs = grow(s.rhs, n)
	s.xf = grow(s.xf, n)
	s.xtol = grow(s.xtol, n)
	s.bestX = grow(s.bestX, n)
	s.bestW = grow(s.bestW, n)
	s.bestState = growStates(s.bestState, n)
	s.succX = grow(s.succX, n)
	s.succState = growStates(s.succState, n)
	s.succOK = false
	for i := range s.pos {
		s.pos[i] = -1
	}
	s.diag = grow(s.diag, n)
	s.xprox = grow(s.xprox, n)
}

// iterate is one iteration: it solves the face of the index sets and
// either ends the solve, reporting true and the error to return, or
// chooses the next index sets.
func (st *bppSolve) iterate() (bool, error) {
	if done, err := st.solveFace(); done {
		return true, err
	}
	st.exchange()
	if st.ninf == 0 {
		if !st.reg || st.trueRes <= st.proxTol() {
			return true, st.finish(Converged, "")
		}
		if done, err := st.proximalMove(); done {
			return true, err
		}
	}
	if st.it >= st.budget {
		return true, st.finish(BudgetExhausted, "")
	}
	if st.ninf > 0 {
		st.pivot()
	}
	return false, nil
}

// solveFace sets x to the solution of the face of the index sets (the
// fixed rows at their bounds, A_FF x_F = −(b_F + A_F,fixed x_fixed)) and
// w = A x + b, and shows the iterate to the Observer. It ends the solve
// when the solve was canceled or stopped, or the face could not be solved.
func (st *bppSolve) solveFace() (bool, error) {
	dst := st.dst
	if err := st.set.canceled(dst, "bpp"); err != nil {
		st.finishBest()
		return true, err
	}
	fixFromStates(st.x, st.p, st.state)
	st.wBody = false
	var err error
	if st.sp != nil {
		err = st.solveSparse(st.p, st.sp, st.x, st.w)
	} else {
		err = st.solveFree(st.p, st.x, st.w, st.symmetric, st.sw)
	}
	if err != nil {
		st.finishBest()
		dst.Iterations = st.it - 1
		dst.Status = Failed
		dst.Reason = err.Error()
		return true, err
	}
	dst.Iterations = st.it
	st.set.observe(Iterate{Iter: st.it, X: st.x, W: st.w, SatisfiesEq2: true})
	return false, nil
}

// exchange counts the infeasible rows of the face solution (ninf, the
// largest in last), sets next to the block exchange of them all, measures
// the true residual in regularized mode, and keeps the iterate as the
// best one if it has no more infeasibilities than the best so far, else
// as the best one's successor if a block pivot from it led here.
func (st *bppSolve) exchange() {
	p, x, w, xtol, wtol := st.p, st.x, st.w, st.xtol, st.wtol
	st.ninf, st.last, st.trueRes = 0, -1, 0
	light := 0 // infeasible rows at a bound whose violation is within regWtol
	for i := 0; i < st.n; i++ {
		v := st.state[i]
		nv := v
		wi := w[i]
		if st.reg {
			// The regularized problem's w: A x + b + εD(x − x̄); the true
			// residual is the largest |w_F| or bound violation of w.
			wi += SemidefiniteShift * st.diag[i] * (x[i] - st.xprox[i])
			switch {
			case v == Free:
				st.trueRes = max(st.trueRes, math.Abs(w[i]))
			case v == AtLower && p.Lo[i] != p.Hi[i]:
				st.trueRes = max(st.trueRes, -w[i])
			case v == AtUpper && p.Lo[i] != p.Hi[i]:
				st.trueRes = max(st.trueRes, w[i])
			}
		}
		switch v {
		case Free:
			if x[i] < p.Lo[i]-xtol[i] {
				nv = AtLower
			} else if x[i] > p.Hi[i]+xtol[i] {
				nv = AtUpper
			}
		case AtLower:
			if wi < -wtol && p.Lo[i] != p.Hi[i] {
				nv = Free
				if wi >= -st.regWtol {
					light++
				}
			}
		case AtUpper:
			if wi > wtol && p.Lo[i] != p.Hi[i] {
				nv = Free
				if wi <= st.regWtol {
					light++
				}
			}
		}
		st.next[i] = nv
		if nv != v {
			st.ninf++
			st.last = i
		}
	}
	if st.ninf > 0 && st.ninf == light && st.holdLight() && st.trueRes <= st.regWtol {
		// The true MLCP is solved to regWtol: keep the light rows at
		// their bounds (see BPP).
		copy(st.next, st.state)
		st.ninf, st.last = 0, -1
	}
	if st.keptInf < 0 || st.ninf <= st.keptInf {
		st.keptInf = st.ninf
		copy(st.bestX, x)
		copy(st.bestW, w)
		copy(st.bestState, st.state)
		st.bestIt, st.succOK = st.it, false
	} else if st.fromBest {
		copy(st.succX, x)
		copy(st.succState, st.state)
		st.succOK = true
	}
	st.fromBest = false
}

// holdLight reports whether an iterate whose only infeasible rows are at
// a bound, each violating it by at most regWtol, ends the solve when its
// true residual is within regWtol: in a solve told its first face is
// singular (Settings.Semidefinite), in regularized mode, not damped (see
// BPP).
func (st *bppSolve) holdLight() bool {
	return st.reg && st.set.Semidefinite && !st.damped && !st.strictHold
}

// proxTol is the true residual to which the proximal moves go on: the
// problem's own tolerance in damped mode, else regWtol.
func (st *bppSolve) proxTol() float64 {
	if st.damped {
		return st.wtol
	}
	return st.regWtol
}

// proximalMove is regularized mode's step once the regularized problem is
// solved but the true one is not: it moves the proximal centre x̄ to x and
// goes on from the same index sets, counting n̄ and the failed block pivots
// afresh for the moved problem, or, when the true residual has not
// shrunk by 10 % in proxStall moves, ends the solve (stalled). In damped
// mode, whose moves go on below regWtol, a move that finds the residual
// within regWtol but not below half the last cut one ends it too.
func (st *bppSolve) proximalMove() (bool, error) {
	if st.damped && st.trueRes <= st.regWtol && st.trueRes > 0.5*st.proxRes {
		return true, st.stalled()
	}
	if st.trueRes < 0.9*st.proxRes {
		st.proxRes, st.proxStay = st.trueRes, 0
	} else if st.proxStay++; st.proxStay >= proxStall {
		return true, st.stalled()
	}
	copy(st.xprox, st.x)
	st.bestInf, st.fails = st.n+1, 0
	st.succOK = false // a face solution of the last problem
	if st.damped {
		st.startDamped(st.x) // a new regularized problem: restart the line search there
	}
	return false, nil
}

// The Reasons of a stalled solve that converged: constants, so that a
// time stepper's resting steps, which end so every step, allocate nothing.
const (
	reasonSolved     = "semidefinite block solved to the regularized tolerance"
	reasonConsistent = "semidefinite block consistent to proxAccept of the velocity scale"
)

// stalled ends a solve whose proximal moves stopped cutting the true
// residual: converged if it is below regWtol, or below proxAccept of the
// velocity scale (equations consistent only to that level, as redundant
// rigid rows closing a loop carry their position errors φ/h into the null
// space of A), else failed with ErrSingular.
func (st *bppSolve) stalled() error {
	switch {
	case st.trueRes <= st.regWtol:
		return st.finish(Converged, reasonSolved)
	case st.trueRes <= proxAccept*st.sw:
		return st.finish(Converged, reasonConsistent)
	}
	st.finishBest()
	st.dst.Status = Failed
	err := fmt.Errorf("semidefinite free block: the equations are inconsistent (residual %.3g m/s stays after %d proximal steps): %w", st.trueRes, st.proxStay, ErrSingular)
	st.dst.Reason = err.Error()
	return err
}

// finish ends the solve at the current iterate with status and reason.
func (st *bppSolve) finish(status Status, reason string) error {
	copy(st.dst.States, st.state)
	// The iterate's w is ResidualKKT's bits for x when kktFace computed it
	// in body space (the same rule, Cheaper, and the same factors).
	st.dst.BodyW = st.wBody && st.p.KKTAssembled
	st.dst.Status, st.dst.Reason = status, reason
	return nil
}

// pivot chooses the next index sets from an infeasible face solution:
// damped steps in damped mode; else a block pivot while they reduce the
// infeasibilities or have failed to fewer than maxFail times in a row
// (see blockPivot for what counts as a failure);
// else a single pivot, until single pivots have crawled maxSingles times
// on a symmetric problem or one in regularized mode and the damped mode
// starts. A problem in regularized mode, solved without a budget, starts
// the damped mode at once instead of single pivots (see BPP).
func (st *bppSolve) pivot() {
	switch {
	case st.damped:
		st.dampedSteps(st.x)
		st.dst.Pivots += st.ninf
	case st.ninf < st.bestInf || st.fails < st.maxFail:
		st.blockPivot()
	case (st.symmetric || st.reg) && (st.singles >= maxSingles || st.reg && st.set.MaxIterations <= 0):
		st.damped = true
		st.enterDamped()
		st.dst.Pivots += st.ninf
	default:
		st.singlePivot()
	}
	for i := 0; i < st.n; i++ {
		st.state[i] = fixState(st.state[i], st.p.Lo[i], st.p.Hi[i])
	}
}

// blockPivot exchanges every infeasible row at once, and counts it as a
// failure when it does not reduce n̄, or, in regularized mode without a
// budget once one has failed, when it reduces n̄ by less than half (see
// BPP: there block pivots cycle through new least counts, and the damped
// mode follows).
func (st *bppSolve) blockPivot() {
	switch {
	case st.ninf >= st.bestInf:
		st.fails++
	case st.fails > 0 && 2*st.ninf > st.bestInf && st.reg && st.set.MaxIterations <= 0:
		st.bestInf = st.ninf
		st.fails++
	default:
		st.bestInf, st.fails = st.ninf, 0
	}
	st.dst.Pivots += st.ninf
	st.fromBest = st.it == st.bestIt
	copy(st.state, st.next)
}

// singlePivot exchanges the infeasible row of largest index only.
func (st *bppSolve) singlePivot() {
	st.state[st.last] = st.next[st.last]
	st.dst.Pivots++
	st.singles++
}

// maxSingles is how many single pivots a symmetric solve, or one in
// regularized mode, makes before it enters damped mode (see BPP).
const maxSingles = 50

// startDamped enters damped mode at x (see BPP): the natural residual's
// index sets at x choose the first face.
func (st *bppSolve) startDamped(x []float64) {
	n := len(x)
	st.dmX = grow(st.dmX, n)
	st.dmT = grow(st.dmT, n)
	st.dmW = grow(st.dmW, n)
	st.dmWX = grow(st.dmWX, n)
	st.dmWF = grow(st.dmWF, n)
	copy(st.dmX, x)
	st.dmTheta = st.merit(st.dmX)
	st.dampedSets()
}

// enterDamped starts the damped mode at the kept best iterate (see BPP).
// When the natural residual there chooses a face already solved, that of
// the iterate in hand or of the best one's successor (the block pivot from
// it), the first damped steps go towards that face's solution at once, as
// dampedSteps takes them, without solving the face again: a face's
// solution depends on its index sets alone.
func (st *bppSolve) enterDamped() {
	st.face = growStates(st.face, st.n)
	copy(st.face, st.state) // the face of x, the iterate in hand
	st.startDamped(st.bestX)
	switch {
	case st.sameFace():
		st.dampedSteps(st.x)
	case st.succOK && st.sameStates(st.succState):
		st.dampedSteps(st.succX)
	}
}

// dampedStep moves the damped point towards xf, the Newton point (the
// solution on the face its index sets chose), by an Armijo line search on
// the merit θ(x) = ½‖x − P(x − w)‖² of the natural residual (the first of
// α = 1, ½, …, 2⁻²⁰ with θ(x + α(xf − x)) ≤ (1 − 2σα) θ(x), σ = 1e-4; a
// step of 2⁻²⁰ is taken when none is), and sets the next face from the
// natural residual there: a semismooth Newton method on min(x − l,
// max(x − u, w)) with the face solves of block pivoting as its Newton
// steps.
//
// A trial point's w is interpolated, w(x + α(xf − x)) = w(x) + α(w(xf) −
// w(x)) from the products at the damped point and at xf (A is linear), so a
// trial costs O(n) instead of a product with A (trialMerit); the accepted point's w and
// merit are then computed afresh, A x + b as merit computes them, so the
// damped point, its merit and the next face are those of the exact
// products, and only a trial whose merit is within rounding of the Armijo
// bound may be decided the other way.
func (st *bppSolve) dampedStep(xf []float64) {
	dx, dw := st.dmT, st.dmW // the step xf − x and its w's
	for i := range dx {
		dx[i] = xf[i] - st.dmX[i]
		dw[i] = st.dmWF[i] - st.dmWX[i]
	}
	a := 1.0
	for ; a > 1.0/(1<<20); a /= 2 {
		if st.trialMerit(a) <= (1-2e-4*a)*st.dmTheta {
			break
		}
	}
	for i, d := range dx {
		st.dmX[i] += a * d
	}
	st.dmTheta = st.merit(st.dmX)
	st.dampedSets()
}

// trialMerit is merit at the trial point x + α(xf − x) of dampedStep, with
// the step in dmT and its w's in dmW, from the interpolated w; it writes
// nothing.
func (st *bppSolve) trialMerit(a float64) float64 {
	xs := st.dmX
	n := len(xs)
	dx, dw, wx, lo, hi := st.dmT[:n], st.dmW[:n], st.dmWX[:n], st.p.Lo[:n], st.p.Hi[:n]
	th := 0.0
	if st.reg {
		d, xp := st.diag[:n], st.xprox[:n]
		for i, x := range xs {
			v := x + a*dx[i]
			wv := wx[i] + a*dw[i]
			wv += SemidefiniteShift * d[i] * (v - xp[i])
			r := v - min(max(v-wv, lo[i]), hi[i]) // math.Min and math.Max's rules, inline
			th += 0.5 * r * r
		}
		return th
	}
	for i, x := range xs {
		v := x + a*dx[i]
		wv := wx[i] + a*dw[i]
		r := v - min(max(v-wv, lo[i]), hi[i])
		th += 0.5 * r * r
	}
	return th
}

// dampedSteps takes damped steps towards the face solution xf, that of
// the index sets, until the natural residual's index sets leave its face,
// at most maxDampedRepeat times. A face's solution depends on its index sets alone, so a step whose
// next face is the one just solved would be followed by the same solution
// again: those steps are taken here from the solution in hand, with no face
// solve (an iteration) in between, and the damped point moves exactly as it
// would with them.
func (st *bppSolve) dampedSteps(xf []float64) {
	st.face = growStates(st.face, st.n)
	copy(st.face, st.state)
	st.p.Residual(st.dmWF, xf) // the Newton point's w, for every step from it
	for k := 0; ; k++ {
		st.dampedStep(xf)
		if k+1 >= st.repeats() || !st.sameFace() {
			return
		}
	}
}

// sameFace reports whether the index sets (as fixState maps them) are
// those of face, the face last solved.
func (st *bppSolve) sameFace() bool { return st.sameStates(st.face) }

// sameStates reports whether the index sets (as fixState maps them) are
// face.
func (st *bppSolve) sameStates(face []State) bool {
	p := st.p
	for i, v := range st.state {
		if fixState(v, p.Lo[i], p.Hi[i]) != face[i] {
			return false
		}
	}
	return true
}

// maxDampedRepeat is the most damped steps taken from one face solution
// (dampedSteps): each costs a product with A, against a factorization
// update and solve for a face solve.
const maxDampedRepeat = 64

// repeats returns the most damped steps from one face solution: BPP's
// dampedRepeat (tests set 1, a face solve after every step) or
// maxDampedRepeat.
func (s *BPP) repeats() int {
	if s.dampedRepeat > 0 {
		return s.dampedRepeat
	}
	return maxDampedRepeat
}

// merit returns ½‖x − P(x − w)‖² at x, w = A x + b (plus the proximal term
// in regularized mode), and leaves w in dmW and A x + b in dmWX.
func (st *bppSolve) merit(x []float64) float64 {
	st.p.Residual(st.dmWX, x)
	copy(st.dmW, st.dmWX)
	return st.meritAt(x)
}

// meritAt is merit at x with A x + b already in dmW, to which it adds the
// proximal term in regularized mode.
func (st *bppSolve) meritAt(x []float64) float64 {
	p := st.p
	th := 0.0
	for i, v := range x {
		if st.reg {
			st.dmW[i] += SemidefiniteShift * st.diag[i] * (v - st.xprox[i])
		}
		r := v - min(max(v-st.dmW[i], p.Lo[i]), p.Hi[i]) // math.Min and math.Max's rules, inline
		th += 0.5 * r * r
	}
	return th
}

// dampedSets sets the index sets from the natural residual at the damped
// point (w in dmW): at a bound where x − w lies beyond it, else free.
func (st *bppSolve) dampedSets() {
	p := st.p
	for i, v := range st.dmX {
		t := v - st.dmW[i]
		switch {
		case t <= p.Lo[i]:
			st.state[i] = AtLower
		case t >= p.Hi[i]:
			st.state[i] = AtUpper
		default:
			st.state[i] = Free
		}
	}
}

// finishBest copies the kept best iterate into dst; before any iterate was
// solved it leaves x at the fixed values (free rows 0) with w = A x + b.
func (st *bppSolve) finishBest() {
	s, dst, p := st.BPP, st.dst, st.p
	if st.keptInf < 0 {
		for i, v := range s.state {
			if v == Free {
				dst.X[i] = 0
			}
		}
		p.Residual(dst.W, dst.X)
		copy(dst.States, s.state)
		return
	}
	copy(dst.X, s.bestX)
	copy(dst.W, s.bestW)
	copy(dst.States, s.bestState)
}

// dropFactor forgets the Cholesky factor and the free order.
func (s *BPP) dropFactor() {
	s.free = s.free[:0]
	for i := range s.pos {
		s.pos[i] = -1
	}
	s.fac.m = 0
}

// solveFree brings the factor of A_FF in line with the free set in s.state,
// solves for x_F and sets w = A x + b. On entry x holds the fixed values and
// zeros for free rows. sw is the velocity scale of the problem.
func (s *BPP) solveFree(p *Problem, x, w []float64, symmetric bool, sw float64) error {
	faceResidual(p, w, x) // w_F = b_F + A_F,fixed x_fixed: minus the right-hand side
	if symmetric {
		for attempt := 0; attempt < 3; attempt++ {
			if attempt > 0 {
				// attempt 1: the updated factor drifted, or a pivot was at
				// rounding level; refactor from scratch, with the shift if
				// a pivot failed. attempt 2: shifted, from scratch.
				s.dropFactor()
				for i, v := range s.state {
					if v == Free {
						x[i] = 0
					}
				}
				p.Residual(w, x)
			}
			if !s.updateFactor(p) {
				if !s.reg {
					s.enterRegularized(x)
					continue
				}
				break
			}
			m := len(s.free)
			xf := s.xf[:m]
			for k, i := range s.free {
				xf[k] = -w[i] + s.rhsShift(i)
			}
			s.fac.solve(xf)
			for k, i := range s.free {
				x[i] = xf[k]
			}
			p.Residual(w, x)
			if s.reg {
				return nil // the shifted block is solved exactly
			}
			// A fresh factor is accepted as it is; an updated one must
			// leave w_F at rounding level.
			ok := true
			for _, i := range s.free {
				if !(math.Abs(w[i]) <= 1e-8*sw) {
					ok = false
					break
				}
			}
			if ok || attempt > 0 {
				return nil
			}
		}
		// Not positive (semi)definite: solve with LU instead.
		s.dropFactor()
		for i, v := range s.state {
			if v == Free {
				x[i] = 0
			}
		}
		p.Residual(w, x)
		return s.solveLU(p, x, w, false)
	}
	err := s.solveLU(p, x, w, s.reg)
	if err != nil && !s.reg && errors.Is(err, ErrSingular) {
		// A singular face of a non-symmetric A (a gyroscopic body's
		// response makes the stepper's A so; its redundant contact rows
		// make A_FF singular as they do a symmetric one): the regularized
		// problem's face, A_FF + εD_FF, is nonsingular where A is monotone
		// (see BPP).
		s.enterRegularized(x)
		p.Residual(w, x)
		err = s.solveLU(p, x, w, true)
	}
	return err
}

// faceResidual sets w = A x + b, as Problem.Residual, for the x of a face
// before its solve (the fixed rows at their bounds, the free rows 0): when
// every x_j is 0 and A is a *Dense, without the product. Dense.MulVecTo
// sums from +0 and a finite a_ij times ±0 is ±0, so (A x)_i is +0 and w_i
// is b_i + 0 with the same bits (−0 + 0 = +0); A is finite (Validate).
func faceResidual(p *Problem, w, x []float64) {
	if _, ok := p.A.(*Dense); !ok || !allZero(x) {
		p.Residual(w, x)
		return
	}
	w = w[:len(p.B)]
	for i, bi := range p.B {
		w[i] = bi + 0
	}
}

// allZero reports whether every entry of x is ±0.
func allZero(x []float64) bool {
	for _, v := range x {
		if v != 0 {
			return false
		}
	}
	return true
}

// SemidefiniteShift is the relative regularization ε with which BPP
// solves a problem whose free blocks turn out positive semidefinite (see
// BPP).
const SemidefiniteShift = 1e-6

// enterRegularized switches the solve to A + εD with the proximal centre
// x̄ = Settings.Reference, or 0 without one (the factor is rebuilt
// shifted).
func (s *BPP) enterRegularized(x []float64) {
	s.reg, s.semidefinite = true, true
	s.succOK = false // a face solution of the unshifted problem
	s.fac.shift = SemidefiniteShift
	s.sfac.shift = SemidefiniteShift
	if s.ref != nil {
		copy(s.xprox, s.ref)
	} else {
		clear(s.xprox)
	}
	s.proxRes, s.proxStay = math.Inf(1), 0
	s.dropFactor()
	for i, v := range s.state {
		if v == Free {
			x[i] = 0
		}
	}
}

// semidefiniteInherit is how many warm-started solves in a row start in
// regularized mode because an earlier one needed it, before one tests the
// unshifted block again (see BPP): a time stepper on a resting pile pays a
// failed factorization once in that many solves (on the body-space path of
// a large K̃, a failed refinement with the regularized factor: see
// kktLDL.solve), and a problem that turns
// positive definite leaves the regularization within that many solves.
const semidefiniteInherit = 8

// proxAccept is the residual, relative to the velocity scale max|b|, up to
// which BPP accepts a stalled proximal solve as converged (see BPP).
const proxAccept = 1e-4

// proxStall is how many proximal moves in a row may fail to cut the true
// residual by 10 % before BPP calls it stalled (see BPP).
const proxStall = 3

// regTol is the tolerance, relative to the velocity scale max|b|, to which
// BPP solves a semidefinite problem (see BPP): the regularized solution's
// own residual, ε a_ii |x − x̄|, is of that order, so a consistent problem
// usually needs no proximal move at all.
const regTol = 1e-6

// rhsShift returns ε a_ii x̄_i, the proximal term of row i's right-hand side
// in regularized mode, or 0.
func (s *BPP) rhsShift(i int) float64 {
	if !s.reg {
		return 0
	}
	return SemidefiniteShift * s.diag[i] * s.xprox[i]
}

// solveSparse solves the free block of a *Sparse A with the sparse LDLᵀ and
// sets w = A x + b. On entry x holds the fixed values and zeros for free rows.
func (s *BPP) solveSparse(p *Problem, a *Sparse, x, w []float64) error {
	// w_F = b_F + A_F,fixed x_fixed: minus the right-hand side, in body
	// space on the KKT path (O(n), not O(nnz A)); the iterate's w after a
	// KKT face solve, see kktLDL.iterateW.
	if s.kktOn(p, a) {
		s.kkt.mulAdd(w, x, p.B)
	} else {
		p.Residual(w, x)
	}
	for {
		done, err := s.trySparse(p, a, x, w)
		if done || err != nil {
			return err
		}
		// The stale factor of an earlier A did not refine to this one's
		// solution: refactor.
		s.sfac.valid = false
	}
}

// trySparse is one attempt of solveSparse: false if a stale factor failed
// to refine (x unchanged).
func (s *BPP) trySparse(p *Problem, a *Sparse, x, w []float64) (bool, error) {
	if s.kktFace(p, a, x, w) {
		return true, nil
	}
	if !s.reg && (s.kkt.skipDual(a, &s.sfac) || s.kkt.singular(p, s.state)) {
		// A face the body-space solve could not refine, whose dual
		// factorization is too dear to find its rounding-level pivot, or
		// that is singular by its structure: taken for semidefinite (see
		// BPP).
		s.enterRegularized(x)
		if s.kktFace(p, a, x, w) {
			return true, nil
		}
	}
	ok := s.sfac.factor(a, s.state)
	if !ok && !s.reg {
		// A pivot at rounding level: a semidefinite block (see BPP).
		s.enterRegularized(x)
		if s.kktFace(p, a, x, w) {
			return true, nil
		}
		ok = s.sfac.factor(a, s.state)
	}
	if !ok {
		m := len(s.sfac.free)
		limit := s.MaxDenseFallback
		if limit <= 0 {
			limit = 2000
		}
		if m <= limit {
			return true, s.solveLU(p, x, w, false)
		}
		return true, fmt.Errorf("free block of %d rows is not positive definite (the sparse LDLᵀ failed at row %d) and exceeds the %d rows of the dense LU fallback: %w",
			m, s.sfac.free[s.sfac.failed], limit, ErrSingular)
	}
	free := s.sfac.free
	xf := s.xf[:len(free)]
	for k, i := range free {
		xf[k] = -w[i] + s.rhsShift(int(i))
	}
	if !s.sfac.solve(xf) {
		return false, nil
	}
	for k, i := range free {
		x[i] = xf[k]
	}
	p.Residual(w, x)
	return true, nil
}

// kktFace solves the face through p.KKT (see kktLDL) when it is set and
// its factorization is the cheaper (or kktPath forces it), setting x_F and
// w = A x + b (see kktLDL.iterateW); it reports false, x and w unchanged,
// when the dual factorization is to solve the face. On entry x holds the
// fixed values and zeros for free rows, w = A x + b.
func (s *BPP) kktFace(p *Problem, a *Sparse, x, w []float64) bool {
	if !s.kktOn(p, a) {
		return false
	}
	g := &s.kkt
	if !s.reg && g.keepsShifted() && p.RedundantRigid(s.state) {
		// The unshifted face is singular by its structure: the kept
		// regularized factor would not refine to it (see kktLDL.solve).
		g.giveUp()
		return false
	}
	r := s.rhs[:len(s.state)]
	for i, v := range s.state {
		if v == Free {
			r[i] = -w[i] + s.rhsShift(i)
		}
	}
	if !g.solve(s.state, r, x) {
		return false
	}
	body := g.iterateW(p, a, x, w)
	// The face's residual, −w_F less the proximal term, is at rounding
	// level after a converged refinement; a larger one hands this face and
	// the rest of the Solve to the dual factorization.
	for i, v := range s.state {
		if v != Free {
			continue
		}
		e := w[i] - s.rhsShift(i)
		if s.reg {
			e += SemidefiniteShift * s.diag[i] * x[i]
		}
		if !(math.Abs(e) <= kktCheck*g.sw) {
			return s.kktMismatch(p, x, w)
		}
	}
	s.wBody = body
	return true
}

// kktCheck is the face residual, relative to the velocity scale max|b|,
// above which a KKT face solution is rejected (the bound solveFree puts on
// an updated dense factor), and the relative difference between A z and
// its body-space product above which a KKT is taken not to describe A.
const kktCheck = 1e-8

// kktMismatch undoes a KKT face solution whose residual is not at
// rounding level (x_F back to 0, w = A x + b), stops the KKT path for the
// rest of the Solve, and reports false.
func (s *BPP) kktMismatch(p *Problem, x, w []float64) bool {
	for i, v := range s.state {
		if v == Free {
			x[i] = 0
		}
	}
	p.Residual(w, x)
	s.kkt.mismatch = true
	s.kkt.fallbacks++
	return false
}

// kktOn reports whether the face solves of a go through p.KKT (see
// kktLDL): it is set and describes A as far as this Solve has seen, and its
// factorization is the cheaper one or kktPath forces it. It builds K̃ for
// the current shift.
func (s *BPP) kktOn(p *Problem, a *Sparse) bool {
	g := &s.kkt
	if p.KKT == nil || s.kktPath == kktOff || g.mismatch {
		return false
	}
	if !g.built || g.src != p.KKT || g.shift != s.sfac.shift {
		g.build(p.KKT, s.diag, s.sfac.shift)
	}
	if !(s.kktPath == kktForce || g.choose(a, &s.sfac)) {
		return false
	}
	if !g.verified {
		// Once per Solve: KKT describes A, unless it was assembled from it.
		g.verified = true
		if !p.KKTAssembled && !g.describes(a) {
			g.mismatch = true
			g.fallbacks++
			return false
		}
	}
	return true
}

// The paths of a *Sparse A's face solves with a Problem.KKT (BPP.kktPath):
// chosen by flops, always the KKT (falling back to the dual when it does
// not refine), never.
const (
	kktAuto int8 = iota
	kktForce
	kktOff
)

// updateFactor makes s.fac the Cholesky factor of A_FF for the free set in
// s.state, by deleting and appending indices or by refactoring, whichever is
// cheaper. It reports false if A_FF is not numerically positive definite.
func (s *BPP) updateFactor(p *Problem) bool {
	m := len(s.free)
	removed, added, kept := 0, 0, 0
	for _, i := range s.free {
		if s.state[i] != Free {
			removed++
		} else {
			kept++
		}
	}
	for i, v := range s.state {
		if v == Free && s.pos[i] < 0 {
			added++
		}
	}
	// An update costs about (removed + added)·m² flops, a refactor m'³/3.
	mNew := kept + added
	if m == 0 || 3*(removed+added)*m > mNew*mNew {
		s.dropFactor()
	} else if removed > 0 {
		// Delete from the end so positions stay valid.
		for k := m - 1; k >= 0; k-- {
			i := s.free[k]
			if s.state[i] != Free {
				s.fac.deleteIndex(k)
				copy(s.free[k:], s.free[k+1:])
				s.free = s.free[:len(s.free)-1]
				s.pos[i] = -1
			}
		}
		for k, i := range s.free {
			s.pos[i] = k
		}
	}
	d, _ := p.A.(*Dense)
	for i, v := range s.state {
		if v != Free || s.pos[i] >= 0 {
			continue
		}
		a := s.rhs[:len(s.free)]
		var aii float64
		if d != nil {
			// A dense block's row read in place: the same entries as At,
			// without an interface call per entry.
			row := d.data[i*d.c:][:d.c]
			for k, j := range s.free {
				a[k] = row[j]
			}
			aii = row[i]
		} else {
			for k, j := range s.free {
				a[k] = p.A.At(i, j)
			}
			aii = p.A.At(i, i)
		}
		if !s.fac.appendIndex(a, aii) {
			return false
		}
		s.pos[i] = len(s.free)
		s.free = append(s.free, i)
	}
	return true
}

// solveLU solves the free block with an LU factorization (non-symmetric or
// indefinite blocks); with shift, that of the regularized problem (see
// BPP), A_FF + εD_FF and the proximal term on the right. The LU that
// stands in for a failed Cholesky or sparse LDLᵀ of a symmetric block
// solves the unshifted block even in regularized mode.
func (s *BPP) solveLU(p *Problem, x, w []float64, shift bool) error {
	free := s.free[:0]
	for i, v := range s.state {
		if v == Free {
			free = append(free, i)
		}
	}
	s.free = free
	m := len(free)
	if m == 0 {
		return nil
	}
	s.blk.Reset()
	s.blk.ReuseAs(m, m) // zeroed
	blk := &s.blk
	if a, ok := p.A.(*Sparse); ok {
		a.ensure() // values put off by Defer
		for r, i := range free {
			s.pos[i] = r
		}
		for r, i := range free {
			cols, vals := a.row(i)
			for k, j := range cols {
				// Inside the block j is free; s.pos is −1 elsewhere.
				if c := s.pos[j]; c >= 0 {
					blk.Set(r, c, vals[k])
				}
			}
		}
		for _, i := range free {
			s.pos[i] = -1
		}
	} else {
		for r, i := range free {
			for c, j := range free {
				blk.Set(r, c, p.A.At(i, j))
			}
		}
	}
	if shift {
		// The regularized problem's face (see BPP), as chol.shift factors it.
		for r, i := range free {
			blk.Set(r, r, blk.At(r, r)+SemidefiniteShift*s.diag[i])
		}
	}
	s.lu.Factorize(blk)
	if cond := s.lu.Cond(); !(cond < 1e14) {
		// Reset so the next call rebuilds the Cholesky path from scratch.
		s.dropFactor()
		return fmt.Errorf("free block of %d rows has condition number %.3g: %w", m, cond, ErrSingular)
	}
	s.luRHS.Reset()
	s.luRHS.ReuseAsVec(m)
	rhs := &s.luRHS
	for r, i := range free {
		v := -w[i]
		if shift {
			v += s.rhsShift(i)
		}
		rhs.SetVec(r, v)
	}
	sol := &s.luSol
	sol.Reset()
	if err := s.lu.SolveVecTo(sol, false, rhs); err != nil {
		s.dropFactor()
		return fmt.Errorf("free block of %d rows: %v: %w", m, err, ErrSingular)
	}
	for r, i := range free {
		x[i] = sol.AtVec(r)
	}
	p.Residual(w, x)
	// The LU path keeps no Cholesky factor.
	s.dropFactor()
	return nil
}
