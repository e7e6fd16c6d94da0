/*
 * vmsplice-touser: read standard input into user memory with vmsplice(2),
 * which copies when its fd is a pipe's read end; check it against a
 * vmsplice pattern or a file, dump it, or count it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "splice.h"

/* vmsplice-touser's options, as --help lists them (the format: splice.h, lib/optspec.c). */
static const char options[] =
	"- verify PATTERN\tcheck the bytes against a vmsplice pattern,\n"
	"\t" PATTERN_NAMES ",\n"
	"\tand name the first wrong offset\n"
	"- compare FILE\tcheck the bytes against FILE; at the first difference\n"
	"\tsay where, as cmp - FILE does, and exit 1; exit 2 for\n"
	"\ttrouble (FILE missing, a directory, a read error)\n"
	"d dump\twrite the bytes in hex and ASCII, as od -A d -t x1z -v\n"
	"c count\twrite the number of bytes read\n"
	"s size SIZE\tread SIZE bytes, then stop, or inf (the default: to\n"
	"\tthe end of the input)\n"
	"- chunk SIZE\tread at most SIZE bytes per call (default: half the\n"
	"\tpipe, 64K to 1M; other input 1M)\n"
	"n nonblock\tSPLICE_F_NONBLOCK, waiting in poll(2)\n"
	"- quiet\tsay nothing of a difference, the exit status alone\n"
	"\ttells (cmp -s; -s is --size here)\n"
	"- silent\tthe same as --quiet\n"
	"- pipe-size SIZE\tgrow standard input's pipe to SIZE (default: as\n"
	"\tits writer made it)\n";
#define WITH 0
/* The codes of the options without a letter, in their order in options[]. */
enum {
	OPT_VERIFY = OPT_TOOL_FIRST,
	OPT_COMPARE,
	OPT_CHUNK,
	OPT_QUIET,
	OPT_SILENT,
	OPT_OWN_PIPE_SIZE,
};

static void
help(void)
{
	printf("Usage: %s [-cdn] [-s SIZE|inf] [--verify PATTERN | --compare FILE]\n"
	    "       [--quiet] [--chunk SIZE] [-v] [--strict] [--progress] [--name NAME]\n"
	    "       [--interval SECS] [--numeric] [--pipe-size SIZE]\n"
	    "Read standard input, a pipe, into user memory with vmsplice(2), and check,\n"
	    "dump or count what came.\n"
	    "\n", progname);
	options_help(options, WITH);
}

/*
 * Standard output is buffered here and written with write_all(), which
 * waits out an inherited O_NONBLOCK; stdio would drop its buffer on EAGAIN.
 */
static char out_buf[64 * 1024];
static size_t out_len;
static bool out_failed;

static void
out_flush(void)
{
	if (out_len > 0 && !out_failed && write_all(STDOUT_FILENO, out_buf, out_len) < 0) {
		warn_errno("standard output");
		out_failed = true;
	}
	out_len = 0;
}

static void
out_put(const char *text, size_t len)
{
	if (out_len + len > sizeof(out_buf))
		out_flush();
	memcpy(out_buf + out_len, text, len);
	out_len += len;
}

/* od -A d -t x1z -v, fed in pieces of any size. */
struct dumper {
	unsigned char line[16];
	size_t have;
	uint64_t offset;
};

static void
dump_line(struct dumper *d)
{
	char text[128];
	size_t n = (size_t)snprintf(text, sizeof(text), "%07llu",
	    (unsigned long long)d->offset);

	for (size_t i = 0; i < 16; i++) {
		if (i < d->have)
			n += (size_t)snprintf(text + n, sizeof(text) - n, " %02x", d->line[i]);
		else
			n += (size_t)snprintf(text + n, sizeof(text) - n, "   ");
	}
	n += (size_t)snprintf(text + n, sizeof(text) - n, "  >");
	for (size_t i = 0; i < d->have; i++)
		text[n++] = (char)(d->line[i] >= 0x20 && d->line[i] < 0x7f ? d->line[i] : '.');
	text[n++] = '<';
	text[n++] = '\n';
	out_put(text, n);
	d->offset += d->have;
	d->have = 0;
}

static void
dump(struct dumper *d, const unsigned char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		d->line[d->have++] = buf[i];
		if (d->have == 16)
			dump_line(d);
	}
}

