/* ode_facespin.c: stepper's TestFaceSpinDecaysAtCornerTorque in ODE 0.16
 * (dWorldStep, h = 1/60 s): a 1 kg cube of 0.2 m spinning flat on the
 * floor at 20 rad/s about the vertical, μ = 0.5, dContactApprox1, erp 0.2,
 * cfm 1e-9; first with ODE's default tangent frame (dPlaneSpace of the
 * normal), then with dContactFDir1 along each contact's slip, as gorigid
 * does. Prints ω_z after each step. Not part of any test.
 *
 *   cc -O2 -o /tmp/ode_facespin testdata/peers/ode_facespin.c $(pkg-config --cflags --libs ode) -lm
 *   /tmp/ode_facespin
 */
#include <math.h>
#include <stdio.h>
#include <ode/ode.h>
static const dReal G = 9.81, H = 1.0 / 60;
static dWorldID world; static dSpaceID space; static dJointGroupID cg; static int FDIR;
static void near(void *d, dGeomID a, dGeomID b) {
	(void)d; dContact c[8];
	int n = dCollide(a, b, 8, &c[0].geom, sizeof(dContact));
	for (int i = 0; i < n; i++) {
		c[i].surface.mode = dContactApprox1 | dContactSoftCFM; c[i].surface.mu = 0.5; c[i].surface.soft_cfm = 1e-9;
		if (FDIR) {
			dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
			dVector3 va = {0,0,0}, vb = {0,0,0};
			if (ba) dBodyGetPointVel(ba, c[i].geom.pos[0], c[i].geom.pos[1], c[i].geom.pos[2], va);
			if (bb) dBodyGetPointVel(bb, c[i].geom.pos[0], c[i].geom.pos[1], c[i].geom.pos[2], vb);
			const dReal *nn = c[i].geom.normal; dReal v[3] = {va[0]-vb[0], va[1]-vb[1], va[2]-vb[2]};
			dReal vn = v[0]*nn[0]+v[1]*nn[1]+v[2]*nn[2]; for (int k = 0; k < 3; k++) v[k] -= vn*nn[k];
			dReal l = sqrt(v[0]*v[0]+v[1]*v[1]+v[2]*v[2]);
			if (l > 1e-3) { c[i].surface.mode |= dContactFDir1; for (int k = 0; k < 3; k++) c[i].fdir1[k] = v[k]/l; }
		}
		dJointID j = dJointCreateContact(world, cg, &c[i]);
		dJointAttach(j, dGeomGetBody(c[i].geom.g1), dGeomGetBody(c[i].geom.g2));
	}
}
int main(void) {
	dInitODE();
	for (FDIR = 0; FDIR < 2; FDIR++) {
		world = dWorldCreate(); space = dSimpleSpaceCreate(0); cg = dJointGroupCreate(0);
		dWorldSetGravity(world, 0, 0, -G); dWorldSetERP(world, 0.2); dWorldSetCFM(world, 1e-9);
		dCreatePlane(space, 0, 0, 1, 0);
		dBodyID b = dBodyCreate(world); dMass m; dMassSetBoxTotal(&m, 1, 0.2, 0.2, 0.2); dBodySetMass(b, &m);
		dGeomID g = dCreateBox(space, 0.2, 0.2, 0.2); dGeomSetBody(g, b);
		dBodySetPosition(b, 0, 0, 0.1); dBodySetAngularVel(b, 0, 0, 20);
		for (int s = 1; s <= 15; s++) {
			dSpaceCollide(space, 0, near); dWorldStep(world, H); dJointGroupEmpty(cg);
			printf("fdir %d step %d wz %.4f\n", FDIR, s, dBodyGetAngularVel(b)[2]);
		}
		dWorldDestroy(world); dSpaceDestroy(space); dJointGroupDestroy(cg);
	}
	return 0;
}
