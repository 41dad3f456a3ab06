/* ode_dominoes.c: stepper's TestNewUserDominoes20 in ODE 0.16 (dWorldStep,
 * dContactApprox1, μ = 0.5, ERP 0.2, CFM 1e-9; 8 contacts a pair), a side
 * measurement no test needs: 20 dominoes of 0.02 × 0.1 × 0.2 m, 0.1 kg,
 * 0.1 m apart on a plane, the first tipped at 3 rad/s about y (moving at
 * 0.3 m/s, 0.03 m/s up, as testdata/newuser/contacts/dominoes10.json).
 * Prints the time each domino first tilts past 45° and the last one's
 * final tilt and height.
 *
 *   cc -O2 -o /tmp/ode_dominoes testdata/newuser/ode_dominoes.c $(pkg-config --cflags --libs ode) -lm
 *   /tmp/ode_dominoes [steps per second, default 60]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <ode/ode.h>

#define N 20
static dWorldID world;
static dSpaceID space;
static dJointGroupID cg;

static void near(void *data, dGeomID a, dGeomID b) {
	(void)data;
	dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
	dContact c[8];
	int n = dCollide(a, b, 8, &c[0].geom, sizeof(dContact));
	for (int i = 0; i < n; i++) {
		c[i].surface.mode = dContactApprox1 | dContactSoftCFM;
		c[i].surface.mu = 0.5;
		c[i].surface.soft_cfm = 1e-9;
		dJointID j = dJointCreateContact(world, cg, &c[i]);
		dJointAttach(j, ba, bb);
	}
}

static double tilt(dBodyID b) {
	const dReal *R = dBodyGetRotation(b);
	return acos(fmin(1, fabs(R[2 * 4 + 2]))) * 180 / M_PI; /* body z against world z */
}

int main(int argc, char **argv) {
	int rate = argc > 1 ? atoi(argv[1]) : 60;
	dReal h = 1.0 / rate;
	dInitODE();
	world = dWorldCreate();
	space = dHashSpaceCreate(0);
	cg = dJointGroupCreate(0);
	dWorldSetGravity(world, 0, 0, -9.81);
	dWorldSetERP(world, 0.2);
	dWorldSetCFM(world, 1e-9);
	dCreatePlane(space, 0, 0, 1, 0);
	dBodyID b[N];
	for (int i = 0; i < N; i++) {
		b[i] = dBodyCreate(world);
		dMass m;
		dMassSetBoxTotal(&m, 0.1, 0.02, 0.1, 0.2);
		dBodySetMass(b[i], &m);
		dBodySetPosition(b[i], 0.1 * i, 0, 0.1);
		dGeomID g = dCreateBox(space, 0.02, 0.1, 0.2);
		dGeomSetBody(g, b[i]);
	}
	dBodySetAngularVel(b[0], 0, 3, 0);
	dBodySetLinearVel(b[0], 0.3, 0, 0.03);
	double fell[N];
	for (int i = 0; i < N; i++) fell[i] = -1;
	for (int s = 1; s <= 6 * rate; s++) {
		dSpaceCollide(space, 0, near);
		dWorldStep(world, h);
		dJointGroupEmpty(cg);
		for (int i = 0; i < N; i++)
			if (fell[i] < 0 && tilt(b[i]) > 45) fell[i] = s * h;
	}
	printf("h = 1/%d s: 45° at", rate);
	for (int i = 0; i < N; i++) printf(" %.3f", fell[i]);
	printf(" s\nlast: tilt %.1f°, centre %.4f m up\n", tilt(b[N - 1]), dBodyGetPosition(b[N - 1])[2]);
	dJointGroupDestroy(cg);
	dSpaceDestroy(space);
	dWorldDestroy(world);
	dCloseODE();
	return 0;
}