/* The last line: the offset after the last byte; or, with -c, the count. */
static void
put_number(uint64_t value, const char *format)
{
	char text[32];
	int n = snprintf(text, sizeof(text), format, (unsigned long long)value);

	out_put(text, (size_t)n);
}

static void
dump_end(struct dumper *d)
{
	if (d->have > 0)
		dump_line(d);
	put_number(d->offset, "%07llu\n");
}

/* --compare FILE: where the input stands against FILE, counted as cmp counts. */
struct comparison {
	int fd;
	const char *name;
	unsigned char *buf;	/* FILE's bytes for one block of the input */
	uint64_t newlines;	/* in the bytes that matched so far */
	bool ends_line;		/* the last byte that matched was a newline */
	bool differ;		/* the bytes differ: "- FILE differ" was written */
	bool shorter;		/* one ended first: "EOF on NAME" was said */
	bool quiet;		/* --quiet: neither said */
};

/* cmp's words for an input that ended first: "EOF on NAME after byte N, line L". */
static void
compare_eof(struct comparison *c, const char *name, uint64_t bytes)
{
	/* A last line that is not whole is the line "in" which the input ended. */
	uint64_t line = c->ends_line ? c->newlines : c->newlines + 1;

	/* A difference, not trouble: status 1, as cmp's. */
	c->shorter = true;
	if (!c->quiet && bytes == 0)
		note("EOF on %s which is empty", name);
	else if (!c->quiet)
		note("EOF on %s after byte %llu, %sline %llu", name, (unsigned long long)bytes,
		    c->ends_line ? "" : "in ", (unsigned long long)line);
}

static uint64_t
count_newlines(const unsigned char *buf, size_t len)
{
	uint64_t n = 0;

	for (const unsigned char *p = buf; (p = memchr(p, '\n', len - (size_t)(p - buf))); p++)
		n++;
	return n;
}

/*
 * The next len bytes of the input, at stream offset total, against FILE's.
 * Returns how many are the same: len, or fewer after the difference or the
 * end of FILE was reported.
 */
static size_t
compare_block(struct comparison *c, uint64_t total, const unsigned char *buf, size_t len)
{
	size_t have = 0, same = 0;

	while (have < len) {
		ssize_t r = read_retry(c->fd, c->buf + have, len - have);

		if (r < 0) {
			warn_errno("%s", c->name);
			return 0;
		}
		if (r == 0)
			break;
		have += (size_t)r;
	}
	while (same < have && buf[same] == c->buf[same])
		same++;
	c->newlines += count_newlines(buf, same);
	if (same > 0)
		c->ends_line = buf[same - 1] == '\n';
	if (same < have) {
		uint64_t byte = total + same + 1, line_number = c->newlines + 1;
		char line[600];
		int n = snprintf(line, sizeof(line), "- %s differ: byte %llu, line %llu\n", c->name,
		    (unsigned long long)byte, (unsigned long long)line_number);

		if (!c->quiet)
			out_put(line, n < (int)sizeof(line) ? (size_t)n : sizeof(line) - 1);
		c->differ = true;
	} else if (have < len)
		compare_eof(c, c->name, total + have);
	return same;
}

/* The input ended after total bytes: so must FILE. */
static void
compare_end(struct comparison *c, uint64_t total)
{
	unsigned char byte;
	ssize_t r = read_retry(c->fd, &byte, 1);

	if (r < 0)
		warn_errno("%s", c->name);
	else if (r > 0)
		compare_eof(c, "-", total);
}

/* What the options asked for. */
struct touser_job {
	struct pattern pattern;		/* --verify */
	bool verify, dumping, counting, nonblock;
	bool wrong;			/* --verify found a wrong byte */
	bool chunk_given;		/* --chunk: else the pipe's rule */
	uint64_t chunk_bytes;		/* the buffer, and most bytes per call */
	uint64_t size;			/* -s: bytes to read, TO_EOF: all */
	struct comparison compare;	/* --compare, fd -1 without */
};

