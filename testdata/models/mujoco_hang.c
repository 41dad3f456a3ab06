/* mujoco_hang steps a MuJoCo model from a keyframe and prints what the
 * import tests compare with (TestMJCFArm7Hanging, TestMJCFQuadruped): the
 * total mass, each body's mass, centre of mass and world inertia at the
 * start, and after STEPS steps each joint's qpos minus the key's qpos,
 * the bodies' centres of mass and the contacts.
 *
 *   cc -O2 -o mujoco_hang testdata/models/mujoco_hang.c -lmujoco -lm
 *   ./mujoco_hang testdata/models/arm7.xml home 500 0   # actuation disabled
 *   ./mujoco_hang testdata/models/quadruped/scene.xml home 1000 1
 *
 * KEY "" starts from qpos0. MuJoCo 2.2.2 (Debian's libmujoco-dev) gave
 * the numbers in the tests; the project's tests do not need it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mujoco/mujoco.h>

int main(int argc, char **argv) {
	if (argc < 4) {
		fprintf(stderr, "usage: mujoco_hang MODEL KEY STEPS [ACTUATION 0|1]\n");
		return 2;
	}
	char err[1000];
	mjModel *m = mj_loadXML(argv[1], NULL, err, sizeof err);
	if (!m) {
		fprintf(stderr, "load: %s\n", err);
		return 1;
	}
	int steps = atoi(argv[3]);
	if (argc > 4 && !atoi(argv[4]))
		m->opt.disableflags |= mjDSBL_ACTUATION;
	mjData *d = mj_makeData(m);
	int k = strlen(argv[2]) ? mj_name2id(m, mjOBJ_KEY, argv[2]) : -1;
	if (strlen(argv[2]) && k < 0) {
		fprintf(stderr, "no keyframe %s\n", argv[2]);
		return 1;
	}
	if (k >= 0)
		mj_resetDataKeyframe(m, d, k);
	else
		mj_resetData(m, d);
	mj_forward(m, d);
	printf("timestep %g total_mass %.12g nbody %d njnt %d nq %d\n", m->opt.timestep, mj_getTotalmass(m), m->nbody, m->njnt, m->nq);
	for (int b = 1; b < m->nbody; b++) {
		const mjtNum *R = d->ximat + 9 * b, *I = m->body_inertia + 3 * b;
		mjtNum W[9];
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++) {
				W[3 * r + c] = 0;
				for (int j = 0; j < 3; j++)
					W[3 * r + c] += R[3 * r + j] * I[j] * R[3 * c + j];
			}
		printf("body %s mass %.12g com %.12g %.12g %.12g inertia %.12g %.12g %.12g %.12g %.12g %.12g\n",
		       mj_id2name(m, mjOBJ_BODY, b), m->body_mass[b], d->xipos[3 * b], d->xipos[3 * b + 1], d->xipos[3 * b + 2],
		       W[0], W[4], W[8], W[1], W[2], W[5]);
	}
	for (int i = 0; i < steps; i++)
		mj_step(m, d);
	printf("t %.6f\n", d->time);
	for (int j = 0; j < m->njnt; j++) {
		int a = m->jnt_qposadr[j];
		mjtNum q0 = k >= 0 ? m->key_qpos[k * m->nq + a] : m->qpos0[a];
		printf("joint %s qpos %.12f dq %.9e\n", mj_id2name(m, mjOBJ_JOINT, j), d->qpos[a], d->qpos[a] - q0);
	}
	for (int b = 1; b < m->nbody; b++)
		printf("com %s %.9g %.9g %.9g\n", mj_id2name(m, mjOBJ_BODY, b), d->xipos[3 * b], d->xipos[3 * b + 1], d->xipos[3 * b + 2]);
	for (int c = 0; c < d->ncon; c++)
		printf("contact geoms %d %d dist %.6g\n", d->contact[c].geom1, d->contact[c].geom2, d->contact[c].dist);
	return 0;
}
