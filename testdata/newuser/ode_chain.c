/* ode_chain.c: testdata/newuser/chain10.json in ODE (dWorldStep), a side
 * measurement for stepper's TestNewUserChain10: ten capsule links (0.1 kg,
 * radius 0.03 m, 0.2 m straight part along body z) on ball joints, hung
 * from a world pivot 3 m up and released horizontal along +x, no
 * collisions between links (as gorigid's jointed pairs; links two apart
 * never meet in this swing), standard gravity. Prints, every second and
 * at the end, the energy lost since the start (J and % of the 9.81 J fall),
 * the largest joint gap so far (m) and the fastest link (m/s).
 *
 *   cc -O2 -o ode_chain testdata/newuser/ode_chain.c $(pkg-config --cflags --libs ode) -lm
 *   ./ode_chain [steps per second, default 60] [seconds, default 5]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <ode/ode.h>

#define N 10
static const dReal L = 0.2, R = 0.03, M = 0.1, G = 9.81;

static double energy(dBodyID *b) {
	double e = 0;
	for (int i = 0; i < N; i++) {
		const dReal *v = dBodyGetLinearVel(b[i]), *w = dBodyGetAngularVel(b[i]), *p = dBodyGetPosition(b[i]);
		const dReal *rot = dBodyGetRotation(b[i]);
		dMass m;
		dBodyGetMass(b[i], &m);
		/* ω in the body frame: Rᵀ ω (ODE's rotation is row-major 3×4) */
		double wb[3];
		for (int k = 0; k < 3; k++)
			wb[k] = rot[0 * 4 + k] * w[0] + rot[1 * 4 + k] * w[1] + rot[2 * 4 + k] * w[2];
		double iw[3];
		for (int r = 0; r < 3; r++)
			iw[r] = m.I[r * 4 + 0] * wb[0] + m.I[r * 4 + 1] * wb[1] + m.I[r * 4 + 2] * wb[2];
		e += 0.5 * M * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 0.5 * (wb[0] * iw[0] + wb[1] * iw[1] + wb[2] * iw[2]);
		e += M * G * p[2];
	}
	return e;
}

int main(int argc, char **argv) {
	int rate = argc > 1 ? atoi(argv[1]) : 60;
	double secs = argc > 2 ? atof(argv[2]) : 5;
	dReal h = 1.0 / rate;
	dInitODE();
	dWorldID w = dWorldCreate();
	dWorldSetGravity(w, 0, 0, -G);
	dBodyID b[N];
	dJointID j[N];
	for (int i = 0; i < N; i++) {
		b[i] = dBodyCreate(w);
		dMass m;
		dMassSetCapsuleTotal(&m, M, 3, R, L);
		dBodySetMass(b[i], &m);
		dBodySetPosition(b[i], (i + 0.5) * L, 0, 3);
		dMatrix3 rot;
		dRFromAxisAndAngle(rot, 0, 1, 0, M_PI / 2); /* body z along world x */
		dBodySetRotation(b[i], rot);
		j[i] = dJointCreateBall(w, 0);
		dJointAttach(j[i], b[i], i ? b[i - 1] : 0);
		dJointSetBallAnchor(j[i], i * L, 0, 3);
	}
	double e0 = energy(b), gap = 0, vmax = 0;
	int steps = (int)lround(secs * rate);
	for (int s = 1; s <= steps; s++) {
		dWorldStep(w, h);
		for (int i = 0; i < N; i++) {
			dVector3 a1, a2;
			dJointGetBallAnchor(j[i], a1);
			dJointGetBallAnchor2(j[i], a2);
			gap = fmax(gap, sqrt((a1[0] - a2[0]) * (a1[0] - a2[0]) + (a1[1] - a2[1]) * (a1[1] - a2[1]) + (a1[2] - a2[2]) * (a1[2] - a2[2])));
			const dReal *v = dBodyGetLinearVel(b[i]);
			vmax = fmax(vmax, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
		}
		if (s % rate == 0 || s == steps)
			printf("t = %.3f s: lost %.3f J (%.1f %% of %.2f J), largest joint gap %.2e m, fastest link %.2f m/s\n",
			       s * h, e0 - energy(b), 100 * (e0 - energy(b)) / (M * G * N * N * L / 2), M * G * N * N * L / 2, gap, vmax);
	}
	dWorldDestroy(w);
	dCloseODE();
	return 0;
}
