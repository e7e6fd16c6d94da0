/*
 * account.c: accounting: bytes per method, -v totals and --progress.
 * See splice.h.
 */
#include <stdio.h>

#include "splice.h"

/* What account_start() was told; the tool's one transfer. */
static struct {
	bool progress;
	int verbose;
	enum progress_count count;
	double start;		/* now_seconds() when the rates start */
	double last_progress;
} acct = { .start = -1 };

static uint64_t method_bytes[M_COUNT];
static uint64_t total_bytes;

static const char *const method_names[M_COUNT] = {
	[M_SPLICE] = "splice",
	[M_SPLICE_PIPE] = "splice via pipe",
	[M_COPY_RANGE] = "copy_file_range",
	[M_CLONE] = "FICLONE",
	[M_SENDFILE] = "sendfile",
	[M_TEE] = "tee",
	[M_VMSPLICE] = "vmsplice",
	[M_READ_WRITE] = "read/write",
};

const char *
method_name(enum xfer_method m)
{
	return method_names[m];
}

void
account_start(bool progress, int verbose, enum progress_count count)
{
	acct.progress = progress;
	acct.verbose = verbose;
	acct.count = count;
	restart_rate_clock();
}

void
restart_rate_clock(void)
{
	acct.start = now_seconds();
	acct.last_progress = acct.start;
}

double
elapsed_seconds(void)
{
	return acct.start < 0 ? 0 : now_seconds() - acct.start;
}

static void
print_progress(char end)
{
	double secs = elapsed_seconds();

	/* dd's status=progress line. */
	fprintf(stderr, "\r%llu bytes (%.1f MB, %.1f MiB) copied, %.0f s, %.1f MB/s%c",
	    (unsigned long long)total_bytes, (double)total_bytes / 1e6,
	    (double)total_bytes / 1048576.0, secs,
	    secs > 0 ? (double)total_bytes / 1e6 / secs : 0.0, end);
}

static void
progress_tick(void)
{
	double now;

	if (!acct.progress)
		return;
	now = now_seconds();
	if (now - acct.last_progress >= 1.0) {
		acct.last_progress = now;
		print_progress(' ');
	}
}

void
account(enum xfer_method m, uint64_t n)
{
	method_bytes[m] += n;
	if (acct.count == COUNT_MOVED)
		total_bytes += n;
	progress_tick();
}

void
account_input(uint64_t n)
{
	if (acct.count == COUNT_INPUT)
		total_bytes += n;
	progress_tick();
}

void
report_totals(void)
{
	double secs = elapsed_seconds();

	if (acct.progress)
		print_progress('\n');
	if (!acct.verbose)
		return;
	for (int m = 0; m < M_COUNT; m++) {
		if (method_bytes[m] == 0)
			continue;
		note("%s: %llu bytes in %.3f s (%.1f MiB/s)", method_names[m],
		    (unsigned long long)method_bytes[m], secs,
		    secs > 0 ? (double)method_bytes[m] / 1048576.0 / secs : 0.0);
	}
	if (total_bytes == 0)
		note("0 bytes moved");
}
