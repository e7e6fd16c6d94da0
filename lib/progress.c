/*
 * progress.c: --progress status lines, when they are due and what they
 * count (their text: lib/status_line.c), and the signals that ask for one
 * (SIGUSR1) or end the tool (SIGINT, SIGTERM, SIGHUP); tool_start().  See
 * splice.h, internal.h.
 *
 * Why a thread: a status line is due every interval even while the tool
 * sits in a splice(2) that blocks for minutes, and the tool's own thread
 * cannot print then.  A timer signal could interrupt it, but only with
 * every engine ready for EINTR and short counts mid-call, and a handler
 * may not call snprintf() or take a lock.  So one watcher thread per
 * process sleeps in sigtimedwait(2): it wakes when a line is due, reads
 * the atomic counters of lib/account.c and prints; the ending signals and
 * SIGUSR1 are blocked in every other thread and taken here, so a signal
 * never interrupts a transfer, and the last line, the -v totals and
 * splice-bench's cleanup run in plain code before the signal is raised
 * again with its default action (the shell sees 128+N).  Every other
 * signal is blocked in the watcher: SIGPIPE, SIGALRM and the like still
 * reach the tool's thread.  The watcher never waits on stderr for more than
 * a moment (lib/term.c), nor for a lock that the tool's thread may hold
 * while it waits there: a stderr nobody reads cannot make the tool
 * unkillable.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/*
 * The ETA divides what is left by the rate of about the last window
 * (--average-rate-window, RATE_WINDOW_SECS unless told), not by the whole
 * run's average: a transfer that slowed down (a cache that filled, a -L of
 * another stage) is not promised the speed it had at the start.  The
 * window is kept as WINDOW_SAMPLES samples at least WINDOW_STEP_SECS
 * apart, whatever --interval is.
 */
#define RATE_WINDOW_SECS 10.0
#define WINDOW_SAMPLES 32
#define WINDOW_STEP_SECS (prog.window_secs * 2 / WINDOW_SAMPLES)
/*
 * How long the watcher waits for room on stderr: for a status line (it is
 * dropped after that), and for its last words once an ending signal came;
 * within a second the tool is gone, whatever its stderr does.
 */
#define LINE_WAIT_SECS 0.1
#define ENDING_WAIT_SECS 0.3

/* Bytes counted by a time, elapsed_seconds(). */
struct sample {
	double secs;
	uint64_t bytes;
};

/* The --progress settings, and what the lines so far left behind. */
static struct {
	bool on;		/* a line every interval, and a last one */
	bool numeric;		/* bare numbers, one a line */
	const char *name;
	double interval;
	double window_secs;	/* the ETA's rate is over the last window_secs */
	double next_tick;	/* now_seconds() when the next line is due */
	struct sample last, before_last;	/* at the last two timed lines */
	struct sample window[WINDOW_SAMPLES];	/* a ring, for the ETA's rate */
	size_t window_n, window_newest;
	bool total_skipped;	/* a timed line at the total was left to the last */
	bool numeric_printed;	/* --numeric printed numeric_last */
	uint64_t numeric_last;
	int fill_in, fill_out;	/* pipes whose fill level shows, or -1 */
	int fill_seen[2];	/* their levels last seen, or when closed; -1 none */
	struct status_group groups[STATUS_GROUPS_MAX];
	size_t ngroups;
	bool finished;		/* report_totals() ran */
	size_t fit_width;	/* the width the lines were fitted to */
	struct status_fit fit;	/* what the lines at that width left out */
	uint64_t widest_total;	/* the largest total a line showed, 0 none */
	void (*summary)(void);	/* on_totals() */
} prog = { .fill_in = -1, .fill_out = -1, .fill_seen = { -1, -1 } };

/* Called first on an ending signal; read without the lock, which may be held. */
static _Atomic(void (*)(void)) ending_hook;

