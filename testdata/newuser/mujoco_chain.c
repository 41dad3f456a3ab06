/* mujoco_chain.c: testdata/newuser/chain10.json in MuJoCo 2.2 (mj_step),
 * a side measurement for stepper's TestNewUserChain10: ten capsule links
 * (0.1 kg, radius 0.03 m, 0.2 m between the joints) on ball joints, the
 * first hung from a world pivot 3 m up, released horizontal along +x,
 * no contacts (contype 0), standard gravity. MuJoCo's links carry the
 * capsule's mass and inertia (as gorigid's CapsuleInertia, the straight
 * part 0.2 m). Prints, every second, the energy lost since the start
 * (J and % of the 9.81 J fall).
 *
 *   cc -O2 -o mujoco_chain testdata/newuser/mujoco_chain.c -lmujoco -lm
 *   ./mujoco_chain [steps per second, default 60] [euler|rk4, default euler]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mujoco/mujoco.h>

int main(int argc, char **argv) {
	int rate = argc > 1 ? atoi(argv[1]) : 60;
	const char *integ = argc > 2 ? argv[2] : "Euler";
	if (!strcmp(integ, "rk4")) integ = "RK4";
	if (!strcmp(integ, "euler")) integ = "Euler";
	char xml[16384], *p = xml;
	p += sprintf(p, "<mujoco><option timestep=\"%.17g\" gravity=\"0 0 -9.81\" integrator=\"%s\">"
	                "<flag energy=\"enable\" contact=\"disable\"/></option><worldbody>", 1.0 / rate, integ);
	for (int i = 0; i < 10; i++)
		p += sprintf(p, "<body pos=\"%s\"><joint type=\"ball\" pos=\"0 0 0\" damping=\"0\"/>"
		                "<geom type=\"capsule\" fromto=\"0 0 0 0.2 0 0\" size=\"0.03\" mass=\"0.1\" contype=\"0\" conaffinity=\"0\"/>",
		             i ? "0.2 0 0" : "0 0 3");
	for (int i = 0; i < 10; i++)
		p += sprintf(p, "</body>");
	p += sprintf(p, "</worldbody></mujoco>");
	char err[1000];
	FILE *f = fopen("/tmp/mujoco_chain.xml", "w");
	fputs(xml, f);
	fclose(f);
	mjModel *m = mj_loadXML("/tmp/mujoco_chain.xml", 0, err, sizeof err);
	if (!m) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	mjData *d = mj_makeData(m);
	mj_forward(m, d);
	double e0 = d->energy[0] + d->energy[1];
	for (int s = 1; s <= 5 * rate; s++) {
		mj_step(m, d);
		if (s % rate == 0) {
			mj_forward(m, d);
			double e = d->energy[0] + d->energy[1];
			printf("t = %d s: lost %.3f J (%.1f %% of 9.81 J)\n", s / rate, e0 - e, 100 * (e0 - e) / 9.81);
		}
	}
	mj_deleteData(d);
	mj_deleteModel(m);
	return 0;
}
