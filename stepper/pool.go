package stepper

import (
	"runtime"
	"sync/atomic"
	"time"
)

// workPool runs a step's parallel passes on up to GOMAXPROCS goroutines: the
// islands' solves (solveIslands), the narrow phase (narrowPhase), the
// contact rows (fillContactRows), and the passes over bodies, geoms or rows
// that World.forRange runs in chunks (Mass.Update, the geoms' boxes,
// Assemble's per-row terms, the energy model, integrate's per-body passes),
// each only above a measured size. A job is n tasks numbered 0…n−1, handed
// out one at a time, each to whichever worker is free next (an atomic
// counter): a worker that the operating system deschedules holds up no
// other. The caller takes its tasks from the front (0, 1, …) and the
// helpers theirs from the back (n−1, n−2, …), meeting wherever the work
// splits: the jobs over bodies, geoms, points and rows number their
// chunks in the same order, so on two workers each keeps, job after job,
// about the same end of the bodies and of their contacts and rows, which
// its core's cache holds from the job before, rather than each chunk
// going to either core. A task writes only into its own part of the
// stage's state (an island's slot, a chunk's buffer, its own rows), and
// the stage merges the tasks' results in task order, so which worker runs
// a task, and when, changes no bit of any result: a step gives the same
// bits for any GOMAXPROCS.
//
// Worker 0 is the caller of do (Step's goroutine). The helpers are
// goroutines that outlive a job: after their last task they watch the job
// counter for up to poolLinger, then park on a channel until the next job
// wakes them. Jobs that follow each other closely find their helpers
// running and taking tasks at once; a job after a longer serial stretch
// wakes parked helpers (a channel send each), and starts goroutines only
// up to the most helpers any job has used, so a steady step starts none
// and allocates nothing. do returns when every task has finished, not when
// every helper has seen the job: a helper that comes late finds nothing to
// take, and the caller does not wait for it. Jobs do not nest, and one pool
// serves one goroutine's Steps at a time (a World is not safe for
// concurrent use).
//
// The pool watches whether its helpers get cores of their own: over each
// window of poolWindow jobs that would run on several workers it compares
// the process's CPU time with the wall-clock time; a window in which one
// job starts more than poolGap after the last ended (the caller paused
// between steps, which its CPU time would not show) starts again from
// that job. When it got less than
// poolShare cores, the machine's other work holds the cores the helpers
// would use (their threads then only take turns with the caller's on one
// core's worth of time, and the hand-offs and cache traffic cost more than
// they bring: on the 2-core machine shared with one busy process, the
// awake piles' step took 1.15–1.20× as long on 2 workers as on 1), and
// the next poolProbe−1 windows run every job on the caller alone; the
// window after them runs on the helpers again and measures anew.
//
// The helpers hold only the pool's core (poolCore), never the pool or the
// World that contains it: when the World becomes unreachable, a cleanup
// (runtime.AddCleanup on the pool) closes the core's quit channel and the
// helpers exit, so a dropped World leaves no goroutine behind.
type workPool struct {
	c *poolCore // made by the first job with helpers
	// jobs counts the jobs of the current window that asked for helpers;
	// wall0 and cpu0 are the clocks at its start, when it measures, and
	// end the end of its last job.
	jobs       int
	wall0, end time.Time
	cpu0       time.Duration
	measuring  bool
	alone      int // windows left whose jobs run on the caller alone
	processCPU func() (time.Duration, bool)
	// trace, when set (by tests), is given each job before it runs: the
	// job runs with the task it returns, or not at all when that is nil
	// (the trace ran it).
	trace func(n int, task func(k int)) func(k int)
}

// poolWindow is how many jobs that ask for helpers make one window of the
// pool's measure of its share of the machine (workPool): on the awake
// piles a step runs 21 such jobs (BenchmarkPilesAwakeStretches, jobs), so a
// window is about 3 steps.
const poolWindow = 64

// poolGap is the longest time between one job's end and the next's start
// within a window that measures (workPool): a step's serial stretches
// between its jobs are a fraction of a millisecond on the awake piles.
const poolGap = 2 * time.Millisecond

// poolShare is the least cores (process CPU time over wall-clock time,
// helpers lingering included) over a window at which the pool keeps its
// helpers. Measured on the awake piles' steady step (BenchmarkPilesAwakeScaling)
// on the 2-core machine: while the machine's other process ran, a step on
// 2 workers got 1.00 (5.04 ms of CPU in 5.02 ms); on the idle machine a
// step took 4.07 ms on one worker and 2.68 ms on two, so its helper ran at
// least 1.4 ms a step beside the caller, 1.5 or more.
const poolShare = 1.1