/* Serializes the lines of the tool's thread and of the watcher. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* The signals the watcher takes: those not ignored at start. */
static sigset_t watched;

/* Bytes a second from a sample to now; 0 when no time passed. */
static double
rate_since(const struct sample *from, double secs, uint64_t bytes)
{
	return secs > from->secs && bytes >= from->bytes ?
	    (double)(bytes - from->bytes) / (secs - from->secs) : 0;
}

static void
window_add(double secs, uint64_t bytes)
{
	struct sample *newest = &prog.window[prog.window_newest];

	if (prog.window_n > 0 && secs - newest->secs < WINDOW_STEP_SECS)
		return;
	if (prog.window_n > 0)
		prog.window_newest = (prog.window_newest + 1) % WINDOW_SAMPLES;
	if (prog.window_n < WINDOW_SAMPLES)
		prog.window_n++;
	prog.window[prog.window_newest] = (struct sample){ secs, bytes };
}

/* The rate over the window: from its oldest sample still inside it, else its newest. */
static double
window_rate(double secs, uint64_t bytes)
{
	const struct sample *from = &prog.window[prog.window_newest];

	for (size_t i = 1; i < prog.window_n; i++) {
		const struct sample *s =
		    &prog.window[(prog.window_newest + WINDOW_SAMPLES - i) % WINDOW_SAMPLES];

		if (s->secs < secs - prog.window_secs)
			break;
		from = s;
	}
	return rate_since(from, secs, bytes);
}

/* The counting starts over: at account_start(), or after restart_rate_clock(). */
static void
samples_reset(void)
{
	prog.last = prog.before_last = (struct sample){ 0, 0 };
	prog.window_n = 0;
	prog.window_newest = 0;
	window_add(0, 0);
}

enum line_kind {
	LINE_TIMED,		/* every interval: redrawn in place on a terminal */
	LINE_ASKED,		/* SIGUSR1: kept */
	LINE_LAST,		/* the last one, after the transfer or on an ending signal */
};

/*
 * Prints a status line now; the caller holds the lock.  complete: the
 * tool ended without an error, so what it moved is the whole, whatever
 * a size said (sysfs's 4096, a file that grew or shrank, a --size).
 */
static void
print_status(enum line_kind kind, bool complete)
{
	uint64_t bytes = account_bytes(), total = account_total();
	double secs = elapsed_seconds(), rate_now, rate_recent;
	const struct status_look look = {
		.name = prog.name,
		.fill_in = prog.fill_in,
		.fill_out = prog.fill_out,
		.seen = prog.fill_seen,
		.groups = prog.groups,
		.ngroups = prog.ngroups,
	};
	const struct sample *from;
	char line[1024];
	size_t n;

	if (secs < prog.last.secs)
		samples_reset();	/* restart_rate_clock(): the counting starts over */
	if (kind == LINE_TIMED && total != TO_EOF && bytes == total && !prog.total_skipped) {
		/* The last line comes next: one at the total would be said twice. */
		prog.total_skipped = true;
		return;
	}
	/* The count keeps the width of the largest total, when it ends short of it too. */
	if (total != TO_EOF && total >= bytes && total > prog.widest_total)
		prog.widest_total = total;
	if (complete && total != TO_EOF)
		total = bytes;
	/* Just after a timed line (the last line, SIGUSR1), the one before says more. */
	from = secs - prog.last.secs >= prog.interval / 2 ? &prog.last : &prog.before_last;
	rate_now = rate_since(from, secs, bytes);
	rate_recent = window_rate(secs, bytes);
	if (kind == LINE_TIMED) {
		prog.before_last = prog.last;
		prog.last = (struct sample){ secs, bytes };
		window_add(secs, bytes);
	}

	if (prog.numeric) {
		uint64_t value = total == TO_EOF ? bytes : total == 0 || bytes >= total ? 100 :
		    (uint64_t)((double)bytes * 100 / (double)total);

		/* The count of a timed line at the end is not said again. */
		if (kind == LINE_LAST && prog.numeric_printed && value == prog.numeric_last)
			return;
		prog.numeric_printed = true;
		prog.numeric_last = value;
		n = (size_t)snprintf(line, sizeof(line), "%llu\n", (unsigned long long)value);
		term_print(line, n);
		return;
	}
	/* On a terminal, a line that fits: one column is left for the cursor. */
	n = term_columns();
	n = n > 1 ? n - 1 : n;
	if (n != prog.fit_width) {
		prog.fit_width = n;
		prog.fit = (struct status_fit){ 0, 0 };	/* another width: seen again */
	}
	n = status_line_format(line, sizeof(line), &look, &(struct status_count){
		.bytes = bytes, .total = total, .secs = secs, .rate_now = rate_now,
		.rate_recent = rate_recent, .last = kind == LINE_LAST,
		.widest_total = prog.widest_total,
	    }, n, &prog.fit);
	term_status(line, n, kind != LINE_TIMED);
}

