// Package sweep runs parameter sweeps and calibrations of gorigid scenes
// against measured trajectories, after §4 of Lu, Williams, Trinkle and
// Lacoursière, "A framework for problem standardization and algorithm
// comparison in multibody system" (ASME IDETC 2014): every combination of
// parameter values (a grid or a Latin hypercube) × measured experiment ×
// solver is one Job, scored by the experiment's term of their Eq. (18),
//
//	E = (1/M) Σⱼ (1/Nⱼ) Σₗ ‖qⱼˡ − q̄ⱼˡ‖²,
//
// with q = (x, y, ρθ) the compared body's planar pose (ρ in m/rad weighs
// the angle about z). Calibrate runs the paper's procedure per solver:
// the grid, a CMA-ES search from the best samples, a confidence region
// and the prediction of a held-out experiment.
//
// Jobs run through a NATS JetStream work queue: an embedded server
// (StartEmbedded, on 127.0.0.1) with in-process workers by default, or
// any NATS server or cluster with JetStream (StartServer runs one, with
// authentication and clustering; Auth is the clients' side) and Worker
// processes on other machines. Delivery is at least once and results are
// idempotent: each result is keyed by its job id, so a redelivered or
// republished job never counts twice; a worker killed mid-job is replaced
// after the ack wait, while a running job reports progress so that it is
// not; a coordinator restarted on the same output directory resumes
// (Session), and one that gets no result for its republication deadline
// publishes the missing jobs again (RepublishAfter). Each job runs within
// Limits (steps, bodies, rows, wall-clock) and stops within a step when
// its context ends (RunContext); a job over a limit or that
// cannot run is refused and recorded failed at once, a job that fails is
// recorded failed at once, and a job started MaxAttempts times or
// delivered MaxDeliveries times without a result (a poison job, which
// kills its workers) is recorded failed and never delivered again.
// Clients reconnect to a lost server with backoff and give up after a
// window; every request of a worker or a coordinator has its own bound
// (a request sent to a node that shuts down is never answered): a
// worker hands its job back, retries its set-up or fetches again, and a
// coordinator publishes an unacknowledged job again under the same
// message id. Every job carries the hash of its scene file and of the
// coordinator's build, and a worker hands a job of another build or
// scene code back for another worker.
//
// Measured trajectories are trajectory CSV files (ReadTrajectory), as
// `sim run --out FILE.csv` writes them: any tool's output in that format
// can be used.
//
// References:
//   - Lu, Y., Williams, J., Trinkle, J. C. and Lacoursière, C. (2014), "A Framework for Problem Standardization and Algorithm Comparison in Multibody System", Proc. ASME IDETC/CIE, DETC2014-35041.
package sweep