// poolProbe is how many windows the pool runs alone, the measuring one
// included, after a window that got less than poolShare: under load one
// window in poolProbe pays for the helpers, and a machine that frees its
// cores gets them back within poolProbe windows.
const poolProbe = 8

// poolCore is what a workPool's helpers share with do.
type poolCore struct {
	task func(k int) // the current job's; read only by the holder of a claimed task
	// run is the helpers' loop (helper), made once so that starting a
	// helper allocates no closure.
	run func()
	// finished carries one token from the helper that finished a job's
	// last task to do, when that was not do's own task.
	finished chan struct{}
	// wake carries one token to a parked helper for each helper that do
	// takes off parked; quit is closed when the pool's World is dropped.
	wake, quit chan struct{}
	started    int      // helpers started; read and written by do only
	_          [64]byte // job on cache lines of its own
	// job is the current job: its task count n in the high 32 bits and
	// the tasks handed out so far in the low 32. A claim is one Add: the
	// count it returns says which job and whether a task was left, so a
	// helper never reads a job's task function after the job ended.
	job atomic.Uint64
	_   [56]byte
	// back is the tasks of the current job taken by the helpers, from
	// task n−1 down (help); the caller takes its own from task 0 up,
	// counting them itself (work). A claim on job comes first, so the two
	// never meet on a task.
	back atomic.Int32
	_    [60]byte
	done atomic.Int32 // tasks of the current job finished, by workers that found none left
	// parked counts the helpers that have parked, or are about to, and
	// have no wake token yet.
	parked atomic.Int32
	// linger is how long the helpers watch for the next job before they
	// park (poolLinger), 0 when the job's workers outnumber the machine's
	// cores: a watching helper would then take a core from a worker with
	// tasks.
	linger atomic.Int64
	_      [48]byte
}

// poolLinger is how long a helper watches for the next job after its last
// task before it parks, and how long do waits for a helper's last task
// before it blocks: long enough for the jobs that follow each other within
// a stage (the narrow phase and its copy, the energy model's two passes),
// short enough that a helper does not hold a core through the serial
// stretches between stages. Measured on the piles of PilesAwake in one
// process, GOMAXPROCS 2 on the 2-core machine under a load of 25–30: 7.6–
// 7.8 ms a step for 0 to 100 µs, 21 ms for 1 ms (a helper waiting through
// a serial stretch takes the core that the stepping goroutine's thread
// needs when the machine is shared). On the quiet machine
// (BenchmarkPilesAwakeScaling with GORIGID_POOL_ALWAYS, two runs each), a
// step on two workers took 2.58–2.61 ms at 0 µs (every job wakes parked
// helpers; ratio to one worker 0.81), 1.91 ms at 25 µs, 1.87 ms at 50 µs
// and 2.00–2.06 ms at 100 µs: the stretches between a step's jobs are
// under 25 µs (BenchmarkPilesAwakeStretches, longest-gap-ns).
const poolLinger = 50 * time.Microsecond

// maxHelpers bounds a pool's helpers (and the wake channel's tokens): a
// job runs on at most maxHelpers+1 workers.
const maxHelpers = 255

// workers returns the workers a job of n tasks gets: GOMAXPROCS, at most
// one per task and maxHelpers+1.
func (p *workPool) workers(n int) int {
	return max(min(runtime.GOMAXPROCS(0), n, maxHelpers+1), 1)
}

// do runs task(0), …, task(n−1) on p.workers(n) goroutines and returns
// when all are done; with one worker it runs them in order on the
// caller's goroutine.
func (p *workPool) do(n int, task func(k int)) {
	if p.trace != nil {
		if task = p.trace(n, task); task == nil {
			return
		}
	}
	nw := p.workers(n)
	if nw > 1 && p.share() {
		nw = 1
	}
	if nw <= 1 {
		for k := range n {
			task(k)
		}
		return
	}
	c := p.core()
	c.task = task
	c.done.Store(0)
	c.back.Store(0)
	c.job.Store(uint64(n) << 32) // publish: the running helpers start taking tasks
	linger := time.Duration(0)
	if nw <= runtime.NumCPU() {
		linger = poolLinger
	}
	c.linger.Store(int64(linger))
	// Wake parked helpers until nw−1 are running, then start the missing.
	// The running count is taken afresh each time (started − parked): a
	// helper started or woken here may park again before the loop ends,
	// and counting it once more per start or wake left a job with fewer
	// helpers than it asked for and a later job starting the rest (a
	// goroutine's allocation in a steady step).
	for {
		k := c.parked.Load()
		if c.started-int(k) >= nw-1 {
			break
		}
		if k == 0 { // then started < nw−1
			c.started++
			go c.run()
			continue
		}
		if c.parked.CompareAndSwap(k, k-1) {
			c.wake <- struct{}{}
		}
	}
	if !c.work() {
		c.wait()
	}
	c.task = nil
	if p.measuring {
		p.end = time.Now()
	}
}

