/* ode_everyday.c: the everyday scenes of stepper's everyday_peer_test.go
 * in ODE 0.16 (dWorldStep, h = 1/60 s, standard gravity), side
 * measurements for docs/everyday-physics.md that no test needs. Contacts:
 * dContactApprox1 (friction bounded by μ times the normal force, a box in
 * the tangent frame), erp 0.2, cfm 1e-9 (the tower also 1e-5),
 * restitution only where a scene says. The tangent frame is ODE's default (dPlaneSpace of the normal, a
 * fixed basis) unless the line printed says "fdir": then dContactFDir1
 * is set to the contact's slip direction (the relative velocity's
 * tangential part, when above 1 mm/s), as gorigid does.
 *
 *   cc -O2 -o /tmp/ode_everyday testdata/everyday/ode_everyday.c $(pkg-config --cflags --libs ode) -lm
 *   /tmp/ode_everyday
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ode/ode.h>

static const dReal G = 9.81, H = 1.0 / 60;
static dWorldID world;
static dSpaceID space;
static dJointGroupID cg;
static dReal MU = 0.5, BOUNCE = 0, CFM = 1e-9;
static int FDIR = 0;

static void near(void *data, dGeomID a, dGeomID b) {
	(void)data;
	dContact c[8];
	int n = dCollide(a, b, 8, &c[0].geom, sizeof(dContact));
	for (int i = 0; i < n; i++) {
		c[i].surface.mode = dContactApprox1 | dContactSoftCFM | (BOUNCE > 0 ? dContactBounce : 0);
		c[i].surface.mu = MU;
		c[i].surface.soft_cfm = CFM;
		c[i].surface.bounce = BOUNCE;
		c[i].surface.bounce_vel = 0.1;
		if (FDIR) {
			dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
			dVector3 va = {0, 0, 0}, vb = {0, 0, 0};
			if (ba) dBodyGetPointVel(ba, c[i].geom.pos[0], c[i].geom.pos[1], c[i].geom.pos[2], va);
			if (bb) dBodyGetPointVel(bb, c[i].geom.pos[0], c[i].geom.pos[1], c[i].geom.pos[2], vb);
			const dReal *nn = c[i].geom.normal;
			dReal v[3] = {va[0] - vb[0], va[1] - vb[1], va[2] - vb[2]};
			dReal vn = v[0] * nn[0] + v[1] * nn[1] + v[2] * nn[2];
			for (int k = 0; k < 3; k++) v[k] -= vn * nn[k];
			dReal l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
			if (l > 1e-3) {
				c[i].surface.mode |= dContactFDir1;
				for (int k = 0; k < 3; k++) c[i].fdir1[k] = v[k] / l;
			}
		}
		dJointID j = dJointCreateContact(world, cg, &c[i]);
		dJointAttach(j, dGeomGetBody(c[i].geom.g1), dGeomGetBody(c[i].geom.g2));
	}
}

static void step(void) {
	dSpaceCollide(space, 0, near);
	dWorldStep(world, H);
	dJointGroupEmpty(cg);
}

static void setup(dReal mu, int fdir, const dReal *planeNormal) {
	world = dWorldCreate();
	dWorldSetGravity(world, 0, 0, -G);
	dWorldSetERP(world, 0.2);
	dWorldSetCFM(world, 1e-9);
	space = dSimpleSpaceCreate(0);
	cg = dJointGroupCreate(0);
	MU = mu, FDIR = fdir, BOUNCE = 0;
	dReal up[3] = {0, 0, 1};
	const dReal *n = planeNormal ? planeNormal : up;
	dCreatePlane(space, n[0], n[1], n[2], 0);
}

static void teardown(void) {
	dJointGroupDestroy(cg);
	dSpaceDestroy(space);
	dWorldDestroy(world);
}

static dBodyID box(dReal m, dReal sx, dReal sy, dReal sz, dReal x, dReal y, dReal z, const dReal *rot) {
	dBodyID b = dBodyCreate(world);
	dMass ms;
	dMassSetBoxTotal(&ms, m, sx, sy, sz);
	dBodySetMass(b, &ms);
	dBodySetPosition(b, x, y, z);
	if (rot) dBodySetRotation(b, rot);
	dGeomSetBody(dCreateBox(space, sx, sy, sz), b);
	return b;
}

/* slide: v0 = 3 m/s at deg° on the floor, μ = 0.4 */
static void slide(double deg, int fdir) {
	setup(0.4, fdir, 0);
	dBodyID b = box(1, 0.2, 0.2, 0.2, 0, 0, 0.1, 0);
	double a = deg * M_PI / 180, u[2] = {cos(a), sin(a)};
	dBodySetLinearVel(b, 3 * u[0], 3 * u[1], 0);
	double stop = -1;
	for (int i = 1; i <= 120; i++) {
		step();
		const dReal *v = dBodyGetLinearVel(b);
		if (stop < 0 && hypot(v[0], v[1]) < 1e-6) stop = i * H;
	}
	const dReal *p = dBodyGetPosition(b);
	double along = p[0] * u[0] + p[1] * u[1], side = fabs(-p[0] * u[1] + p[1] * u[0]);
	printf("slide %2.0f°%s: %.4f m (analytic 1.1468), stop %.4f s (analytic 0.7645), %.1e m sideways\n",
	       deg, fdir ? " fdir" : "", along, stop, side);
	teardown();
}

