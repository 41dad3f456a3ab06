/* ode_contacts.c: three of testdata/newuser/contacts' scenes in ODE 0.16
 * (dWorldStep, h = 1/60 s, dContactApprox1, ERP 0.2, CFM 1e-9): the
 * cylinder rolling off a box edge (cylinder-off-edge.json), the plank
 * sliding down a wall (plank-wall-30.json) and the seesaw (seesaw.json).
 *
 *   cc -O2 -o /tmp/ode_contacts testdata/newuser/ode_contacts.c $(pkg-config --cflags --libs ode) -lm
 *   /tmp/ode_contacts
 */
#include <math.h>
#include <stdio.h>
#include <ode/ode.h>

static const dReal G = 9.81, H = 1.0 / 60;
static dWorldID world;
static dSpaceID space;
static dJointGroupID cg;
static dReal MU = 0.5;

static void near(void *data, dGeomID a, dGeomID b) {
	(void)data;
	dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
	if (ba && bb && dAreConnected(ba, bb)) return;
	dContact c[8];
	int n = dCollide(a, b, 8, &c[0].geom, sizeof(dContact));
	for (int i = 0; i < n; i++) {
		c[i].surface.mode = dContactApprox1 | dContactSoftCFM;
		c[i].surface.mu = MU;
		c[i].surface.soft_cfm = 1e-9;
		dJointID j = dJointCreateContact(world, cg, &c[i]);
		dJointAttach(j, ba, bb);
	}
}

static void setup(void) {
	world = dWorldCreate();
	space = dHashSpaceCreate(0);
	cg = dJointGroupCreate(0);
	dWorldSetGravity(world, 0, 0, -G);
	dWorldSetERP(world, 0.2);
	dWorldSetCFM(world, 1e-9);
	dCreatePlane(space, 0, 0, 1, 0);
}

static void done(void) {
	dJointGroupDestroy(cg);
	dSpaceDestroy(space);
	dWorldDestroy(world);
}

static void step(void) {
	dSpaceCollide(space, 0, near);
	dWorldStep(world, H);
	dJointGroupEmpty(cg);
}

static dBodyID box(dReal m, dReal sx, dReal sy, dReal sz, dReal x, dReal y, dReal z) {
	dBodyID b = dBodyCreate(world);
	dMass ms;
	dMassSetBoxTotal(&ms, m, sx, sy, sz);
	dBodySetMass(b, &ms);
	dBodySetPosition(b, x, y, z);
	dGeomID g = dCreateBox(space, sx, sy, sz);
	dGeomSetBody(g, b);
	return b;
}

static dReal energy(dBodyID *b, int n) {
	dReal e = 0;
	for (int i = 0; i < n; i++) {
		dMass m;
		dBodyGetMass(b[i], &m);
		const dReal *v = dBodyGetLinearVel(b[i]), *w = dBodyGetAngularVel(b[i]), *p = dBodyGetPosition(b[i]);
		const dReal *R = dBodyGetRotation(b[i]);
		/* ω in the body frame: Rᵀ ω */
		dReal wl[3];
		for (int k = 0; k < 3; k++) wl[k] = R[0 * 4 + k] * w[0] + R[1 * 4 + k] * w[1] + R[2 * 4 + k] * w[2];
		dReal rot = 0;
		for (int r = 0; r < 3; r++)
			for (int k = 0; k < 3; k++) rot += wl[r] * m.I[r * 4 + k] * wl[k];
		e += 0.5 * m.mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 0.5 * rot + m.mass * G * p[2];
	}
	return e;
}

int main(void) {
	dInitODE();
	/* The cylinder rolling off the edge. */
	setup();
	MU = 1;
	dGeomID table = dCreateBox(space, 1, 1, 0.5);
	dGeomSetPosition(table, -0.5, 0, 0.25);
	dBodyID c = dBodyCreate(world);
	dMass ms;
	dMassSetCylinderTotal(&ms, 1, 3, 0.1, 0.2);
	dBodySetMass(c, &ms);
	dMatrix3 R;
	dRFromAxisAndAngle(R, 1, 0, 0, M_PI / 2);
	dBodySetRotation(c, R);
	dBodySetPosition(c, -0.4, 0, 0.6);
	dBodySetLinearVel(c, 0.5, 0, 0);
	dBodySetAngularVel(c, 0, 5, 0);
	dGeomID cyl = dCreateCylinder(space, 0.1, 0.2);
	dGeomSetBody(cyl, c);
	dReal side = 0, turn = 0;
	for (int i = 0; i < 180; i++) {
		step();
		const dReal *p = dBodyGetPosition(c), *w = dBodyGetAngularVel(c);
		side = fmax(side, fabs(p[1]));
		turn = fmax(turn, hypot(w[0], w[2]));
	}
	printf("cylinder off the edge (analytic 0.6384 m/s, in y = 0): rolls at %.4f m/s, wr %.4f, %.2g m sideways, %.2g rad/s about x, z\n",
	       dBodyGetLinearVel(c)[0], dBodyGetAngularVel(c)[1] * 0.1, side, turn);
	done();

	/* The plank leaning at 30 deg on a wall, sliding down flat. */
	setup();
	MU = 0.5;
	dGeomID wall = dCreateBox(space, 0.2, 2, 3);
	dGeomSetPosition(wall, 0.1, 0, 1.5);
	dReal th = 30 * M_PI / 180, phi = M_PI / 2 - th, L = 2, t = 0.05;
	dBodyID pl = box(5, t, 0.3, L, -(L / 2) * sin(phi) - (t / 2) * cos(phi), 0, (L / 2) * cos(phi) + (t / 2) * sin(phi));
	dRFromAxisAndAngle(R, 0, 1, 0, phi);
	dBodySetRotation(pl, R);
	dReal e0 = energy(&pl, 1), gain = 0;
	for (int i = 0; i < 120; i++) {
		dReal e = energy(&pl, 1);
		step();
		gain = fmax(gain, energy(&pl, 1) - e);
	}
	printf("plank at 30 deg (flat: z 0.025): z %.5f, largest step gain %.3g J of %.3g J\n", dBodyGetPosition(pl)[2], gain, e0);
	done();

	/* The seesaw. */
	setup();
	dBodyID s[3];
	s[0] = box(2, 2, 0.3, 0.05, 0, 0, 0.3);
	s[1] = box(1, 0.2, 0.2, 0.2, -0.8, 0, 0.4255);
	s[2] = box(1, 0.2, 0.2, 0.2, 0.4, 0, 0.4255);
	dJointID hj = dJointCreateHinge(world, 0);
	dJointAttach(hj, s[0], 0);
	dJointSetHingeAnchor(hj, 0, 0, 0.3);
	dJointSetHingeAxis(hj, 0, 1, 0);
	dReal w1 = 0;
	gain = 0;
	for (int i = 1; i <= 240; i++) {
		dReal e = energy(s, 3);
		step();
		gain = fmax(gain, energy(s, 3) - e);
		if (i == 2) w1 = dBodyGetAngularVel(s[0])[1];
		if (i == 3) printf("seesaw (analytic -2.5954 rad/s^2): step 3 %.4f rad/s^2", (dBodyGetAngularVel(s[0])[1] - w1) / H);
	}
	const dReal *q = dBodyGetQuaternion(s[0]);
	printf(", rests at %.2f deg (16.0), largest step gain %.3g J\n", 2 * asin(fabs(q[2])) * 180 / M_PI, gain);
	done();
	dCloseODE();
	return 0;
}
