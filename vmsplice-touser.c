/*
 * vmsplice-touser: read standard input into user memory with vmsplice(2),
 * which copies when its fd is a pipe's read end; check it against a
 * vmsplice pattern, dump it, or count it.
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

enum {
	OPT_VERIFY = OPT_TOOL_FIRST,
};

static void
help(void)
{
	printf("Usage: %s [-cdn] [-s SIZE] [--verify PATTERN] [-v] [--strict]\n"
	    "       [--progress] [--name NAME] [--interval SECS] [--numeric]\n"
	    "       [--pipe-size SIZE]\n"
	    "Read standard input, a pipe, into user memory with vmsplice(2), and check,\n"
	    "dump or count what came.\n"
	    "\n"
	    "      --verify PATTERN  check the bytes against a vmsplice pattern,\n"
	    "                      " PATTERN_NAMES ",\n"
	    "                      and name the first wrong offset\n"
	    "  -d, --dump          write the bytes in hex and ASCII, as od -A d -t x1z -v\n"
	    "  -c, --count         write the number of bytes read\n"
	    "  -s, --size SIZE     read at most SIZE bytes per call (default: half the\n"
	    "                      pipe, 64K to 1M; other input 1M)\n"
	    "  -n, --nonblock      SPLICE_F_NONBLOCK, waiting in poll(2)\n"
	    COMMON_HELP, progname);
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

/*
 * Without -s, a pipe is read a part at a time, so that its writer refills
 * it meanwhile (pipe_request_bytes()); the capacity is read each call, as
 * the writer may grow the pipe after we start.  At most the buffer.
 */
static size_t
call_bytes(size_t buf_bytes, bool by_rule)
{
	size_t want = by_rule ? pipe_request_bytes(pipe_capacity(STDIN_FILENO)) : buf_bytes;

	return want < buf_bytes ? want : buf_bytes;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "verify", required_argument, NULL, OPT_VERIFY },
		{ "dump", no_argument, NULL, 'd' },
		{ "count", no_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 's' },
		{ "nonblock", no_argument, NULL, 'n' },
		COMMON_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	struct pattern pattern = { .kind = PAT_ZERO };
	struct dumper dumper = { .have = 0 };
	bool verify = false, dumping = false, counting = false, nonblock = false, in_pipe;
	bool size_given = false;
	uint64_t buf_bytes = DEFAULT_PIPE_BYTES, total = 0;
	struct engine_opts eo;
	unsigned char *buf;
	int opt;

	set_progname(argv);
	while ((opt = getopt_long(argc, argv, "cdns:" COMMON_SHORT_OPTIONS, longopts,
	    NULL)) != -1) {
		switch (opt) {
		case OPT_VERIFY:
			pattern_parse("--verify", optarg, &pattern);
			verify = true;
			break;
		case 'd':
			dumping = true;
			break;
		case 'c':
			counting = true;
			break;
		case 's':
			buf_bytes = option_size("--size", optarg);
			size_given = true;
			if (buf_bytes == 0 || buf_bytes > 1UL << 30)
				usage_error("--size: must be 1 to 1G bytes: '%s'", optarg);
			break;
		case 'n':
			nonblock = true;
			break;
		default:
			common_option(opt, optarg, help);
		}
	}
	no_operands(argc, argv);
	eo = engine_opts();
	(void)tool_start(STD_FD(STDIN_FILENO) |
	    (dumping || counting ? STD_FD(STDOUT_FILENO) : 0), COUNT_MOVED);
	if (exit_status() != 0)
		return exit_status();
	account_set_total(fd_size_left(STDIN_FILENO));
	status_pipes(STDIN_FILENO, -1);

	/*
	 * vmsplice(2) reads a pipe only through a read-only descriptor: on one
	 * opened for writing too (a FIFO opened with <>) it would write our
	 * buffer into the pipe instead.
	 */
	in_pipe = fd_is_pipe(STDIN_FILENO) &&
	    (fcntl(STDIN_FILENO, F_GETFL) & O_ACCMODE) == O_RDONLY;
	if (!in_pipe && common.strict) {
		warn_msg("standard input: %s, vmsplice(2) needs a read-only pipe"
		    " (--strict: no fallback to read)", fd_is_pipe(STDIN_FILENO) ?
		    "a pipe open for writing too" : "not a pipe");
		return EXIT_ERROR;
	}
	/* Only on request: the pipe belongs to the writer, which sized it. */
	if (in_pipe && common.pipe_bytes)
		pipe_grow(STDIN_FILENO, &eo);
	buf = mmap(NULL, (size_t)buf_bytes, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		warn_errno("mmap");
		return EXIT_ERROR;
	}

	for (;;) {
		ssize_t n = in_pipe ?
		    vmsplice_read(STDIN_FILENO, buf, call_bytes(buf_bytes, !size_given), nonblock) :
		    read_retry(STDIN_FILENO, buf, (size_t)buf_bytes);

		if (n < 0) {
			warn_errno("standard input");
			break;
		}
		if (n == 0)
			break;
		account(in_pipe ? M_VMSPLICE : M_READ_WRITE, (uint64_t)n);
		if (verify) {
			size_t good = pattern_check(&pattern, total, buf, (size_t)n);

			if (good < (size_t)n) {
				uint64_t bad = total + good;

				warn_msg("standard input: byte %llu is 0x%02x, expected 0x%02x"
				    " (pattern %s)", (unsigned long long)bad, buf[good],
				    pattern_byte(&pattern, bad), pattern_label(&pattern));
				/* The dump ends with the wrong byte; -c counts good ones. */
				if (dumping)
					dump(&dumper, buf, good + 1);
				total += good;
				break;
			}
		}
		if (dumping)
			dump(&dumper, buf, (size_t)n);
		total += (uint64_t)n;
		/* A reader that went away (EPIPE with SIGPIPE ignored) ends the run. */
		if (out_failed)
			break;
	}
	if (dumping)
		dump_end(&dumper);
	if (counting)
		put_number(total, "%llu\n");
	out_flush();
	if (verify && exit_status() == 0 && common.verbose)
		note("%llu bytes match pattern %s", (unsigned long long)total,
		    pattern_label(&pattern));
	report_totals();
	if (!out_failed && close(STDOUT_FILENO) < 0 && errno != EBADF)
		warn_errno("standard output");
	return exit_status();
}