static void
parse_options(int argc, char *argv[], struct touser_job *job)
{
	int opt;

	while ((opt = options_next(argc, argv, options, WITH)) != -1) {
		switch (opt) {
		case OPT_VERIFY:
			pattern_parse("--verify", optarg, &job->pattern);
			job->verify = true;
			break;
		case OPT_COMPARE:
			job->compare.name = optarg;
			break;
		case 'd':
			job->dumping = true;
			break;
		case 'c':
			job->counting = true;
			break;
		case 's':
			job->size = strcmp(optarg, "inf") == 0 ? TO_EOF :
			    option_size("--size", optarg);
			break;
		case OPT_OWN_PIPE_SIZE:
			common_option(OPT_PIPE_SIZE, optarg, help);
			break;
		case OPT_QUIET:
		case OPT_SILENT:
			job->compare.quiet = true;
			break;
		case OPT_CHUNK:
			job->chunk_bytes = option_size("--chunk", optarg);
			job->chunk_given = true;
			if (job->chunk_bytes == 0 || job->chunk_bytes > 1UL << 30)
				usage_error("--chunk: must be 1 to 1G bytes: '%s'", optarg);
			break;
		case 'n':
			job->nonblock = true;
			break;
		default:
			common_option(opt, optarg, help);
		}
	}
	no_operands(argc, argv);
	if (job->verify && job->compare.name)
		usage_error("--verify and --compare: one reference at a time");
}

/*
 * Without --chunk, a pipe is read a part at a time, so that its writer
 * refills it meanwhile (pipe_request_bytes()); the capacity is read each
 * call, as the writer may grow the pipe after we start.  At most the
 * buffer, and at most what -s leaves.
 */
static size_t
call_bytes(const struct touser_job *job, bool in_pipe, uint64_t total)
{
	size_t want = in_pipe && !job->chunk_given ?
	    pipe_request_bytes(pipe_capacity(STDIN_FILENO)) : (size_t)job->chunk_bytes;

	if (want > job->chunk_bytes)
		want = (size_t)job->chunk_bytes;
	return job->size - total < want ? (size_t)(job->size - total) : want;
}

/*
 * Checks n bytes that came at stream offset total against --verify or
 * --compare; returns how many are good (n, or the good part before the
 * first wrong byte, which was reported).
 */
static size_t
check_block(struct touser_job *job, uint64_t total, const unsigned char *buf, size_t n)
{
	size_t good = n;

	if (job->verify) {
		uint64_t bad;

		good = pattern_check(&job->pattern, total, buf, n);
		bad = total + good;
		job->wrong = good < n;
		/* Bytes counted from 1, as --compare and cmp count them. */
		if (job->wrong && !job->compare.quiet)
			note("standard input: byte %llu is 0x%02x, expected 0x%02x"
			    " (pattern %s)", (unsigned long long)bad + 1, buf[good],
			    pattern_byte(&job->pattern, bad), pattern_label(&job->pattern));
	} else if (job->compare.fd >= 0)
		good = compare_block(&job->compare, total, buf, n);
	return good;
}

/* Reads the input, to its end or -s, checking and dumping; the bytes read. */
static uint64_t
read_input(struct touser_job *job, bool in_pipe, unsigned char *buf, struct dumper *dumper)
{
	uint64_t total = 0;

	while (total < job->size) {
		size_t want = call_bytes(job, in_pipe, total), good;
		ssize_t n = in_pipe ? vmsplice_read(STDIN_FILENO, buf, want, job->nonblock) :
		    read_retry(STDIN_FILENO, buf, want);

		if (n < 0) {
			warn_errno("standard input");
			return total;
		}
		if (n == 0) {
			if (job->compare.fd >= 0)
				compare_end(&job->compare, total);
			return total;
		}
		account(in_pipe ? M_VMSPLICE : M_READ_WRITE, (uint64_t)n);
		good = check_block(job, total, buf, (size_t)n);
		if (good < (size_t)n) {
			/* The dump ends with the wrong byte; -c counts good ones. */
			if (job->dumping)
				dump(dumper, buf, good + 1);
			return total + good;
		}
		if (job->dumping)
			dump(dumper, buf, (size_t)n);
		total += (uint64_t)n;
		/* A reader that went away (EPIPE with SIGPIPE ignored) ends the run. */
		if (out_failed)
			return total;
	}
	return total;
}

/*
 * vmsplice(2) reads a pipe only through a read-only descriptor: on one
 * opened for writing too (a FIFO opened with <>) it would write our buffer
 * into the pipe instead.  False after the message when --strict refuses.
 */
