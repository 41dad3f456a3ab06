/* ode_pile steps a scene of boxes on a ground plane, read from standard
 * input as pilegen writes it, with ODE's dWorldStep (the big-matrix
 * Dantzig LCP) at h = 1/60 s and standard gravity, and prints the wall-clock
 * time per step: step 1, steady (median of the second half) and mean, for
 * collision plus dWorldStep and for dWorldStep alone, with the largest body
 * kinetic energy and speed after the last step.
 *
 * Contacts: up to 4 per box pair (dCollide), Coulomb friction by ODE's
 * friction pyramid scaled by the normal force (dContactApprox1) with the
 * scene's μ, no bounce, ODE's default ERP 0.2 and CFM 1e-5. A hash space
 * finds the pairs.
 *
 * Sleeping: with a second argument "sleep", ODE's auto-disable is on
 * (dWorldSetAutoDisableFlag) with gorigid's default thresholds
 * (stepper.Sleep): a body is disabled after 30 steps (0.5 s) below
 * 0.05 m/s and 2 deg/s, and ODE steps only the islands with an enabled
 * body. Without it every body stays enabled, as gorigid with
 * Sleep.On = false.
 *
 *   go run ./testdata/peers/pilegen randompile boxes=100 > pile.txt
 *   cc -O2 -o ode_pile testdata/peers/ode_pile.c $(pkg-config --cflags --libs ode) -lm
 *   ./ode_pile 600 < pile.txt         # every body awake
 *   ./ode_pile 600 sleep < pile.txt   # auto-disable on
 */
#include <ode/ode.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "odeboxes.h"
#include "steptime.h"

static double median(double *v, int n) {
	qsort(v, n, sizeof *v, cmpdouble);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
	int steps = argc > 1 ? atoi(argv[1]) : 600;
	if (steps < 2) {
		fprintf(stderr, "ode_pile: steps must be ≥ 2\n");
		return 1;
	}
	int sleep = 0;
	if (argc > 2) {
		if (strcmp(argv[2], "sleep") != 0) {
			fprintf(stderr, "ode_pile: second argument %s: want \"sleep\" or none\n", argv[2]);
			return 1;
		}
		sleep = 1;
	}
	dInitODE2(0);
	world = dWorldCreate();
	dWorldSetGravity(world, 0, 0, -9.81);
	if (sleep) {
		dWorldSetAutoDisableFlag(world, 1);
		dWorldSetAutoDisableLinearThreshold(world, 0.05);
		dWorldSetAutoDisableAngularThreshold(world, 2 * M_PI / 180);
		dWorldSetAutoDisableSteps(world, 30);
		dWorldSetAutoDisableTime(world, 0);
	}
	dSpaceID space = dHashSpaceCreate(0);
	contacts = dJointGroupCreate(0);
	ground = dCreatePlane(space, 0, 0, 1, 0);
	static dBodyID bodies[MAXBOX];
	double mass[MAXBOX];
	int n = readboxes("ode_pile", space, bodies, mass, NULL);
	if (n < 0)
		return 1;
	double *total = malloc(steps * sizeof *total), *solve = malloc(steps * sizeof *solve);
	double meanTotal = 0, meanSolve = 0;
	for (int s = 0; s < steps; s++) {
		double t0 = clockms(CLOCK_MONOTONIC);
		dSpaceCollide(space, 0, near);
		double t1 = clockms(CLOCK_MONOTONIC);
		dWorldStep(world, 1.0 / 60);
		double t2 = clockms(CLOCK_MONOTONIC);
		dJointGroupEmpty(contacts);
		total[s] = t2 - t0;
		solve[s] = t2 - t1;
		meanTotal += total[s] / steps;
		meanSolve += solve[s] / steps;
	}
	double maxKE = 0, maxV = 0;
	for (int i = 0; i < n; i++) {
		const dReal *lv = dBodyGetLinearVel(bodies[i]), *av = dBodyGetAngularVel(bodies[i]);
		dMass m;
		dBodyGetMass(bodies[i], &m);
		/* ½ m v² + ½ ωᵀ I ω with I in the world frame. */
		const dReal *R = dBodyGetRotation(bodies[i]);
		double wl[3];
		for (int r = 0; r < 3; r++)
			wl[r] = R[0 * 4 + r] * av[0] + R[1 * 4 + r] * av[1] + R[2 * 4 + r] * av[2];
		double rot = 0;
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++)
				rot += wl[r] * m.I[r * 4 + c] * wl[c];
		double v2 = lv[0] * lv[0] + lv[1] * lv[1] + lv[2] * lv[2];
		double ke = 0.5 * mass[i] * v2 + 0.5 * rot;
		if (ke > maxKE)
			maxKE = ke;
		if (v2 > maxV * maxV)
			maxV = sqrt(v2);
	}
	int enabled = 0;
	for (int i = 0; i < n; i++)
		enabled += dBodyIsEnabled(bodies[i]) != 0;
	printf("ODE (%s): dWorldStep, %d boxes, %d steps of 1/60 s, auto-disable %s (%d bodies enabled after the last step)\n", dGetConfiguration(), n, steps, sleep ? "on" : "off", enabled);
	printf("collide+step ms: step 1 %.3f, steady %.3f, mean %.3f\n", total[0], median(total + steps / 2, steps - steps / 2), meanTotal);
	printf("dWorldStep ms:   step 1 %.3f, steady %.3f, mean %.3f\n", solve[0], median(solve + steps / 2, steps - steps / 2), meanSolve);
	printf("after the last step: largest body kinetic energy %.3g J, largest speed %.3g m/s\n", maxKE, maxV);
	dCloseODE();
	return 0;
}