// share counts a job that asks for helpers in the current window and
// reports whether it is to run on the caller alone (workPool): at a
// window's end it compares the window's process CPU time with its
// wall-clock time when the window measured, and when that is under
// poolShare the next poolProbe−1 windows run alone.
func (p *workPool) share() (alone bool) {
	if p.measuring && p.jobs > 0 && time.Since(p.end) > poolGap {
		p.jobs = 0 // a pause: the window starts again
	}
	if p.jobs == 0 { // a window starts
		if p.alone > 0 {
			p.alone--
		}
		p.measuring = false
		if p.alone == 0 {
			if p.processCPU == nil {
				p.processCPU = processCPU
			}
			p.cpu0, p.measuring = p.processCPU()
			p.wall0 = time.Now()
		}
	}
	alone = p.alone > 0
	p.jobs++
	if p.jobs == poolWindow {
		p.jobs = 0
		if p.measuring {
			cpu, ok := p.processCPU()
			wall := time.Since(p.wall0)
			if ok && wall > 0 && float64(cpu-p.cpu0) < poolShare*float64(wall) {
				p.alone = poolProbe
			}
		}
	}
	return alone
}

// core returns p's core, made on first use with the cleanup that stops
// its helpers when p is unreachable.
func (p *workPool) core() *poolCore {
	if p.c == nil {
		c := &poolCore{
			finished: make(chan struct{}, 1),
			wake:     make(chan struct{}, maxHelpers),
			quit:     make(chan struct{}),
		}
		c.run = c.helper
		runtime.AddCleanup(p, func(c *poolCore) { close(c.quit) }, c)
		p.c = c
	}
	return p.c
}

// work is the caller's part of the current job (do, its only caller):
// it runs tasks from the front, task 0 up, until none is left. It
// reports whether it finished the job's last task: each worker adds the
// tasks it ran to done once, when it finds none left (one shared write a
// worker, not one a task), and the one whose count completes n finished
// the job.
func (c *poolCore) work() (last bool) {
	ran := int32(0)
	for {
		v := c.job.Add(1)
		n, k := int32(v>>32), int32(uint32(v))-1
		if k >= n {
			return ran > 0 && c.done.Add(ran) == n
		}
		c.task(int(ran)) // the caller's tasks are 0, 1, … in the order it ran them
		ran++
	}
}

// wait returns when a helper has finished the current job's last task:
// it checks for the helper's token and blocks on it after poolLinger (a
// helper the operating system descheduled).
func (c *poolCore) wait() {
	t0 := time.Now()
	for i := 0; ; i++ {
		select {
		case <-c.finished:
			return
		default:
		}
		if i%256 == 255 && time.Since(t0) > time.Duration(c.linger.Load()) {
			<-c.finished
			return
		}
	}
}

// helper is a helper's loop: it takes tasks while a job has some left,
// parks after poolLinger without one until do wakes it, and returns when
// quit is closed. Between jobs it only reads the job counter (a load of a
// cache line that changes once per job), on a processor the step's own
// goroutine does not use.
func (c *poolCore) helper() {
	idle := time.Now()
	for i := 0; ; i++ {
		v := c.job.Load()
		if n := int32(v >> 32); int32(uint32(v)) < n {
			c.help()
			idle, i = time.Now(), 0
			continue
		}
		if i%1024 == 1023 && time.Since(idle) > time.Duration(c.linger.Load()) {
			c.parked.Add(1)
			select {
			case <-c.wake:
			case <-c.quit:
				return
			}
			idle, i = time.Now(), 0
		}
	}
}

// help is work for a helper: the token goes to do when it finishes the
// job (work).
func (c *poolCore) help() {
	ran := int32(0)
	for {
		v := c.job.Add(1)
		n, k := int32(v>>32), int32(uint32(v))-1
		if k >= n {
			if ran > 0 && c.done.Add(ran) == n {
				c.finished <- struct{}{}
			}
			return
		}
		c.task(int(n - c.back.Add(1)))
		ran++
	}
}
