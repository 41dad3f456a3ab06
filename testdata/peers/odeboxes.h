/* odeboxes.h: the scene and contacts shared by ode_pile.c and ode_scene.c:
 * boxes on a ground plane read from standard input as pilegen writes them
 * (18 numbers a line: sides x y z, mass, position, quaternion w x y z,
 * linear and angular velocity, μ), and the collision callback: up to
 * MAXC contacts per pair (dCollide), Coulomb friction by ODE's friction
 * pyramid scaled by the normal force (dContactApprox1) with the smaller μ
 * of the two boxes (the box's own against the ground), no bounce, ODE's
 * default ERP 0.2 and CFM 1e-5. */
#ifndef PEERS_ODEBOXES_H
#define PEERS_ODEBOXES_H

#include <ode/ode.h>
#include <stdio.h>

#define MAXBOX 20000
#define MAXC 4

static dWorldID world;
static dJointGroupID contacts;
static double mu[MAXBOX];
static dGeomID ground;

/* near is dSpaceCollide's callback: it adds the contact joints of a pair. */
static void near(void *data, dGeomID a, dGeomID b) {
	(void)data;
	dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
	if (ba && bb && dAreConnected(ba, bb))
		return;
	dContact c[MAXC];
	int n = dCollide(a, b, MAXC, &c[0].geom, sizeof(dContact));
	double m = 0;
	if (a != ground)
		m = mu[(size_t)dGeomGetData(a)];
	if (b != ground && (a == ground || mu[(size_t)dGeomGetData(b)] < m))
		m = mu[(size_t)dGeomGetData(b)];
	for (int i = 0; i < n; i++) {
		c[i].surface.mode = dContactApprox1;
		c[i].surface.mu = m;
		dJointID j = dJointCreateContact(world, contacts, &c[i]);
		dJointAttach(j, ba, bb);
	}
}

/* readboxes creates world's bodies and space's box geoms from standard
 * input, fills bodies, mu and, where not NULL, mass and start (the
 * centres), and returns their count, or −1 after a message naming prog
 * and the line. */
static int readboxes(const char *prog, dSpaceID space, dBodyID *bodies, double *mass, double (*start)[3]) {
	int n = 0;
	double v[18];
	for (;;) {
		int k = 0;
		for (; k < 18 && scanf("%lf", &v[k]) == 1; k++)
			;
		if (k == 0)
			return n;
		if (k != 18 || n == MAXBOX) {
			fprintf(stderr, "%s: line %d: want 18 numbers per box, at most %d boxes\n", prog, n + 1, MAXBOX);
			return -1;
		}
		dBodyID b = dBodyCreate(world);
		dMass m;
		dMassSetBoxTotal(&m, v[3], v[0], v[1], v[2]);
		dBodySetMass(b, &m);
		dBodySetPosition(b, v[4], v[5], v[6]);
		dQuaternion q = {v[7], v[8], v[9], v[10]};
		dBodySetQuaternion(b, q);
		dBodySetLinearVel(b, v[11], v[12], v[13]);
		dBodySetAngularVel(b, v[14], v[15], v[16]);
		dGeomID g = dCreateBox(space, v[0], v[1], v[2]);
		dGeomSetBody(g, b);
		dGeomSetData(g, (void *)(size_t)n);
		mu[n] = v[17];
		if (mass)
			mass[n] = v[3];
		if (start)
			for (int r = 0; r < 3; r++)
				start[n][r] = v[4 + r];
		bodies[n++] = b;
	}
}

#endif