/* push: box at rest pushed by F = 1.2 μ m g at deg°, μ = 0.4; speed after 1 s */
static void push(double deg, int fdir) {
	setup(0.4, fdir, 0);
	dBodyID b = box(1, 0.2, 0.2, 0.2, 0, 0, 0.1, 0);
	for (int i = 0; i < 30; i++) step();
	double a = deg * M_PI / 180, u[2] = {cos(a), sin(a)};
	for (int i = 0; i < 60; i++) {
		dBodyAddForce(b, 1.2 * 0.4 * G * u[0], 1.2 * 0.4 * G * u[1], 0);
		step();
	}
	const dReal *v = dBodyGetLinearVel(b);
	printf("push  %2.0f°%s: %.4f m/s after 1 s (analytic 0.7848), %.1e m/s across\n", deg, fdir ? " fdir" : "",
	       v[0] * u[0] + v[1] * u[1], fabs(-v[0] * u[1] + v[1] * u[0]));
	teardown();
}

/* roll: a sphere (r = 0.1 m) from rest on a 20° incline, μ = 0.6 */
static void roll(void) {
	double th = 20 * M_PI / 180;
	dReal n[3] = {sin(th), 0, cos(th)};
	setup(0.6, 0, n);
	dBodyID b = dBodyCreate(world);
	dMass ms;
	dMassSetSphereTotal(&ms, 1, 0.1);
	dBodySetMass(b, &ms);
	dBodySetPosition(b, 0.1 * n[0], 0, 0.1 * n[2]);
	dGeomSetBody(dCreateSphere(space, 0.1), b);
	for (int i = 0; i < 60; i++) step();
	const dReal *v = dBodyGetLinearVel(b), *w = dBodyGetAngularVel(b);
	double down = v[0] * cos(th) - v[2] * sin(th);
	printf("roll sphere 20°: %.4f m/s after 1 s (analytic %.4f), ω r %.4f\n", down, 5.0 / 7 * G * sin(th), w[1] * 0.1);
	teardown();
}

/* bounce: a ball (r = 0.1 m) dropped from 1 m, restitution e */
static void bounce(double e) {
	setup(0.5, 0, 0);
	BOUNCE = e;
	dBodyID b = dBodyCreate(world);
	dMass ms;
	dMassSetSphereTotal(&ms, 1, 0.1);
	dBodySetMass(b, &ms);
	dBodySetPosition(b, 0, 0, 1.1);
	dGeomSetBody(dCreateSphere(space, 0.1), b);
	double top = 0, apex = -1, pen = 0;
	int rising = 0;
	for (int i = 0; i < 240; i++) {
		step();
		const dReal *p = dBodyGetPosition(b), *v = dBodyGetLinearVel(b);
		pen = fmax(pen, 0.1 - p[2]);
		if (v[2] > 0) rising = 1, top = fmax(top, p[2] - 0.1);
		else if (rising && apex < 0) apex = top;
	}
	printf("bounce e = %.1f: first apex %.4f m (analytic %.4f), deepest penetration %.4f m, final z %.4f\n", e, apex, e * e,
	       pen, dBodyGetPosition(b)[2]);
	teardown();
}

