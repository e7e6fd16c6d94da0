/*
 * clock.c: monotonic time, for rates, deadlines and timeouts.  See splice.h,
 * internal.h.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "internal.h"

double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
sleep_seconds(double secs)
{
	struct timespec ts;

	if (secs <= 0)
		return;
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

bool
lock_until(pthread_mutex_t *m, double deadline)
{
	struct timespec ts;
	double wait;

	if (deadline < 0)
		return pthread_mutex_lock(m) == 0;
	/* pthread_mutex_timedlock() counts on CLOCK_REALTIME. */
	wait = deadline - now_seconds();
	if (wait < 0)
		wait = 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)wait;
	ts.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (pthread_mutex_timedlock(m, &ts) != 0)
		if (now_seconds() >= deadline)
			return false;
	return true;
}
