/* ode_pendulum steps the pendulum of gorigid's TestPendulumAtGameStep with
 * ODE's dWorldStep: a 1 kg sphere (r = 0.05 m) 1 m from a hinge at the
 * world origin (axis y), released at rest 120° from the bottom, standard
 * gravity, for 10 s at step h (default 1/60 s). ODE's defaults: ERP 0.2,
 * CFM 1e-5, a semi-implicit Euler step (velocity first, then the position
 * with the new velocity).
 *
 * It prints, as TestPendulumAtGameStep logs them: the period from the
 * bob's crossings of the bottom against the exact 4√(I/mgL)·K(sin 60°)
 * (I = mL² + ⅖mr²), the largest energy error at the turning points (where
 * the arm's rate changes sign) and anywhere, each as a percentage of the
 * swing energy mgL(1 − cos 120°), beside ½ h m g v_max, the oscillation
 * semi-implicit Euler's modified energy allows, and the energy after 10 s.
 *
 *   cc -O2 -o ode_pendulum testdata/peers/ode_pendulum.c $(pkg-config --cflags --libs ode) -lm
 *   ./ode_pendulum          # h = 1/60 s
 *   ./ode_pendulum 240      # h = 1/240 s
 */
#include <ode/ode.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static double ellipticK(double k) {
	double a = 1, b = sqrt(1 - k * k);
	while (fabs(a - b) > 1e-15 * a) {
		double an = (a + b) / 2;
		b = sqrt(a * b);
		a = an;
	}
	return M_PI / (2 * a);
}

int main(int argc, char **argv) {
	const double m = 1, r = 0.05, l = 1, g = 9.81;
	const double theta0 = 2 * M_PI / 3;
	double rate = argc > 1 ? atof(argv[1]) : 60;
	if (rate <= 0) {
		fprintf(stderr, "ode_pendulum: steps per second must be positive, got %s\n", argv[1]);
		return 2;
	}
	double h = 1 / rate;
	dInitODE();
	dWorldID world = dWorldCreate();
	dWorldSetGravity(world, 0, 0, -g);
	dBodyID bob = dBodyCreate(world);
	dMass mass;
	dMassSetSphereTotal(&mass, m, r);
	dBodySetMass(bob, &mass);
	dBodySetPosition(bob, l * sin(theta0), 0, -l * cos(theta0));
	dJointID hinge = dJointCreateHinge(world, 0);
	dJointAttach(hinge, bob, 0);
	dJointSetHingeAnchor(hinge, 0, 0, 0);
	dJointSetHingeAxis(hinge, 0, 1, 0);

	double inertia = m * l * l + 0.4 * m * r * r;
	double exact = 4 * sqrt(inertia / (m * g * l)) * ellipticK(sin(theta0 / 2));
	double swing = m * g * l * (1 - cos(theta0));
	/* The energy above the lowest point of the bob's circle. */
#define ENERGY(e)                                                               \
	do {                                                                    \
		const dReal *p = dBodyGetPosition(bob), *v = dBodyGetLinearVel(bob); \
		const dReal *w = dBodyGetAngularVel(bob);                       \
		double iw = 0.4 * m * r * r;                                    \
		e = 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +       \
		    0.5 * iw * (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) +      \
		    m * g * (p[2] + l);                                         \
	} while (0)
#define ARMRATE(p, v) (((p)[2] * (v)[0] - (p)[0] * (v)[2]) / ((p)[0] * (p)[0] + (p)[2] * (p)[2]))
	double e0;
	ENERGY(e0);
	const dReal *p = dBodyGetPosition(bob), *v = dBodyGetLinearVel(bob);
	double prevx = p[0], prevw = ARMRATE(p, v);
	double dev = 0, apex = 0, vmax = 0, gap = 0, first = -1, last = -1, e = e0;
	int n = 0, steps = (int)lround(10 / h);
	for (int s = 1; s <= steps; s++) {
		dWorldStep(world, h);
		ENERGY(e);
		p = dBodyGetPosition(bob);
		v = dBodyGetLinearVel(bob);
		dev = fmax(dev, fabs(e - e0));
		vmax = fmax(vmax, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
		gap = fmax(gap, fabs(sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) - l));
		double x = p[0], wy = ARMRATE(p, v);
		if (prevx > 0 && x <= 0) { /* through the bottom towards -x */
			double tc = s * h - h + prevx / (prevx - x) * h;
			if (first < 0)
				first = tc;
			last = tc;
			n++;
		}
		if ((prevw > 0) != (wy > 0))
			apex = fmax(apex, fabs(e - e0));
		prevx = x;
		prevw = wy;
	}
	double period = (last - first) / (n - 1);
	printf("ODE dWorldStep (%s precision), hinge, h = 1/%g s, ERP 0.2, CFM 1e-5, 10 s:\n",
	       dCheckConfiguration("ODE_double_precision") ? "double" : "single", rate);
	printf("period %.5f s, exact %.5f s (%+.3f %%)\n", period, exact, 100 * (period / exact - 1));
	printf("energy at turning points within %.2f %% of the swing energy, anywhere within %.2f %% (1/2 h m g v_max = %.2f %%)\n",
	       100 * apex / swing, 100 * dev / swing, 100 * 0.5 * h * m * g * vmax / swing);
	printf("energy after 10 s %+.2f %% of the swing energy; arm length error at most %.2e m\n",
	       100 * (e - e0) / swing, gap);
	dWorldDestroy(world);
	dCloseODE();
	return 0;
}
