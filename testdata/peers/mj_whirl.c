/* mj_whirl: the whirled bar of gorigid's stepper/whirl_test.go with
 * MuJoCo 2.2.2 (a 1 kg box 0.5 x 0.04 x 0.04 m on a hinge at its end about
 * z, no gravity), thrown at omega rad/s, step 1/hz, the default Euler
 * integrator; it writes its model to /tmp/mj_whirl.xml.
 *   cc -O2 -o mj_whirl testdata/peers/mj_whirl.c -lmujoco -lm
 *   ./mj_whirl 60 100 */
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
int main(int argc, char **argv) {
	double hz = argc > 1 ? atof(argv[1]) : 60, om = argc > 2 ? atof(argv[2]) : 100;
	char xml[2048];
	snprintf(xml, sizeof xml,
		"<mujoco><option timestep='%.17g' gravity='0 0 0'/><worldbody><body pos='0 0 0'>"
		"<joint type='hinge' axis='0 0 1' pos='0 0 0' damping='0' armature='0'/>"
		"<geom type='box' size='0.25 0.02 0.02' pos='0.25 0 0' mass='1'/></body></worldbody></mujoco>", 1 / hz);
	FILE *f = fopen("/tmp/mj_whirl.xml", "w"); fputs(xml, f); fclose(f);
	char err[1000];
	mjModel *m = mj_loadXML("/tmp/mj_whirl.xml", NULL, err, sizeof err);
	if (!m) { printf("%s\n", err); return 1; }
	mjData *d = mj_makeData(m);
	d->qvel[0] = om;
	mj_forward(m, d);
	int n = (int)lround(10 * hz);
	for (int s = 1; s <= n; s++) {
		mj_step(m, d);
		if (s == (int)lround(hz) || s == n) {
			printf("MuJoCo h = 1/%.0f s, thrown at %.0f rad/s: t = %.0f s: omega %.4f rad/s\n", hz, om, s / hz, d->qvel[0]);
		}
	}
	return 0;
}
