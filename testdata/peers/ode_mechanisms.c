/* ode_mechanisms steps two of gorigid's jointed mechanisms
 * (stepper/mechanisms_test.go, docs/everyday-physics.md) with ODE's
 * dWorldStep at its defaults (ERP 0.2, CFM 1e-5, semi-implicit Euler), for
 * the numbers docs/everyday-physics.md sets beside gorigid's:
 *
 *  - a double pendulum: two 1 kg spheres (r = 0.05 m) on 1 m arms, hinged
 *    about y at the world origin and at the first bob, released
 *    horizontal under standard gravity; it prints K + U − (K + U)₀ at 5,
 *    10, 15 and 20 s and its largest and least value (J; the fall is
 *    29.43 J);
 *  - a 0.5 m bar (1 kg, 0.05 m square) hinged about z at its end, no
 *    gravity, thrown at 10, 40 and 100 rad/s: its spin after 1 s.
 *
 *   cc -O2 -o ode_mechanisms testdata/peers/ode_mechanisms.c $(pkg-config --cflags --libs ode) -lm
 *   ./ode_mechanisms          # h = 1/60 s
 *   ./ode_mechanisms 240      # h = 1/240 s
 */
#include <ode/ode.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static double energy(dBodyID *b, int n, double g) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		dMass m;
		dBodyGetMass(b[i], &m);
		const dReal *v = dBodyGetLinearVel(b[i]), *w = dBodyGetAngularVel(b[i]), *p = dBodyGetPosition(b[i]);
		const dReal *R = dBodyGetRotation(b[i]);
		/* ω in the body frame, then ½ ωᵀ I ω */
		double wb[3];
		for (int k = 0; k < 3; k++)
			wb[k] = R[0 * 4 + k] * w[0] + R[1 * 4 + k] * w[1] + R[2 * 4 + k] * w[2];
		double iw = 0;
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++)
				iw += wb[r] * m.I[r * 4 + c] * wb[c];
		e += 0.5 * m.mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 0.5 * iw + m.mass * g * p[2];
	}
	return e;
}

int main(int argc, char **argv) {
	double rate = argc > 1 ? atof(argv[1]) : 60;
	if (rate <= 0) {
		fprintf(stderr, "ode_mechanisms: steps per second must be positive, got %s\n", argv[1]);
		return 2;
	}
	double h = 1 / rate, g = 9.81;
	dInitODE();

	dWorldID world = dWorldCreate();
	dWorldSetGravity(world, 0, 0, -g);
	dBodyID b[2];
	for (int i = 0; i < 2; i++) {
		b[i] = dBodyCreate(world);
		dMass m;
		dMassSetSphereTotal(&m, 1, 0.05);
		dBodySetMass(b[i], &m);
		dBodySetPosition(b[i], i + 1, 0, 0);
	}
	dJointID j1 = dJointCreateHinge(world, 0), j2 = dJointCreateHinge(world, 0);
	dJointAttach(j1, b[0], 0);
	dJointSetHingeAnchor(j1, 0, 0, 0);
	dJointSetHingeAxis(j1, 0, 1, 0);
	dJointAttach(j2, b[1], b[0]);
	dJointSetHingeAnchor(j2, 1, 0, 0);
	dJointSetHingeAxis(j2, 0, 1, 0);
	double e0 = energy(b, 2, g), hi = 0, lo = 0;
	printf("ODE dWorldStep, h = 1/%g s, ERP 0.2, CFM 1e-5\ndouble pendulum, K + U - start at 5, 10, 15, 20 s:", rate);
	int steps = (int)lround(20 / h);
	for (int s = 1; s <= steps; s++) {
		dWorldStep(world, h);
		double e = energy(b, 2, g) - e0;
		hi = fmax(hi, e);
		lo = fmin(lo, e);
		if (s % (int)lround(5 / h) == 0)
			printf(" %.3f", e);
	}
	printf(" J; largest %.3f J, least %.3f J\n", hi, lo);
	dWorldDestroy(world);

	double speeds[] = {10, 40, 100};
	for (int k = 0; k < 3; k++) {
		world = dWorldCreate();
		dBodyID bar = dBodyCreate(world);
		dMass m;
		dMassSetBoxTotal(&m, 1, 0.5, 0.05, 0.05);
		dBodySetMass(bar, &m);
		dBodySetPosition(bar, 0.25, 0, 1);
		dBodySetAngularVel(bar, 0, 0, speeds[k]);
		dBodySetLinearVel(bar, 0, 0.25 * speeds[k], 0);
		dJointID hj = dJointCreateHinge(world, 0);
		dJointAttach(hj, bar, 0);
		dJointSetHingeAnchor(hj, 0, 0, 1);
		dJointSetHingeAxis(hj, 0, 0, 1);
		for (int s = 0; s < (int)lround(1 / h); s++)
			dWorldStep(world, h);
		printf("bar hinged at its end, thrown at %g rad/s: %.3f rad/s after 1 s\n", speeds[k], dBodyGetAngularVel(bar)[2]);
		dWorldDestroy(world);
	}
	dCloseODE();
	return 0;
}
