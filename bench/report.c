/*
 * bench/report.c: the rows.  The median GiB/s of a case's runs, their range
 * and the median CPU seconds per GiB, as a text table or as CSV, for the
 * default table and for the sweep.
 */
#include <stdio.h>
#include <stdlib.h>

#include "splice.h"
#include "bench.h"

static int
compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), compare_doubles);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct summary
summarize(const struct result *r)
{
	struct summary m = { 0, 0, 0, 0 };

	if (r->failed)
		return m;
	m.lo = m.hi = r->gib_s[0];
	for (int i = 1; i < r->runs; i++) {
		m.lo = r->gib_s[i] < m.lo ? r->gib_s[i] : m.lo;
		m.hi = r->gib_s[i] > m.hi ? r->gib_s[i] : m.hi;
	}
	m.med = median(r->gib_s, r->runs);
	m.cpu = median(r->cpu_s_gib, r->runs);
	return m;
}

void
print_table_header(bool csv)
{
	if (csv)
		out_printf("case,pipe_bytes,bytes_per_run,runs,gib_s,gib_s_min,gib_s_max,"
		    "cpu_s_per_gib,ratio_rw,verified\n");
	else
		out_printf("%-17s %6s %8s %7s %7s %9s %6s  %-8s %s\n", "case", "pipe", "GiB/s",
		    "min", "max", "CPU s/GiB", "x rw", "data", "method");
}

void
print_row(const struct bench_case *bc, const struct result *r, double baseline, bool csv)
{
	struct summary m = summarize(r);
	double med = m.med, lo = m.lo, hi = m.hi, cpu = m.cpu;
	char pipe[24] = "-", ratio[24] = "-";

	if (bc->pipe != NO_PIPE && r->cap)
		snprintf(pipe, sizeof(pipe), "%zuK", r->cap / 1024);
	if (baseline > 0 && !r->failed)
		snprintf(ratio, sizeof(ratio), "%.2f", med / baseline);
	if (csv) {
		out_printf("%s,%zu,%llu,%d,%.3f,%.3f,%.3f,%.3f,%s,%s\n", bc->name,
		    bc->pipe != NO_PIPE ? r->cap : 0, (unsigned long long)r->run_bytes,
		    r->runs, med, lo, hi, cpu, baseline > 0 && !r->failed ? ratio : "",
		    r->failed ? "FAIL" : "yes");
	} else if (r->failed) {
		out_printf("%-17s %6s %8s %7s %7s %9s %6s  %-8s %s\n", bc->name, pipe, "-", "-",
		    "-", "-", "-", "FAIL", bc->what);
	} else {
		out_printf("%-17s %6s %8.2f %7.2f %7.2f %9.3f %6s  %-8s %s\n", bc->name, pipe, med,
		    lo, hi, cpu, ratio, "yes", bc->what);
	}
}

void
print_sweep_header(bool csv)
{
	if (csv)
		out_printf("case,pipe_bytes,request_bytes,bytes_per_run,runs,gib_s,gib_s_min,"
		    "gib_s_max,cpu_s_per_gib,ratio_fixed,verified,note,socket_bytes,more\n");
	else
		out_printf("%-17s %7s %8s %6s %6s %8s %7s %7s %9s %7s  %-4s %s\n", "case", "pipe",
		    "request", "socket", "more", "GiB/s", "min", "max", "CPU s/GiB", "x fixed",
		    "data", "note");
}

/* What tu's runs asked for per call, its socket buffers and SPLICE_F_MORE, as text. */
static void
tuning_words(const struct bench_case *bc, const struct tuning *tu, size_t cap, size_t *req,
    char sock[24], const char **more)
{
	static const char *const mores[] = { "full", "off", "always" };

	if (bc->flags & SENDFILE_REQUESTS)
		*req = tu->req_bytes ? tu->req_bytes : SENDFILE_CALL_BYTES;
	else
		*req = tu->req_bytes && tu->req_bytes < cap ? tu->req_bytes : cap;
	if (!over_tcp(bc))
		snprintf(sock, 24, "-");
	else if (tu->sock_bytes)
		snprintf(sock, 24, "%zuK", tu->sock_bytes / 1024);
	else
		snprintf(sock, 24, "auto");
	*more = bc->flags & SPLICES_TO_TCP ? mores[tu->more] : "-";
}

void
print_sweep_row(const struct bench_case *bc, const struct tuning *tu, const struct result *r,
    double fixed_med, const char *mark, bool csv)
{
	struct summary m = summarize(r);
	size_t req;
	char ratio[24] = "", sock[24];
	const char *more;

	tuning_words(bc, tu, r->cap, &req, sock, &more);
	if (fixed_med > 0 && !r->failed)
		snprintf(ratio, sizeof(ratio), "%.2f", m.med / fixed_med);
	if (csv)
		out_printf("%s,%zu,%zu,%llu,%d,%.3f,%.3f,%.3f,%.3f,%s,%s,%s,%zu,%s\n", bc->name,
		    r->cap, req, (unsigned long long)r->run_bytes, r->runs, m.med, m.lo, m.hi,
		    m.cpu, ratio, r->failed ? "FAIL" : "yes", mark, tu->sock_bytes, more);
	else if (r->failed)
		out_printf("%-17s %6zuK %7zuK %6s %6s %8s %7s %7s %9s %7s  %-4s %s\n", bc->name,
		    r->cap / 1024, req / 1024, sock, more, "-", "-", "-", "-", "-", "FAIL", mark);
	else
		out_printf("%-17s %6zuK %7zuK %6s %6s %8.2f %7.2f %7.2f %9.3f %7s  %-4s %s\n",
		    bc->name, r->cap / 1024, req / 1024, sock, more, m.med, m.lo, m.hi, m.cpu,
		    ratio, "yes", mark);
}
