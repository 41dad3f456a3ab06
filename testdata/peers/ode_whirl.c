/* ode_whirl: the whirled bar of gorigid's stepper/whirl_test.go with ODE's
 * dWorldStep: a 1 kg bar 0.5 m x 0.04 x 0.04, hinged to the world at its end
 * (the origin) about z, thrown at omega rad/s (v = omega x r), no gravity,
 * ODE's defaults (ERP 0.2, CFM 1e-5), for 10 s at step 1/hz.
 *   cc -O2 -o ode_whirl testdata/peers/ode_whirl.c $(pkg-config --cflags --libs ode) -lm
 *   ./ode_whirl 60 100
 */
#include <ode/ode.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
int main(int argc, char **argv) {
	double hz = argc > 1 ? atof(argv[1]) : 60, om = argc > 2 ? atof(argv[2]) : 100, h = 1 / hz;
	dInitODE();
	dWorldID w = dWorldCreate();
	dWorldSetGravity(w, 0, 0, 0);
	dBodyID b = dBodyCreate(w);
	dMass m;
	dMassSetBoxTotal(&m, 1, 0.5, 0.04, 0.04);
	dBodySetMass(b, &m);
	dBodySetPosition(b, 0.25, 0, 0);
	dBodySetLinearVel(b, 0, om * 0.25, 0);
	dBodySetAngularVel(b, 0, 0, om);
	dJointID j = dJointCreateHinge(w, 0);
	dJointAttach(j, b, 0);
	dJointSetHingeAnchor(j, 0, 0, 0);
	dJointSetHingeAxis(j, 0, 0, 1);
	double ip = m.I[10] + 0.0625, e0 = 0.5 * ip * om * om, amax = 0;
	int n = (int)lround(10 / h);
	for (int s = 1; s <= n; s++) {
		dWorldStep(w, h);
		dVector3 a;
		dBodyGetRelPointPos(b, -0.25, 0, 0, a);
		double d = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
		if (d > amax) amax = d;
		if (s == (int)lround(1 / h) || s == n) {
			const dReal *v = dBodyGetLinearVel(b), *av = dBodyGetAngularVel(b);
			double e = 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 0.5 * m.I[10] * av[2] * av[2];
			printf("h = 1/%.0f s, thrown at %.0f rad/s: t = %.0f s: omega %.4f rad/s, energy %.4f of the start, hinge point off by up to %.3g m\n", hz, om, s * h, av[2], e / e0, amax);
		}
	}
	return 0;
}
