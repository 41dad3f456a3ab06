/* mujoco_everyday.c: the everyday scenes of stepper's everyday_peer_test.go
 * in MuJoCo 2.2 (mj_step, Euler, h = 1/60 s, standard gravity, default
 * solref/solimp), side measurements for docs/everyday-physics.md that no
 * test needs. Each scene runs with the default pyramidal friction cone
 * and with cone="elliptic" (Newton solver both ways). MuJoCo has no
 * coefficient of restitution, so the bouncing ball is left out.
 *
 *   cc -O2 -o /tmp/mujoco_everyday testdata/everyday/mujoco_everyday.c -lmujoco -lm
 *   /tmp/mujoco_everyday
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mujoco/mujoco.h>

static const double G = 9.81, H = 1.0 / 60;
static const char *CONE = "pyramidal";

/* load builds a model from the worldbody body, the plane tilted by
 * (ax, ay, az, angle°) with friction mu. */
static mjModel *load(const char *body, double mu, const char *planeAxisAngle) {
	static char xml[1 << 16];
	char err[1000];
	snprintf(xml, sizeof xml,
	         "<mujoco><compiler angle=\"degree\"/><option timestep=\"%.17g\" gravity=\"0 0 -9.81\" cone=\"%s\"/>"
	         "<default><geom friction=\"%g 0 0\" condim=\"3\"/></default><worldbody>"
	         "<geom type=\"plane\" size=\"20 20 0.1\" axisangle=\"%s\"/>%s</worldbody></mujoco>",
	         H, CONE, mu, planeAxisAngle ? planeAxisAngle : "0 0 1 0", body);
	FILE *f = fopen("/tmp/mujoco_everyday.xml", "w");
	fputs(xml, f);
	fclose(f);
	mjModel *m = mj_loadXML("/tmp/mujoco_everyday.xml", 0, err, sizeof err);
	if (!m) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	return m;
}

/* slide: v0 = 3 m/s at deg° on the floor, μ = 0.4 */
static void slide(double deg) {
	mjModel *m = load("<body pos=\"0 0 0.1\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\" mass=\"1\"/></body>", 0.4, 0);
	mjData *d = mj_makeData(m);
	double a = deg * M_PI / 180, u[2] = {cos(a), sin(a)};
	d->qvel[0] = 3 * u[0], d->qvel[1] = 3 * u[1];
	double stop = -1;
	for (int i = 1; i <= 120; i++) {
		mj_step(m, d);
		if (stop < 0 && hypot(d->qvel[0], d->qvel[1]) < 1e-3) stop = i * H;
	}
	double along = d->qpos[0] * u[0] + d->qpos[1] * u[1], side = fabs(-d->qpos[0] * u[1] + d->qpos[1] * u[0]);
	printf("%s slide %2.0f°: %.4f m (analytic 1.1468), below 1 mm/s at %.4f s (analytic 0.7645), %.1e m sideways\n", CONE, deg,
	       along, stop, side);
	mj_deleteData(d);
	mj_deleteModel(m);
}

/* push: a box at rest pushed by F = 1.2 μ m g at deg°, μ = 0.4 */
static void push(double deg) {
	mjModel *m = load("<body pos=\"0 0 0.1\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\" mass=\"1\"/></body>", 0.4, 0);
	mjData *d = mj_makeData(m);
	for (int i = 0; i < 30; i++) mj_step(m, d);
	double a = deg * M_PI / 180, u[2] = {cos(a), sin(a)};
	d->xfrc_applied[6 + 0] = 1.2 * 0.4 * G * u[0], d->xfrc_applied[6 + 1] = 1.2 * 0.4 * G * u[1];
	for (int i = 0; i < 60; i++) mj_step(m, d);
	printf("%s push  %2.0f°: %.4f m/s after 1 s (analytic 0.7848), %.1e m/s across\n", CONE, deg,
	       d->qvel[0] * u[0] + d->qvel[1] * u[1], fabs(-d->qvel[0] * u[1] + d->qvel[1] * u[0]));
	mj_deleteData(d);
	mj_deleteModel(m);
}