/* spin: a 0.2 m box spun at 10 rad/s about the vertical, μ = 0.2 */
static void spin(void) {
	setup(0.2, 1, 0);
	dBodyID b = box(1, 0.2, 0.2, 0.2, 0, 0, 0.1, 0);
	for (int i = 0; i < 10; i++) step();
	dBodySetAngularVel(b, 0, 0, 10);
	for (int i = 0; i < 10; i++) step();
	printf("spin box fdir: ω after 1/6 s %.4f rad/s (corner Coulomb 3.0633)\n", dBodyGetAngularVel(b)[2]);
	teardown();
}

/* capsule: r = 0.05 m, 0.3 m long, lying along x, v0 = 1 m/s along y, μ = 0.5 */
static void capsule(void) {
	setup(0.5, 1, 0);
	dBodyID b = dBodyCreate(world);
	dMass ms;
	dMassSetCapsuleTotal(&ms, 1, 3, 0.05, 0.3);
	dBodySetMass(b, &ms);
	dMatrix3 rot;
	dRFromAxisAndAngle(rot, 0, 1, 0, M_PI / 2);
	dBodySetRotation(b, rot);
	dBodySetPosition(b, 0, 0, 0.05);
	dGeomSetBody(dCreateCapsule(space, 0.05, 0.3), b);
	dBodySetLinearVel(b, 0, 1, 0);
	double tilt = 0;
	for (int i = 0; i < 120; i++) {
		step();
		const dReal *r = dBodyGetRotation(b);
		tilt = fmax(tilt, fabs(r[2 * 4 + 2])); /* world z of body z */
	}
	const dReal *v = dBodyGetLinearVel(b), *p = dBodyGetPosition(b);
	printf("capsule fdir: %.4f m/s after 2 s (analytic 0.6749), largest tilt %.1e, %.1e m along its axis, z %.5f\n", v[1], tilt,
	       p[0], p[2]);
	teardown();
}

/* tower: ten 0.2 m boxes, μ = 0.5, 10 s, contact cfm cfm */
static void tower(dReal cfm) {
	setup(0.5, 0, 0);
	CFM = cfm;
	dBodyID b[10];
	for (int k = 0; k < 10; k++) b[k] = box(1, 0.2, 0.2, 0.2, 0, 0, 0.1 + 0.2 * k, 0);
	double worst = 0;
	for (int i = 0; i < 600; i++) {
		step();
		for (int k = 0; k < 10; k++) {
			const dReal *p = dBodyGetPosition(b[k]);
			worst = fmax(worst, sqrt(p[0] * p[0] + p[1] * p[1] + pow(p[2] - 0.1 - 0.2 * k, 2)));
		}
	}
	const dReal *top = dBodyGetPosition(b[9]);
	printf("tower of ten, cfm %.0e: largest displacement %.1e m, top box at (%.4f, %.4f, %.4f) (placed at z 1.9)\n", cfm, worst,
	       top[0], top[1], top[2]);
	CFM = 1e-9;
	teardown();
}

int main(void) {
	dInitODE();
	for (int f = 0; f < 2; f++) {
		slide(0, f);
		slide(45, f);
	}
	for (int f = 0; f < 2; f++) {
		push(0, f);
		push(30, f);
		push(45, f);
	}
	roll();
	bounce(0.5);
	bounce(0.8);
	spin();
	capsule();
	tower(1e-9);
	tower(1e-5);
	dCloseODE();
	return 0;
}
