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
// other. A task writes only into its own part of the stage's state (an
// island's slot, a chunk's buffer, its own rows), and the stage merges the
// tasks' results in task order, so which worker runs a task, and when,
// changes no bit of any result: a step gives the same bits for any
// GOMAXPROCS.
//
// Worker 0 is the caller of do (Step's goroutine). The helpers are
// goroutines that outlive a job: after their last task they wait for the
// next job for up to poolLinger, checking the job counter, and exit when
// none came; a job that finds fewer helpers alive than it may use starts the
// missing ones (the runtime reuses exited goroutines). Jobs that follow
// each other closely find their helpers running and taking tasks at once,
// where a goroutine started for the job first waits for the scheduler to
// give it a processor. do returns when every task has finished, not when
// every helper has seen the job: a helper that comes late finds nothing
// to take, and the caller does not wait for it. The
// closures are made once per helper and a stage's task function once, so
// a steady step allocates nothing. Jobs do not nest, and one pool serves
// one goroutine's Steps at a time (a World is not safe for concurrent
// use).
type workPool struct {
	task func(k int) // the current job's; read only by the holder of a claimed task
	run  []func()    // run[i] is helper i's loop; made once per helper
	// finished carries one token from the helper that finished a job's
	// last task to do, when that was not do's own task.
	finished chan struct{}
	_        [64]byte // job on cache lines of its own
	// job is the current job: its task count n in the high 32 bits and
	// the tasks handed out so far in the low 32. A claim is one Add: the
	// count it returns says which job and whether a task was left, so a
	// helper never reads a job's task function after the job ended.
	job  atomic.Uint64
	_    [56]byte
	done atomic.Int32 // tasks of the current job finished
	live atomic.Int32 // helpers running their loop
	// linger is how long the helpers wait for the next job (poolLinger),
	// 0 when the job's workers outnumber the machine's cores: a waiting
	// helper would then take a core from a worker with tasks.
	linger atomic.Int64
	_      [48]byte
}

// poolLinger is how long a helper waits for the next job after its last
// task before it exits, and how long do waits for a helper's last task
// before it blocks: long enough for the jobs that follow each other within
// a stage (the narrow phase and its copy, the energy model's two passes),
// short enough that a helper does not hold a core through the serial
// stretches between stages. Measured on the piles of PilesAwake in one
// process, GOMAXPROCS 2 on the 2-core machine under a load of 25–30: 7.6–
// 7.8 ms a step for 0 to 100 µs, 21 ms for 1 ms (a helper waiting through
// a serial stretch takes the core that the stepping goroutine's thread
// needs when the machine is shared).
const poolLinger = 50 * time.Microsecond

// workers returns the workers a job of n tasks gets: GOMAXPROCS, at most
// one per task.
func (p *workPool) workers(n int) int {
	return max(min(runtime.GOMAXPROCS(0), n), 1)
}

// do runs task(0), …, task(n−1) on p.workers(n) goroutines and returns
// when all are done; with one worker it runs them in order on the
// caller's goroutine.
func (p *workPool) do(n int, task func(k int)) {
	nw := p.workers(n)
	if nw <= 1 {
		for k := range n {
			task(k)
		}
		return
	}
	if p.finished == nil {
		p.finished = make(chan struct{}, 1)
	}
	p.task = task
	p.done.Store(0)
	p.job.Store(uint64(n) << 32) // publish: the helpers start taking tasks
	for len(p.run) < nw-1 {
		p.run = append(p.run, p.helper)
	}
	linger := time.Duration(0)
	if nw <= runtime.NumCPU() {
		linger = poolLinger
	}
	p.linger.Store(int64(linger))
	for live := int(p.live.Load()); live < nw-1; live++ {
		p.live.Add(1)
		go p.run[live]()
	}
	if !p.work() {
		p.wait()
	}
	p.task = nil
}

// work runs tasks of the current job, each the next one not yet taken,
// until none is left. It reports whether it finished the job's last
// task.
func (p *workPool) work() (last bool) {
	for {
		v := p.job.Add(1)
		n, k := int32(v>>32), int32(uint32(v))-1
		if k >= n {
			return last
		}
		p.task(int(k))
		last = p.done.Add(1) == n
	}
}

// wait returns when a helper has finished the current job's last task:
// it checks for the helper's token and blocks on it after poolLinger (a
// helper the operating system descheduled).
func (p *workPool) wait() {
	t0 := time.Now()
	for i := 0; ; i++ {
		select {
		case <-p.finished:
			return
		default:
		}
		if i%256 == 255 && time.Since(t0) > time.Duration(p.linger.Load()) {
			<-p.finished
			return
		}
	}
}

// helper is a helper's loop: it takes tasks while a job has some left and
// exits after poolLinger without one. Between jobs it only reads the job
// counter (a load of a cache line that changes once per job), on a
// processor the step's own goroutine does not use.
func (p *workPool) helper() {
	defer p.live.Add(-1)
	idle := time.Now()
	for i := 0; ; i++ {
		v := p.job.Load()
		if n := int32(v >> 32); int32(uint32(v)) < n {
			p.help()
			idle, i = time.Now(), 0
			continue
		}
		if i%1024 == 1023 && time.Since(idle) > time.Duration(p.linger.Load()) {
			return
		}
	}
}

// help is work for a helper: the token goes to do when it finishes the
// last task.
func (p *workPool) help() {
	for {
		v := p.job.Add(1)
		n, k := int32(v>>32), int32(uint32(v))-1
		if k >= n {
			return
		}
		p.task(int(k))
		if p.done.Add(1) == n {
			p.finished <- struct{}{}
		}
	}
}
