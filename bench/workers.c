/*
 * bench/workers.c: the processes of a run.  Each stage is a worker process,
 * forked with every descriptor the run tracks, keeping only its own; they
 * start together once all are ready, are reaped together, and are killed
 * together (end_workers()) when the tool ends on a signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "splice.h"
#include "bench.h"

/* The pipes and the listener of the run being wired: every worker closes the others'. */
static int tracked[8];
static int n_tracked;

void
track(int fd)
{
	tracked[n_tracked++] = fd;
}

void
close_tracked(void)
{
	while (n_tracked > 0)
		close(tracked[--n_tracked]);
}

/* The workers of the run in progress, for end_workers(). */
static pid_t workers[3];
/* Held while a worker is forked and recorded, and for good once they end. */
static pthread_mutex_t workers_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * SIGINT, SIGTERM or SIGHUP (lib/progress.c calls this on its thread, then
 * prints the totals and dies of the signal): no worker may outlive us, so
 * kill them and wait until they are dead.  They are left for run_workers() to
 * reap, which then stops at the lock, kept for good: no worker is forked,
 * and no failure reported, after this.
 */
void
end_workers(void)
{
	const size_t n = sizeof(workers) / sizeof(workers[0]);

	pthread_mutex_lock(&workers_lock);
	/*
	 * Every worker is killed before any is waited for: one may sleep
	 * uninterruptibly until another, which holds a lock it wants, is gone.
	 */
	for (size_t i = 0; i < n; i++)
		if (workers[i] > 0)
			kill(workers[i], SIGKILL);
	for (size_t i = 0; i < n; i++) {
		siginfo_t info;

		while (workers[i] > 0 &&
		    waitid(P_PID, (id_t)workers[i], &info, WEXITED | WNOWAIT) < 0 && errno == EINTR)
			;
	}
}

/*
 * The start of a run.  Each worker closes the descriptors it does not use,
 * says so on ready, and waits until go reads end of file: no worker starts
 * before every one holds only its own.  Otherwise a worker that still had
 * another's pipe open could sleep in close(2) on that pipe's lock while the
 * other sits in splice(2) holding it, waiting for it (a TCP receiver that
 * never gets to accept).
 */
struct gate {
	int ready[2], go[2];
};

static int
gate_make(struct gate *g)
{
	if (pipe2(g->ready, O_CLOEXEC) < 0) {
		warn_errno("pipe");
		return -1;
	}
	if (pipe2(g->go, O_CLOEXEC) < 0) {
		warn_errno("pipe");
		close(g->ready[0]);
		close(g->ready[1]);
		return -1;
	}
	return 0;
}

/* In a worker: its descriptors closed, wait for the others. */
static int
gate_pass(const struct gate *g)
{
	char c = 0;
	ssize_t r;

	close(g->ready[0]);
	close(g->go[1]);
	if (write_all(g->ready[1], &c, 1) < 0)
		return -1;
	close(g->ready[1]);
	while ((r = read(g->go[0], &c, 1)) < 0 && errno == EINTR)
		;
	close(g->go[0]);
	return r == 0 ? 0 : -1;
}

/* In the tool: once n workers are ready (or gone), let them all start, now. */
static double
gate_open(struct gate *g, int n)
{
	double start;
	char c[8];
	int ready = 0;

	close(g->ready[1]);
	while (ready < n) {
		ssize_t r = read(g->ready[0], c, sizeof(c));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;	/* a worker died before it was ready: the run fails */
		ready += (int)r;
	}
	close(g->ready[0]);
	start = now_seconds();
	close(g->go[1]);
	close(g->go[0]);
	return start;
}

static int
spawn(struct stage *s, int slot, const struct gate *g)
{
	pid_t tool = getpid();

	fflush(stdout);
	fflush(stderr);
	/* The pid is recorded before end_workers() can ask for it. */
	pthread_mutex_lock(&workers_lock);
	s->pid = fork();
	if (s->pid > 0)
		workers[slot] = s->pid;
	if (s->pid != 0)
		pthread_mutex_unlock(&workers_lock);
	if (s->pid < 0) {
		warn_errno("fork");
		return -1;
	}
	if (s->pid == 0) {
		/*
		 * A worker dies with the tool, whatever kills the tool.  The
		 * ending signals stay blocked, as in the tool's thread: the
		 * tool ends its workers itself.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != tool)
			_exit(EXIT_ERROR);
		for (int i = 0; i < n_tracked; i++)
			if (tracked[i] != s->in && tracked[i] != s->out)
				close(tracked[i]);
		if (gate_pass(g) < 0)
			_exit(EXIT_ERROR);
		_exit(s->fn(s) == 0 ? 0 : EXIT_ERROR);
	}
	return 0;
}

/*
 * Runs the n stages of st as workers, started together, waited for
 * together; closes what was tracked.  Stores wall seconds and the CPU seconds
 * of every process; -1 when any failed (it has said why).
 */
int
run_workers(struct stage *st, int n, double *wall, double *cpu)
{
	struct gate gate;
	int rval = 0;
	bool signalled = true;
	double start;

	if (gate_make(&gate) < 0) {
		close_tracked();
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (spawn(&st[i], i, &gate) < 0) {
			n = i;
			rval = -1;
			break;
		}
	close_tracked();
	start = gate_open(&gate, n);
	*cpu = 0;
	for (int i = 0; i < n; i++) {
		struct rusage ru;

		while (wait4(st[i].pid, &st[i].status, 0, &ru) < 0)
			if (errno != EINTR) {
				warn_errno("wait4");
				return -1;
			}
		pthread_mutex_lock(&workers_lock);
		workers[i] = 0;
		pthread_mutex_unlock(&workers_lock);
		*cpu += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		if (!WIFEXITED(st[i].status) || WEXITSTATUS(st[i].status) != 0)
			rval = -1;
	}
	*wall = now_seconds() - start;
	/* A process that failed has said why; the others may have died of SIGPIPE. */
	for (int i = 0; i < n; i++)
		if (WIFEXITED(st[i].status) && WEXITSTATUS(st[i].status) != 0)
			signalled = false;
	for (int i = 0; i < n && signalled; i++)
		if (WIFSIGNALED(st[i].status)) {
			warn_msg("%s: a process was killed by signal %d", st[i].bc->name,
			    WTERMSIG(st[i].status));
			break;
		}
	return rval;
}