/* roll: a solid sphere (r = 0.1 m, 1 kg) from rest on a 20° incline, μ = 0.6 */
static void roll(void) {
	double th = 20 * M_PI / 180;
	char b[512];
	snprintf(b, sizeof b, "<body pos=\"%.17g 0 %.17g\"><freejoint/><geom type=\"sphere\" size=\"0.1\" mass=\"1\"/></body>",
	         0.1 * sin(th), 0.1 * cos(th));
	mjModel *m = load(b, 0.6, "0 1 0 20");
	mjData *d = mj_makeData(m);
	for (int i = 0; i < 60; i++) mj_step(m, d);
	double down = d->qvel[0] * cos(th) - d->qvel[2] * sin(th);
	printf("%s roll sphere 20°: %.4f m/s after 1 s (analytic %.4f), ω r %.4f\n", CONE, down, 5.0 / 7 * G * sin(th),
	       d->qvel[4] * 0.1);
	mj_deleteData(d);
	mj_deleteModel(m);
}

/* spin: a 0.2 m box spun at 10 rad/s about the vertical, μ = 0.2 */
static void spin(void) {
	mjModel *m = load("<body pos=\"0 0 0.1\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\" mass=\"1\"/></body>", 0.2, 0);
	mjData *d = mj_makeData(m);
	for (int i = 0; i < 10; i++) mj_step(m, d);
	d->qvel[5] = 10;
	for (int i = 0; i < 10; i++) mj_step(m, d);
	printf("%s spin box: ω after 1/6 s %.4f rad/s (corner Coulomb 3.0633), centre moved %.1e m\n", CONE, d->qvel[5],
	       hypot(d->qpos[0], d->qpos[1]));
	mj_deleteData(d);
	mj_deleteModel(m);
}

/* capsule: r = 0.05 m, 0.3 m straight part along x, v0 = 1 m/s along y, μ = 0.5 */
static void capsule(void) {
	mjModel *m = load("<body pos=\"0 0 0.05\"><freejoint/><geom type=\"capsule\" fromto=\"-0.15 0 0 0.15 0 0\" size=\"0.05\" mass=\"1\"/></body>",
	                  0.5, 0);
	mjData *d = mj_makeData(m);
	d->qvel[1] = 1;
	double tilt = 0;
	for (int i = 0; i < 120; i++) {
		mj_step(m, d);
		tilt = fmax(tilt, fabs(d->xmat[9 + 6])); /* world z of body x */
	}
	printf("%s capsule: %.4f m/s after 2 s (analytic 0.6749), largest tilt %.1e, %.1e m along its axis, z %.5f\n", CONE,
	       d->qvel[1], tilt, d->qpos[0], d->qpos[2]);
	mj_deleteData(d);
	mj_deleteModel(m);
}

/* tower: ten 0.2 m boxes, μ = 0.5, 10 s */
static void tower(void) {
	char b[1 << 14], *p = b;
	for (int k = 0; k < 10; k++)
		p += sprintf(p, "<body pos=\"0 0 %.17g\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\" mass=\"1\"/></body>", 0.1 + 0.2 * k);
	mjModel *m = load(b, 0.5, 0);
	mjData *d = mj_makeData(m);
	double worst = 0;
	for (int i = 0; i < 600; i++) {
		mj_step(m, d);
		for (int k = 0; k < 10; k++) {
			double *q = d->qpos + 7 * k;
			worst = fmax(worst, sqrt(q[0] * q[0] + q[1] * q[1] + pow(q[2] - 0.1 - 0.2 * k, 2)));
		}
	}
	printf("%s tower of ten: largest displacement %.1e m, top box z %.4f (placed at 1.9)\n", CONE, worst, d->qpos[7 * 9 + 2]);
	mj_deleteData(d);
	mj_deleteModel(m);
}

int main(void) {
	const char *cones[2] = {"pyramidal", "elliptic"};
	for (int c = 0; c < 2; c++) {
		CONE = cones[c];
		slide(0);
		slide(45);
		push(0);
		push(30);
		push(45);
		roll();
		spin();
		capsule();
		tower();
	}
	return 0;
}
