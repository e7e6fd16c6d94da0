/*
 * progress.c: --progress status lines, and the signals that ask for one
 * (SIGUSR1) or end the tool (SIGINT, SIGTERM, SIGHUP).  See splice.h.
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
 * reach the tool's thread.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "splice.h"

/* The --progress settings, and what the lines so far left behind. */
static struct {
	bool on;		/* a line every interval, and a last one */
	bool numeric;		/* bare numbers, one a line */
	bool tty;		/* stderr is a terminal: \r, and one line redrawn */
	const char *name;
	double interval;
	double next_tick;	/* now_seconds() when the next line is due */
	uint64_t prev_bytes;	/* at the last timed line, for the current rate */
	double prev_secs;
	size_t open_len;	/* > 0: a \r line of that many columns is on the terminal */
	bool finished;		/* report_totals() ran */
	void (*ending_hook)(void);
} prog;

/* Serializes the lines of the tool's thread and of the watcher. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* A tool's own group at the end of each line (progress_extra()), or NULL. */
static size_t (*extra_fields)(char *buf, size_t size);
/* The signals the watcher takes: those not ignored at start. */
static sigset_t watched;

/* A size as dd prints it: "1.1 GB", "977 KiB", "512 B". */
static void
human(char *buf, size_t size, double v, bool iec)
{
	static const char *const si[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };
	static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double base = iec ? 1024 : 1000;
	int u = 0;

	while (u < 6 && v >= base - 0.5) {	/* "1000 kB" is "1.0 MB" */
		v /= base;
		u++;
	}
	if (u > 0 && v < 9.95)
		snprintf(buf, size, "%.1f %s", v, iec ? bin[u] : si[u]);
	else
		snprintf(buf, size, "%.0f %s", v, iec ? bin[u] : si[u]);
}

