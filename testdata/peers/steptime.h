/* steptime.h: the per-step timing and report shared by ode_scene.c and
 * mujoco_scene.c (gostep prints the same lines): a clock reading in ms and
 * the "NAME step1=… steady=… mean=…" line, steady being the median of the
 * second half of the steps. */
#ifndef PEERS_STEPTIME_H
#define PEERS_STEPTIME_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* clockms reads clock c (CLOCK_PROCESS_CPUTIME_ID, CLOCK_MONOTONIC) in ms. */
static inline double clockms(clockid_t c) {
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static inline int cmpdouble(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* report prints step 1, the median of the second half and the mean of the
 * steps' times v (ms); it sorts the second half of v. */
static inline void report(const char *name, double *v, int steps) {
	double mean = 0;
	for (int s = 0; s < steps; s++)
		mean += v[s] / steps;
	double first = v[0], *half = v + steps / 2;
	int n = steps - steps / 2;
	qsort(half, n, sizeof *half, cmpdouble);
	double med = n % 2 ? half[n / 2] : (half[n / 2 - 1] + half[n / 2]) / 2;
	printf("%s step1=%.4f steady=%.4f mean=%.4f\n", name, first, med, mean);
}

#endif