static bool
stdin_by_vmsplice(bool *in_pipe)
{
	*in_pipe = fd_is_pipe(STDIN_FILENO) &&
	    (fcntl(STDIN_FILENO, F_GETFL) & O_ACCMODE) == O_RDONLY;
	if (!*in_pipe && common.strict) {
		warn_msg("standard input: %s, vmsplice(2) needs a read-only pipe"
		    " (--strict: no fallback to read)", fd_is_pipe(STDIN_FILENO) ?
		    "a pipe open for writing too" : "not a pipe");
		return false;
	}
	return true;
}

/*
 * Standard input ready to read: by vmsplice(2) where it is a pipe (grown
 * only on request: the pipe belongs to the writer, which sized it), and
 * the --compare file open.  False when the tool must end (said why).
 */
static bool
open_inputs(struct touser_job *job, bool *in_pipe)
{
	struct engine_opts eo = engine_opts();

	if (!stdin_by_vmsplice(in_pipe))
		return false;
	if (*in_pipe && common.pipe_bytes)
		pipe_grow(STDIN_FILENO, &eo);
	if (job->compare.name &&
	    (job->compare.fd = open(job->compare.name, O_RDONLY | O_CLOEXEC)) < 0) {
		warn_errno("%s", job->compare.name);
		return false;
	}
	return true;
}

/* A buffer of a call's bytes, NULL when out of memory (said so); --compare's too. */
static unsigned char *
map_buffers(struct touser_job *job)
{
	unsigned char *buf = mmap(NULL, (size_t)job->chunk_bytes, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf != MAP_FAILED && job->compare.name)
		job->compare.buf = mmap(NULL, (size_t)job->chunk_bytes, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || job->compare.buf == MAP_FAILED) {
		warn_errno("mmap");
		return NULL;
	}
	return buf;
}

/* What was read: -d's last line, -c's count, -v's verdict and totals. */
static void
report_result(const struct touser_job *job, struct dumper *dumper, uint64_t total)
{
	if (job->dumping)
		dump_end(dumper);
	if (job->counting)
		put_number(total, "%llu\n");
	out_flush();
	if (!job->verify && !job->compare.name && !job->dumping && !job->counting)
		note("%llu byte%s read and dropped: -c counts them, --verify or --compare"
		    " checks them, -d dumps them", (unsigned long long)total, plural_s(total));
	if (exit_status() == 0 && !job->compare.differ && !job->compare.shorter && !job->wrong &&
	    common.verbose) {
		if (job->verify)
			note("%llu bytes match pattern %s", (unsigned long long)total,
			    pattern_label(&job->pattern));
		else if (job->compare.name)
			note("%llu bytes match %s", (unsigned long long)total, job->compare.name);
	}
	report_totals();
}

int
main(int argc, char *argv[])
{
	static struct touser_job job = {
		.pattern = { .kind = PAT_ZERO }, .chunk_bytes = DEFAULT_PIPE_BYTES,
		.size = TO_EOF, .compare = { .fd = -1 },
	};
	struct dumper dumper = { .have = 0 };
	uint64_t left;
	unsigned char *buf;
	bool in_pipe;

	set_progname(argv);
	parse_options(argc, argv, &job);
	(void)tool_start(STD_FD(STDIN_FILENO) |
	    (job.dumping || job.counting || job.compare.name ? STD_FD(STDOUT_FILENO) : 0),
	    COUNT_MOVED);
	/* --compare's trouble is 2, as cmp's. */
	if (exit_status() != 0)
		return job.compare.name ? EXIT_USAGE : exit_status();
	left = fd_size_left(STDIN_FILENO);
	account_set_total(left < job.size ? left : job.size);
	status_pipes(STDIN_FILENO, -1);
	if (!open_inputs(&job, &in_pipe) || (buf = map_buffers(&job)) == NULL)
		return job.compare.name ? EXIT_USAGE : EXIT_ERROR;
	report_result(&job, &dumper, read_input(&job, in_pipe, buf, &dumper));
	if (!out_failed && close(STDOUT_FILENO) < 0 && errno != EBADF)
		warn_errno("standard output");
	if (job.compare.fd >= 0)
		close(job.compare.fd);
	/* As cmp: bytes that differ, or one input shorter, 1; trouble 2. */
	if (job.compare.name && exit_status() != 0)
		return EXIT_USAGE;
	return job.compare.differ || job.compare.shorter || job.wrong ? EXIT_ERROR :
	    exit_status();
}