/* Whole seconds as H:MM:SS. */
static void
clock_text(char *buf, size_t size, double secs)
{
	unsigned long long s = secs < 1e12 ? (unsigned long long)(secs + 0.5) : 0;

	snprintf(buf, size, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
}

/*
 * The status line: "[NAME: ]N bytes (SI, IEC) copied, T s, R/s, avg A/s"
 * and, when the total is known, ", P%, ETA H:MM:SS".  dd's first part,
 * pv's rates and estimate.
 */
static size_t
format_line(char *line, size_t size, uint64_t bytes, double secs, double rate_now)
{
	uint64_t total = account_total();
	double avg = secs > 0 ? (double)bytes / secs : 0;
	char si[16], iec[16], now_text[16], avg_text[16];
	size_t n = 0;

#define ADD(...) n += (size_t)snprintf(line + n, n < size ? size - n : 0, __VA_ARGS__)
	if (prog.name)
		ADD("%s: ", prog.name);
	ADD("%llu byte%s", (unsigned long long)bytes, bytes == 1 ? "" : "s");
	if (bytes >= 1000) {
		human(si, sizeof(si), (double)bytes, false);
		human(iec, sizeof(iec), (double)bytes, true);
		ADD(" (%s, %s)", si, iec);
	}
	human(now_text, sizeof(now_text), rate_now, false);
	human(avg_text, sizeof(avg_text), avg, false);
	ADD(" copied, %.2f s, %s/s, avg %s/s", secs, now_text, avg_text);
	if (total != TO_EOF) {
		double part = total ? (double)bytes / (double)total : 1;

		ADD(", %d%%", part >= 1 ? 100 : (int)(part * 100));
		if (part < 1 && avg > 0) {
			char eta[32];

			clock_text(eta, sizeof(eta), (double)(total - bytes) / avg);
			ADD(", ETA %s", eta);
		} else if (part >= 1)
			ADD(", ETA 0:00:00");
	}
	if (extra_fields) {
		ADD(", ");
		n += extra_fields(line + n, n < size ? size - n : 0);
	}
#undef ADD
	return n < size ? n : size - 1;
}

/* Columns of the terminal on stderr, 80 if it will not say. */
static size_t
tty_columns(void)
{
	struct winsize ws;

	return ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col : 80;
}

enum line_kind {
	LINE_TIMED,		/* every interval: redrawn in place on a terminal */
	LINE_KEPT,		/* SIGUSR1, the last one: always ends with a newline */
};

/* Prints a status line now; the caller holds the lock. */
static void
print_status(enum line_kind kind)
{
	uint64_t bytes = account_bytes();
	double secs = elapsed_seconds(), rate_now;
	char line[512], out[600];
	size_t n, len;

	if (secs < prog.prev_secs) {
		/* restart_rate_clock(): the counting starts over. */
		prog.prev_secs = 0;
		prog.prev_bytes = 0;
	}
	rate_now = secs > prog.prev_secs && bytes >= prog.prev_bytes ?
	    (double)(bytes - prog.prev_bytes) / (secs - prog.prev_secs) : 0;
	if (kind == LINE_TIMED) {
		prog.prev_secs = secs;
		prog.prev_bytes = bytes;
	}

	if (prog.numeric) {
		uint64_t total = account_total();

		if (total == TO_EOF)
			n = (size_t)snprintf(out, sizeof(out), "%llu\n", (unsigned long long)bytes);
		else
			n = (size_t)snprintf(out, sizeof(out), "%d\n", total == 0 ||
			    bytes >= total ? 100 : (int)((double)bytes * 100 / (double)total));
	} else if (!prog.tty) {
		n = format_line(out, sizeof(out) - 1, bytes, secs, rate_now);
		out[n++] = '\n';
	} else {
		len = format_line(line, sizeof(line), bytes, secs, rate_now);
		/* A line that wraps could not be drawn over with \r. */
		if (len > tty_columns() - 1)
			len = tty_columns() - 1;
		/* Blanks cover what a longer line before left. */
		n = (size_t)snprintf(out, sizeof(out), "\r%.*s%*s%s", (int)len, line,
		    prog.open_len > len ? (int)(prog.open_len - len) : 0, "",
		    kind == LINE_TIMED ? "" : "\n");
		if (n >= sizeof(out))
			n = sizeof(out) - 1;
		prog.open_len = kind == LINE_TIMED ? len : 0;
	}
	if (write(STDERR_FILENO, out, n) < 0) {
		/* stderr is gone: nowhere left to say so. */
	}
}

/* Seconds the watcher may sleep before the next timed line. */
static double
next_wait(void)
{
	double wait = 1;

	pthread_mutex_lock(&lock);
	if (prog.on && !prog.finished)
		wait = prog.next_tick - now_seconds();
	pthread_mutex_unlock(&lock);
	return wait;
}

static void
tick(void)
{
	double now;

	pthread_mutex_lock(&lock);
	now = now_seconds();
	if (prog.on && !prog.finished && now >= prog.next_tick) {
		print_status(LINE_TIMED);
		/* On the interval's grid; a late wake-up skips, it does not crowd. */
		prog.next_tick += prog.interval;
		if (prog.next_tick <= now)
			prog.next_tick = now + prog.interval;
	}
	pthread_mutex_unlock(&lock);
}

/* The last status line and the -v totals, once; the caller holds the lock. */
static void
print_totals(void)
{
	if (prog.finished)
		return;
	prog.finished = true;
	if (prog.on)
		print_status(LINE_KEPT);
	report_methods();
}

/*
 * SIGINT, SIGTERM or SIGHUP: the last words, then the signal's own death.
 * The lock is kept to the end: a tool's thread that reaches report_totals()
 * meanwhile waits there instead of exiting with a status of its own.
 */
static noreturn void
end_by_signal(int sig)
{
	sigset_t one;

	pthread_mutex_lock(&lock);
	if (prog.ending_hook)
		prog.ending_hook();
	print_totals();
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

		if (wait <= 0) {
			tick();
			continue;
		}
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
		sig = sigtimedwait(&watched, NULL, &ts);
		if (sig < 0) {
			/* EAGAIN: the time is up.  (EINTR cannot be: all blocked.) */
			tick();
		} else if (sig == SIGUSR1) {
			pthread_mutex_lock(&lock);
			print_status(LINE_KEPT);
			pthread_mutex_unlock(&lock);
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

void
account_start(const struct common_opts *c, enum progress_count count)
{
	pthread_mutex_lock(&lock);
	account_reset(c->verbose, count, c->rate_limit);
	prog = (__typeof__(prog)){
		.on = c->progress,
		.numeric = c->numeric,
		.tty = isatty(STDERR_FILENO),
		.name = c->name,
		.interval = c->interval_secs > 0 ? c->interval_secs : 1,
	};
	prog.next_tick = now_seconds() + prog.interval;
	pthread_mutex_unlock(&lock);
	watcher_start();
}

void
progress_extra(size_t (*fields)(char *buf, size_t size))
{
	pthread_mutex_lock(&lock);
	extra_fields = fields;
	pthread_mutex_unlock(&lock);
}

void
progress_size_text(char *buf, size_t size, double bytes)
{
	human(buf, size, bytes, false);
}

void
on_ending_signal(void (*hook)(void))
{
	pthread_mutex_lock(&lock);
	prog.ending_hook = hook;
	pthread_mutex_unlock(&lock);
}

void
report_totals(void)
{
	pthread_mutex_lock(&lock);
	print_totals();
	pthread_mutex_unlock(&lock);
}