/* Seconds the watcher may sleep before the next timed line. */
static double
next_wait(void)
{
	double wait = 1;

	if (!lock_until(&lock, now_seconds() + LINE_WAIT_SECS))
		return LINE_WAIT_SECS;	/* the tool's thread waits on stderr */
	if (prog.on && !prog.finished)
		wait = prog.next_tick - now_seconds();
	pthread_mutex_unlock(&lock);
	return wait;
}

static void
tick(void)
{
	double now = now_seconds();

	if (!lock_until(&lock, now + LINE_WAIT_SECS))
		return;
	if (prog.on && !prog.finished && now >= prog.next_tick) {
		print_status(LINE_TIMED, false);
		/*
		 * On the interval's grid; a late wake-up, or a line that waited
		 * for stderr, skips lines, it does not crowd them.
		 */
		prog.next_tick += prog.interval;
		now = now_seconds();
		if (prog.next_tick <= now)
			prog.next_tick = now + prog.interval;
	}
	pthread_mutex_unlock(&lock);
}

/* The last status line and the -v totals, once; the caller holds the lock. */
static void
print_totals(bool complete)
{
	if (prog.finished)
		return;
	prog.finished = true;
	if (prog.on)
		print_status(LINE_LAST, complete);
	report_methods();
	if (prog.summary)
		prog.summary();
}

/*
 * SIGINT, SIGTERM or SIGHUP: the last words, then the signal's own death.
 * The lock is kept to the end: a tool's thread that reaches report_totals()
 * meanwhile waits there instead of exiting with a status of its own.  The
 * words are best effort: a stderr that takes nothing for ENDING_WAIT_SECS,
 * or a tool's thread that holds the lock as long (waiting on that stderr),
 * leaves them unsaid.
 */
static noreturn void
end_by_signal(int sig)
{
	double deadline = now_seconds() + ENDING_WAIT_SECS;
	void (*hook)(void) = atomic_load(&ending_hook);
	sigset_t one;

	term_deadline(deadline);
	if (lock_until(&lock, deadline)) {
		if (hook)
			hook();
		print_totals(false);
	} else if (hook)
		hook();
	term_end();
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	/* Not reached: the default action of sig ends the process.  (Not exit(): atexit.) */
	_exit(128 + sig);
}

static void *
watch(void *unused)
{
	(void)unused;
	for (;;) {
		double wait = next_wait();
		struct timespec ts;
		int sig;

		/* A line that is due still looks for a signal first: one may wait. */
		if (wait < 0)
			wait = 0;
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
		sig = sigtimedwait(&watched, NULL, &ts);
		term_deadline(now_seconds() + LINE_WAIT_SECS);
		if (sig < 0) {
			/* EAGAIN: the time is up.  (EINTR cannot be: all blocked.) */
			tick();
		} else if (sig == SIGUSR1) {
			if (lock_until(&lock, now_seconds() + LINE_WAIT_SECS)) {
				print_status(LINE_ASKED, false);
				pthread_mutex_unlock(&lock);
			}
		} else
			end_by_signal(sig);
	}
	return NULL;
}

