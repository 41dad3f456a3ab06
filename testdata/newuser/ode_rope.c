/* ode_rope.c: stepper's TestNewUserRope30 in ODE (dWorldStep), a side
 * measurement no test needs: N capsule links (0.05 kg, radius 0.02 m,
 * 0.1 m straight part along body z) on ball joints hanging straight down
 * from a world pivot 4 m up, the bottom link kicked sideways at V m/s, no
 * collisions, standard gravity, ODE's default ERP 0.2 and CFM 1e-5.
 * Prints the largest rise of the mechanical energy above its start (J),
 * the largest joint gap (m) and the energy at the end.
 *
 *   cc -O2 -o ode_rope testdata/newuser/ode_rope.c $(pkg-config --cflags --libs ode) -lm
 *   ./ode_rope [steps per second, default 60] [links, default 30] [kick m/s, default 0.5] [seconds, default 10]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <ode/ode.h>

static const dReal L = 0.1, R = 0.02, M = 0.05, G = 9.81, TOP = 4;

static double energy(dBodyID *b, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		const dReal *v = dBodyGetLinearVel(b[i]), *w = dBodyGetAngularVel(b[i]), *p = dBodyGetPosition(b[i]);
		const dReal *rot = dBodyGetRotation(b[i]);
		dMass m;
		dBodyGetMass(b[i], &m);
		double wb[3], iw[3];
		for (int k = 0; k < 3; k++)
			wb[k] = rot[0 * 4 + k] * w[0] + rot[1 * 4 + k] * w[1] + rot[2 * 4 + k] * w[2];
		for (int r = 0; r < 3; r++)
			iw[r] = m.I[r * 4 + 0] * wb[0] + m.I[r * 4 + 1] * wb[1] + m.I[r * 4 + 2] * wb[2];
		e += 0.5 * M * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 0.5 * (wb[0] * iw[0] + wb[1] * iw[1] + wb[2] * iw[2]);
		e += M * G * p[2];
	}
	return e;
}

int main(int argc, char **argv) {
	int rate = argc > 1 ? atoi(argv[1]) : 60;
	int n = argc > 2 ? atoi(argv[2]) : 30;
	double kick = argc > 3 ? atof(argv[3]) : 0.5;
	double secs = argc > 4 ? atof(argv[4]) : 10;
	dReal h = 1.0 / rate;
	dInitODE();
	dWorldID w = dWorldCreate();
	dWorldSetGravity(w, 0, 0, -G);
	dBodyID *b = calloc(n, sizeof *b);
	dJointID *j = calloc(n, sizeof *j);
	for (int i = 0; i < n; i++) {
		b[i] = dBodyCreate(w);
		dMass m;
		dMassSetCapsuleTotal(&m, M, 3, R, L);
		dBodySetMass(b[i], &m);
		dBodySetPosition(b[i], 0, 0, TOP - (i + 0.5) * L);
		j[i] = dJointCreateBall(w, 0);
		dJointAttach(j[i], b[i], i ? b[i - 1] : 0);
		dJointSetBallAnchor(j[i], 0, 0, TOP - i * L);
	}
	dBodySetLinearVel(b[n - 1], kick, 0, 0);
	double e0 = energy(b, n), rise = 0, gap = 0;
	int steps = (int)lround(secs * rate);
	for (int s = 1; s <= steps; s++) {
		dWorldStep(w, h);
		rise = fmax(rise, energy(b, n) - e0);
		for (int i = 0; i < n; i++) {
			dVector3 a1, a2;
			dJointGetBallAnchor(j[i], a1);
			dJointGetBallAnchor2(j[i], a2);
			gap = fmax(gap, sqrt((a1[0] - a2[0]) * (a1[0] - a2[0]) + (a1[1] - a2[1]) * (a1[1] - a2[1]) + (a1[2] - a2[2]) * (a1[2] - a2[2])));
		}
	}
	printf("h = 1/%d s, %d links, kick %.2f m/s (%.4f J), %.0f s: largest energy rise %.3e J, largest joint gap %.2e m, end %.3e J from the start\n",
	       rate, n, kick, 0.5 * M * kick * kick, secs, rise, gap, energy(b, n) - e0);
	dWorldDestroy(w);
	dCloseODE();
	return 0;
}
