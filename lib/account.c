/*
 * account.c: accounting: bytes per method, -v totals, --progress, the clock.  See splice.h.
 */
#include <stdio.h>
#include <time.h>

#include "splice.h"

static struct timespec start_time;
static double rate_start;	/* seconds after start_time; see restart_rate_clock() */

void
account_clock_start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &start_time);
}

static uint64_t method_bytes[M_COUNT];
static uint64_t total_bytes;
static double last_progress;
static bool progress_shown;

static const char *const method_names[M_COUNT] = {
	[M_SPLICE] = "splice",
	[M_SPLICE_PIPE] = "splice via pipe",
	[M_COPY_RANGE] = "copy_file_range",
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

double
elapsed_seconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start_time.tv_sec) +
	    (double)(now.tv_nsec - start_time.tv_nsec) / 1e9;
}

void
restart_rate_clock(void)
{
	rate_start = elapsed_seconds();
	last_progress = rate_start;
}

static void
print_progress(char end)
{
	double secs = elapsed_seconds() - rate_start;

	/* dd's status=progress line. */
	fprintf(stderr, "\r%llu bytes (%.1f MB, %.1f MiB) copied, %.0f s, %.1f MB/s%c",
	    (unsigned long long)total_bytes, (double)total_bytes / 1e6,
	    (double)total_bytes / 1048576.0, secs,
	    secs > 0 ? (double)total_bytes / 1e6 / secs : 0.0, end);
	progress_shown = true;
}

static bool input_counted;	/* see account_input() */

static void progress_tick(void);

void
account(enum xfer_method m, uint64_t n)
{
	method_bytes[m] += n;
	if (!input_counted)
		total_bytes += n;
	progress_tick();
}

void
account_input(uint64_t n)
{
	input_counted = true;
	total_bytes += n;
	progress_tick();
}

static void
progress_tick(void)
{
	if (common.progress) {
		double now = elapsed_seconds();

		if (now - last_progress >= 1.0) {
			last_progress = now;
			print_progress(' ');
		}
	}
}

void
report_totals(void)
{
	double secs = elapsed_seconds() - rate_start;

	if (common.progress)
		print_progress('\n');
	if (!common.verbose)
		return;
	for (int m = 0; m < M_COUNT; m++) {
		if (method_bytes[m] == 0)
			continue;
		warn_msg("%s: %llu bytes in %.3f s (%.1f MiB/s)", method_names[m],
		    (unsigned long long)method_bytes[m], secs,
		    secs > 0 ? (double)method_bytes[m] / 1048576.0 / secs : 0.0);
	}
	if (total_bytes == 0)
		warn_msg("0 bytes moved");
}