/*
 * Once per process (the fuzz driver runs a tool's main() many times): the
 * watched signals blocked in the tool's thread, and the watcher, which
 * starts with every signal blocked and takes the watched ones itself.
 */
static void
watcher_start(void)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGTERM, SIGUSR1 };
	static bool started;
	pthread_attr_t attr;
	pthread_t thread;
	sigset_t all, old;
	int err;

	if (started)
		return;
	started = true;
	sigemptyset(&watched);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa;

		/* nohup, a background job, tee -i: ignored stays ignored. */
		if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
			sigaddset(&watched, sigs[i]);
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&thread, &attr, watch, NULL);
	pthread_attr_destroy(&attr);
	if (err == 0)
		sigorset(&old, &old, &watched);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0) {
		/* The transfer does not need it: the signals keep their defaults. */
		note("no progress thread: %s", strerror(err));
	}
}

/*
 * Starts a tool's transfer: account_reset() with c's verbose and rate
 * limit, the --progress settings of c, and (once per process) the watcher
 * thread, which prints a status line every interval, a status line on
 * SIGUSR1, and on SIGINT, SIGTERM or SIGHUP calls the hook set by
 * on_ending_signal(), then report_totals(), then dies of the signal.
 * Signals ignored when the tool started stay ignored.
 */
static void
account_start(const struct common_opts *c, enum progress_count count)
{
	pthread_mutex_lock(&lock);
	account_reset(c->verbose, count, c->rate_limit, c->size_given ? c->size_bytes : TO_EOF);
	prog = (__typeof__(prog)){
		.on = c->progress,
		.numeric = c->numeric,
		.name = c->name,
		.interval = c->interval_secs > 0 ? c->interval_secs : 1,
		.window_secs = c->window_secs > 0 ? c->window_secs : RATE_WINDOW_SECS,
		.fill_in = -1,
		.fill_out = -1,
		.fill_seen = { -1, -1 },
	};
	samples_reset();
	prog.next_tick = now_seconds() + prog.interval;
	pthread_mutex_unlock(&lock);
	watcher_start();
}

unsigned int
tool_start(unsigned int needed, enum progress_count count)
{
	unsigned int closed = std_fds_fill(needed);

	/* Its open file of stderr must not land on a descriptor 0-2. */
	term_start();
	account_start(&common, count);
	return closed;
}

void
on_ending_signal(void (*hook)(void))
{
	atomic_store(&ending_hook, hook);
}

void
on_totals(void (*summary)(void))
{
	pthread_mutex_lock(&lock);
	prog.summary = summary;
	pthread_mutex_unlock(&lock);
}

void
status_pipes(int in, int out)
{
	pthread_mutex_lock(&lock);
	/* Another descriptor has a level of its own, or none; -1 keeps the last. */
	if (in != prog.fill_in)
		prog.fill_seen[0] = in >= 0 ? -1 : pipe_fill(prog.fill_in);
	if (out != prog.fill_out)
		prog.fill_seen[1] = out >= 0 ? -1 : pipe_fill(prog.fill_out);
	prog.fill_in = in >= 0 && fd_is_pipe(in) ? in : -1;
	prog.fill_out = out >= 0 && fd_is_pipe(out) ? out : -1;
	pthread_mutex_unlock(&lock);
}

int
status_group_add(const struct status_group *g)
{
	int r = -1;

	pthread_mutex_lock(&lock);
	if (prog.ngroups < STATUS_GROUPS_MAX) {
		prog.groups[prog.ngroups++] = *g;
		r = 0;
	}
	pthread_mutex_unlock(&lock);
	return r;
}

void
report_totals(void)
{
	pthread_mutex_lock(&lock);
	print_totals(exit_status() == 0);
	pthread_mutex_unlock(&lock);
}
