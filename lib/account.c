/*
 * account.c: accounting: bytes per method, -v totals and the -L rate limit.
 * See splice.h, internal.h.
 *
 * The tool's thread counts; the progress thread (lib/progress.c) reads the
 * counters at any moment, so they are atomic.  Only the counting thread
 * writes them, so relaxed order is enough: a status line may be a call
 * behind, never torn.
 */
#include <stdatomic.h>

#include "internal.h"

/* What account_reset() was told; the tool's one transfer. */
static struct {
	int verbose;
	enum progress_count count;
	uint64_t rate;		/* -L: bytes a second, 0 = none */
	double rate_origin;	/* when the first byte was counted, under -L */
	uint64_t rate_bytes;	/* what -L has counted */
	bool total_given;	/* --size: account_set_total() changes nothing */
} acct;

static _Atomic double start_secs = -1;	/* now_seconds() when the rates start */
static _Atomic uint64_t method_bytes[M_COUNT];
static _Atomic uint64_t total_bytes;
static _Atomic uint64_t total_known = TO_EOF;

static const char *const method_names[M_COUNT] = {
	[M_SPLICE] = "splice(2)",
	[M_SPLICE_PIPE] = "splice(2) through a pipe",
	[M_COPY_RANGE] = "copy_file_range(2)",
	[M_CLONE] = "FICLONE",
	[M_SENDFILE] = "sendfile(2)",
	[M_TEE] = "tee(2)",
	[M_VMSPLICE] = "vmsplice(2)",
	[M_READ_WRITE] = "read(2)/write(2)",
};

void
account_reset(int verbose, enum progress_count count, uint64_t rate, uint64_t total)
{
	acct.verbose = verbose;
	acct.count = count;
	acct.rate = rate;
	acct.rate_origin = -1;
	acct.rate_bytes = 0;
	acct.total_given = false;
	for (int m = 0; m < M_COUNT; m++)
		atomic_store_explicit(&method_bytes[m], 0, memory_order_relaxed);
	atomic_store_explicit(&total_bytes, 0, memory_order_relaxed);
	account_set_exact_total(total);
	acct.total_given = total != TO_EOF;
	restart_rate_clock();
}

void
restart_rate_clock(void)
{
	atomic_store_explicit(&start_secs, now_seconds(), memory_order_relaxed);
}

double
elapsed_seconds(void)
{
	double start = atomic_load_explicit(&start_secs, memory_order_relaxed);

	return start < 0 ? 0 : now_seconds() - start;
}

/*
 * -L: the bytes counted so far are due at rate_origin + total / rate; sleep
 * until then.  The deadline is absolute, so the sleeps' overshoot does not
 * add up, and the clock starts at the first byte, not at a connect(2) or
 * an accept(2) before it.  The first call moves at once and is paid for by
 * the sleep after it: the transfer never runs ahead of the rate.
 */
static void
hold_rate(uint64_t total)
{
	double now;

	if (acct.rate == 0)
		return;
	now = now_seconds();
	if (acct.rate_origin < 0)
		acct.rate_origin = now;
	sleep_seconds(acct.rate_origin + (double)total / (double)acct.rate - now);
}

/*
 * One more chunk of what --progress and -L count.  Under -L it shows once
 * it is due: the status line never runs ahead of the rate, and the last
 * bytes show when the transfer ends, not a sleep before.
 */
static void
count_bytes(uint64_t n)
{
	acct.rate_bytes += n;
	hold_rate(acct.rate_bytes);
	atomic_fetch_add_explicit(&total_bytes, n, memory_order_relaxed);
}

void
account(enum xfer_method m, uint64_t n)
{
	atomic_fetch_add_explicit(&method_bytes[m], n, memory_order_relaxed);
	if (acct.count == COUNT_MOVED)
		count_bytes(n);
}

void
account_input(uint64_t n)
{
	if (acct.count == COUNT_INPUT)
		count_bytes(n);
}

void
account_holes(uint64_t n)
{
	if (acct.count == COUNT_MOVED)
		atomic_fetch_add_explicit(&total_bytes, n, memory_order_relaxed);
}

uint64_t
account_bytes(void)
{
	return atomic_load_explicit(&total_bytes, memory_order_relaxed);
}

void
account_set_total(uint64_t bytes)
{
	if (acct.total_given)
		return;
	/* procfs's files claim a size of 0, whatever they hold. */
	atomic_store_explicit(&total_known, bytes ? bytes : TO_EOF, memory_order_relaxed);
}

/* A size the user gave (vmsplice -s, --size): 0 bytes is nothing to do, all done. */
void
account_set_exact_total(uint64_t bytes)
{
	if (acct.total_given)
		return;
	atomic_store_explicit(&total_known, bytes, memory_order_relaxed);
}

uint64_t
account_total(void)
{
	return atomic_load_explicit(&total_known, memory_order_relaxed);
}

void
report_methods(void)
{
	double secs = elapsed_seconds();
	uint64_t input = account_bytes(), written = 0;

	if (!acct.verbose)
		return;
	for (int m = 0; m < M_COUNT; m++)
		written += atomic_load_explicit(&method_bytes[m], memory_order_relaxed);
	/*
	 * Counted by the input (splice-tee), the methods count every output:
	 * the rate is the input's, said once, and the methods only their bytes.
	 */
	if (acct.count == COUNT_INPUT && written > 0)
		note("%llu bytes read in %.3f s (%.1f MiB/s)", (unsigned long long)input, secs,
		    secs > 0 ? (double)input / 1048576.0 / secs : 0.0);
	for (int m = 0; m < M_COUNT; m++) {
		uint64_t n = atomic_load_explicit(&method_bytes[m], memory_order_relaxed);

		if (n == 0)
			continue;
		/* The tool once, then the method: "vmsplice: N bytes by vmsplice(2) in ...". */
		if (acct.count == COUNT_INPUT)
			note("%llu bytes written by %s", (unsigned long long)n, method_names[m]);
		else
			note("%llu bytes by %s in %.3f s (%.1f MiB/s)", (unsigned long long)n,
			    method_names[m], secs, secs > 0 ? (double)n / 1048576.0 / secs : 0.0);
	}
	if (input == 0)
		note("0 bytes moved");
}
