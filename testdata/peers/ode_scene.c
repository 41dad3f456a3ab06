/* ode_scene steps a scene of boxes on a ground plane, read from standard
 * input as pilegen writes it (one box a line), with ODE's dWorldStep (the
 * big-matrix Dantzig LCP, per island) at h = 1/60 s and standard gravity,
 * and prints the time per step, collision included: step 1, steady (median
 * of the second half of the steps) and mean, as process CPU time
 * (CLOCK_PROCESS_CPUTIME_ID) and as wall-clock time, then the largest
 * displacement of a box's centre from its start and the largest speed after
 * the last step. It is ode_pile with the output of mujoco_scene and gostep,
 * which compare.sh reads: "cpu_ms step1=… steady=… mean=…", "wall_ms …",
 * "hold max_displacement_m=… max_speed_m_s=…".
 *
 * Contacts: up to 4 per box pair (dCollide), Coulomb friction by ODE's
 * friction pyramid scaled by the normal force (dContactApprox1) with the
 * smaller μ of the two boxes, no bounce, ODE's default ERP 0.2 and CFM
 * 1e-5, no auto-disable. A hash space finds the pairs.
 *
 *   go run ./testdata/peers/pilegen pyramid base=10 > pyramid55.txt
 *   cc -O2 -o ode_scene testdata/peers/ode_scene.c $(pkg-config --cflags --libs ode) -lm
 *   ./ode_scene 120 < pyramid55.txt
 */
#include <ode/ode.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "steptime.h"

#include "odeboxes.h"

int main(int argc, char **argv) {
	int steps = argc > 1 ? atoi(argv[1]) : 600;
	if (steps < 2) {
		fprintf(stderr, "ode_scene: STEPS must be ≥ 2, got %s\n", argv[1]);
		return 1;
	}
	dInitODE2(0);
	world = dWorldCreate();
	dWorldSetGravity(world, 0, 0, -9.81);
	dSpaceID space = dHashSpaceCreate(0);
	contacts = dJointGroupCreate(0);
	ground = dCreatePlane(space, 0, 0, 1, 0);
	static dBodyID bodies[MAXBOX];
	static double start[MAXBOX][3];
	int n = readboxes("ode_scene", space, bodies, NULL, start);
	if (n < 0)
		return 1;
	double *cpu = malloc(steps * sizeof *cpu), *wall = malloc(steps * sizeof *wall);
	for (int s = 0; s < steps; s++) {
		double c0 = clockms(CLOCK_PROCESS_CPUTIME_ID), w0 = clockms(CLOCK_MONOTONIC);
		dSpaceCollide(space, 0, near);
		dWorldStep(world, 1.0 / 60);
		dJointGroupEmpty(contacts);
		wall[s] = clockms(CLOCK_MONOTONIC) - w0;
		cpu[s] = clockms(CLOCK_PROCESS_CPUTIME_ID) - c0;
	}
	double maxDisp = 0, maxV = 0;
	for (int i = 0; i < n; i++) {
		const dReal *p = dBodyGetPosition(bodies[i]), *lv = dBodyGetLinearVel(bodies[i]);
		double dd = 0, v2 = 0;
		for (int r = 0; r < 3; r++) {
			dd += (p[r] - start[i][r]) * (p[r] - start[i][r]);
			v2 += lv[r] * lv[r];
		}
		if (sqrt(dd) > maxDisp)
			maxDisp = sqrt(dd);
		if (sqrt(v2) > maxV)
			maxV = sqrt(v2);
	}
	printf("ODE (%s): dWorldStep, %d boxes, %d steps of 1/60 s\n", dGetConfiguration(), n, steps);
	report("cpu_ms", cpu, steps);
	report("wall_ms", wall, steps);
	printf("hold max_displacement_m=%.3g max_speed_m_s=%.3g\n", maxDisp, maxV);
	dCloseODE();
	return 0;
}
