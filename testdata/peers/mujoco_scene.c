/* mujoco_scene steps a MuJoCo model of free bodies (as pilegen -format mjcf
 * writes a gorigid scene) with mj_step for a number of steps and prints the
 * time per step, collision included: step 1, steady (median of the second
 * half of the steps) and mean, as process CPU time
 * (CLOCK_PROCESS_CPUTIME_ID) and as wall-clock time, then the largest
 * displacement of a body's centre from its start and the largest speed
 * after the last step. The model carries the scene's time step, gravity,
 * friction and solver (pilegen writes Newton).
 *
 *   go run ./testdata/peers/pilegen -format mjcf pyramid base=10 > pyramid55.xml
 *   cc -O2 -o mujoco_scene testdata/peers/mujoco_scene.c -lmujoco -lm
 *   ./mujoco_scene pyramid55.xml 120
 *
 * The output lines are those of ode_scene and gostep, which compare.sh
 * reads: "cpu_ms step1=… steady=… mean=…", "wall_ms …", and
 * "hold max_displacement_m=… max_speed_m_s=…".
 */
#include <mujoco/mujoco.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "steptime.h"

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: mujoco_scene MODEL.xml [STEPS]\n");
		return 1;
	}
	int steps = argc > 2 ? atoi(argv[2]) : 600;
	if (steps < 2) {
		fprintf(stderr, "mujoco_scene: STEPS must be ≥ 2, got %s\n", argv[2]);
		return 1;
	}
	char err[1000] = "";
	mjModel *m = mj_loadXML(argv[1], NULL, err, sizeof err);
	if (!m) {
		fprintf(stderr, "mujoco_scene: %s: %s\n", argv[1], err);
		return 1;
	}
	mjData *d = mj_makeData(m);
	if (!d) {
		fprintf(stderr, "mujoco_scene: %s: mj_makeData failed\n", argv[1]);
		return 1;
	}
	if (m->nkey > 0)
		mj_resetDataKeyframe(m, d, 0);
	mj_forward(m, d);
	int nb = m->nbody - 1; /* body 0 is the world */
	double *start = malloc(3 * nb * sizeof *start);
	for (int i = 0; i < 3 * nb; i++)
		start[i] = d->xpos[3 + i];
	double *cpu = malloc(steps * sizeof *cpu), *wall = malloc(steps * sizeof *wall);
	long iters = 0;
	int maxIters = 0, maxCon = 0, maxEfc = 0;
	for (int s = 0; s < steps; s++) {
		double c0 = clockms(CLOCK_PROCESS_CPUTIME_ID), w0 = clockms(CLOCK_MONOTONIC);
		mj_step(m, d);
		wall[s] = clockms(CLOCK_MONOTONIC) - w0;
		cpu[s] = clockms(CLOCK_PROCESS_CPUTIME_ID) - c0;
		iters += d->solver_iter;
		if (d->solver_iter > maxIters)
			maxIters = d->solver_iter;
		if (d->ncon > maxCon)
			maxCon = d->ncon;
		if (d->nefc > maxEfc)
			maxEfc = d->nefc;
	}
	double maxDisp = 0, maxV = 0;
	for (int i = 0; i < nb; i++) {
		double dd = 0;
		for (int k = 0; k < 3; k++) {
			double e = d->xpos[3 + 3 * i + k] - start[3 * i + k];
			dd += e * e;
		}
		if (sqrt(dd) > maxDisp)
			maxDisp = sqrt(dd);
	}
	for (int j = 0; j < m->njnt; j++) {
		if (m->jnt_type[j] != mjJNT_FREE)
			continue;
		const mjtNum *v = d->qvel + m->jnt_dofadr[j];
		double sp = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
		if (sp > maxV)
			maxV = sp;
	}
	printf("MuJoCo %d (%s solver, %s cone, %s Jacobian): %d bodies, %d steps of %g s; contacts ≤ %d, rows ≤ %d, stack ≤ %d of %d, solver iterations mean %.2f max %d\n",
	       mj_version(), m->opt.solver == mjSOL_NEWTON ? "Newton" : m->opt.solver == mjSOL_CG ? "CG" : "PGS",
	       m->opt.cone == mjCONE_PYRAMIDAL ? "pyramidal" : "elliptic",
	       mj_isSparse(m) ? "sparse" : "dense", nb, steps, m->opt.timestep, maxCon, maxEfc, d->maxuse_stack, d->nstack,
	       (double)iters / steps, maxIters);
	for (int w = 0; w < mjNWARNING; w++)
		if (d->warning[w].number > 0)
			printf("warning %d: %d times (last info %d)\n", w, d->warning[w].number, d->warning[w].lastinfo);
	report("cpu_ms", cpu, steps);
	report("wall_ms", wall, steps);
	printf("hold max_displacement_m=%.3g max_speed_m_s=%.3g\n", maxDisp, maxV);
	mj_deleteData(d);
	mj_deleteModel(m);
	return 0;
}
