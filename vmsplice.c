/*
 * vmsplice: generate a pattern into a pipe with vmsplice(2).
 *
 * vmsplice(2) does not copy: the pipe holds references to our pages, and a
 * reader that splices or tees them on (another pipe, a socket, pv) keeps
 * holding them after they left our pipe.  So by default no page that has
 * been vmspliced is ever written again: a pattern that repeats is written
 * once, any other gets fresh pages for every region.  --reuse is the 2006
 * double buffer, which refills a half once the other half was accepted.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "splice.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

#define UNALIGN_BYTES ((size_t)1024)
#define POISON_BYTE 0xa5

/* How a pattern that changes every round gets new memory. */
enum refill {
	REFILL_FRESH,		/* fresh huge pages, ordinary stores */
	REFILL_STREAM,		/* fresh huge pages, non-temporal stores */
	REFILL_WRITE,		/* write(2) from one small buffer: the kernel copies */
	REFILL_MEMFD,		/* memfd pages spliced, then punched out of the file */
	REFILL_REUSE,		/* the 2006 double buffer: unsafe */
};
static const char *const refill_names[] = {
	[REFILL_FRESH] = "fresh", [REFILL_STREAM] = "stream", [REFILL_WRITE] = "write",
	[REFILL_MEMFD] = "memfd", [REFILL_REUSE] = "reuse",
};
#define REFILL_NAMES "fresh, stream, write, memfd, reuse"
/* write(2)'s buffer for REFILL_WRITE and REFILL_MEMFD: stays in the cache. */
static size_t small_buffer_bytes = 128 << 10;

static struct pattern pattern = { .kind = PAT_ZERO };
static enum refill refill = REFILL_FRESH;
static bool clear, unalign, huge, busy, endless;
static unsigned int vmsplice_flags;
/* Strict, verbose, pipe size, -L: what move_fd() takes (--refill memfd). */
static struct engine_opts engine;
/* -L: most bytes per vmsplice(2), 0 = a whole half. */
static size_t call_bytes_max;

/* vmsplice's options, as --help lists them (the format: splice.h, lib/optspec.c). */
static const char options[] =
	"s size SIZE\tbytes to write, or inf (default: two pipe capacities)\n"
	"p pattern PATTERN\twhat to write (default zero), one of\n"
	"\t" PATTERN_NAMES "\n"
	"- refill HOW\thow a pattern that changes gets new memory: fresh\n"
	"\t(huge pages, the default), stream (the same with\n"
	"\tnon-temporal stores), memfd (file pages spliced, then\n"
	"\tpunched out), write (write(2) copies), reuse\n"
	"- reuse\trefill the two halves of one buffer, as the 2006 tool\n"
	"\tdid: fast, but wrong when the reader passes pages on\n"
	"c clear\tpoison each half once the double-buffer rule frees it\n"
	"g gift\tpass SPLICE_F_GIFT to vmsplice(2)\n"
	"u unalign\tstart the data 1 KiB into a page\n"
	"- huge\t2 MiB-aligned buffers with MADV_HUGEPAGE\n"
	"- busy\tretry a full pipe at once instead of waiting in poll(2)\n";
#define WITH (OPTS_RATE_LIMIT)
/* The codes of the options without a letter, in their order in options[]. */
enum {
	OPT_REFILL = OPT_TOOL_FIRST,
	OPT_REUSE,
	OPT_HUGE,
	OPT_BUSY,
};

static void
help(void)
{
	printf("Usage: %s [-cgu] [-s SIZE|inf] [-p PATTERN] [--refill HOW] [--reuse]\n"
	    "       [--huge] [--busy] [-L RATE] [-v] [--strict] [--progress] [--name NAME]\n"
	    "       [--interval SECS] [--numeric] [--pipe-size SIZE]\n"
	    "Write SIZE bytes of PATTERN to standard output, a pipe, with vmsplice(2).\n"
	    "No page is written again once the pipe may hold it, whatever reads the pipe.\n"
	    "\n", progname);
	options_help(options, WITH);
}

/* Bytes still to write, capped at limit; with -s inf, no end. */
static size_t
next_bytes(uint64_t size, uint64_t done, size_t limit)
{
	uint64_t left = endless ? UINT64_MAX : size - done;

	return left < limit ? (size_t)left : limit;
}

static int
put(const char *data, size_t n)
{
	/* Under -L, pieces: the sleeps between them hold the rate. */
	for (size_t piece; n > 0; data += piece, n -= piece) {
		piece = call_bytes_max && call_bytes_max < n ? call_bytes_max : n;
		if (vmsplice_all(STDOUT_FILENO, data, piece, vmsplice_flags, busy) < 0) {
			warn_errno("standard output: vmsplice");
			return -1;
		}
	}
	return 0;
}

/*
 * A pattern that repeats every round: one buffer, filled once, never
 * written again; the pipe may hold its pages as often as it likes.
 */
static int
run_constant(uint64_t size, size_t round_bytes)
{
	size_t off = unalign ? UNALIGN_BYTES : 0;
	size_t map_bytes = round_up(round_bytes + off, huge ? HUGE_PAGE_BYTES : 4096);
	char *base = map_region(map_bytes, huge), *data;

	if (base == NULL) {
		warn_errno("mmap");
		return -1;
	}
	data = base + off;
	pattern_fill(&pattern, 0, data, round_bytes);
	for (uint64_t done = 0; done < size; ) {
		size_t n = next_bytes(size, done, round_bytes);

		if (put(data, n) < 0)
			return -1;
		done += n;
	}
	return 0;
}

/*
 * The 2006 double buffer: half k is refilled once half k+1 was accepted,
 * since a pipe of one half's capacity must then have let go of it.  True
 * for a reader that copies, as long as the pipe does not grow; a reader
 * that passes the pages on still holds them, and sees the refill.
 */
static int
run_reuse(uint64_t size, size_t half)
{
	size_t off = unalign ? UNALIGN_BYTES : 0;
	size_t map_bytes = round_up(2 * half + off, huge ? HUGE_PAGE_BYTES : 4096);
	char *base = map_region(map_bytes, huge), *halves[2];
	uint64_t done = 0;

	if (base == NULL) {
		warn_errno("mmap");
		return -1;
	}
	halves[0] = base + off;
	halves[1] = halves[0] + half;
	for (unsigned int k = 0; done < size; k ^= 1) {
		size_t n = next_bytes(size, done, half);
		long cap;

		pattern_fill(&pattern, done, halves[k], n);
		if (put(halves[k], n) < 0)
			return -1;
		done += n;
		cap = pipe_capacity(STDOUT_FILENO);
		if (cap > 0 && (size_t)cap > half) {
			/*
			 * The reader grew the pipe: the other half may still
			 * be in it.  Leave both to the pipe; new halves as
			 * large as the pipe is now.
			 */
			munmap(base, map_bytes);
			half = (size_t)cap;
			map_bytes = round_up(2 * half + off, huge ? HUGE_PAGE_BYTES : 4096);
			if ((base = map_region(map_bytes, huge)) == NULL) {
				warn_errno("mmap");
				return -1;
			}
			halves[0] = base + off;
			halves[1] = halves[0] + half;
			if (common.verbose)
				note("the pipe grew to %zu bytes: new halves", half);
			k = 1;
			continue;
		}
		/* The rule says the other half is free now. */
		if (clear)
			memset(halves[k ^ 1], POISON_BYTE, half);
	}
	return 0;
}

/*
 * Fresh pages for every region (at least one round, at least one huge
 * page): map, populate in one call, fill, vmsplice all of it, unmap.  The
 * pipe keeps the pages it holds; we never see them again.  With --clear,
 * the region's addresses get new pages that are poisoned before the unmap:
 * everything the double-buffer rule calls free, and more, is poisoned, and
 * none of it may reach the reader.
 */
static int
run_fresh(uint64_t size, size_t round_bytes, bool stream)
{
	size_t off = unalign ? UNALIGN_BYTES : 0;
	size_t region_bytes = round_up(round_bytes, HUGE_PAGE_BYTES);
	/* The region vmspliced before this one, still mapped. */
	char *prev_base = NULL;
	size_t prev_bytes = 0;
	int rc = 0;

	for (uint64_t done = 0; done < size; ) {
		/* With --unalign the data still ends on the region's last page. */
		size_t n = next_bytes(size, done, region_bytes - off);
		size_t map_bytes = round_up(n + off, 4096);
		bool whole_pages = map_bytes >= HUGE_PAGE_BYTES;
		char *base, *data;

		if (whole_pages)
			map_bytes = round_up(map_bytes, HUGE_PAGE_BYTES);
		base = map_region(map_bytes, whole_pages);
		if (base == NULL) {
			warn_errno("mmap");
			rc = -1;
			break;
		}
		/* One call instead of a page fault per 4 KiB; older kernels fault. */
		(void)madvise(base, map_bytes, MADV_POPULATE_WRITE);
		data = base + off;
		if (stream)
			pattern_fill_stream(&pattern, done, data, n);
		else
			pattern_fill(&pattern, done, data, n);
		if (put(data, n) < 0) {
			munmap(base, map_bytes);
			rc = -1;
			break;
		}
		done += n;
		if (clear) {
			if (mmap(base, map_bytes, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
				warn_errno("mmap");
				munmap(base, map_bytes);
				rc = -1;
				break;
			}
			if (whole_pages)
				(void)madvise(base, map_bytes, MADV_HUGEPAGE);
			(void)madvise(base, map_bytes, MADV_POPULATE_WRITE);
			memset(base, POISON_BYTE, map_bytes);
		}
		/*
		 * Unmapped one region late: once the next region (two pipe
		 * capacities) went in whole, the pipe holds none of this one,
		 * so a reader that drops what it reads has let go of it.  Our
		 * munmap(2) then drops the last reference and the pages go
		 * back to this CPU's free lists, still in its cache, where the
		 * next region is zeroed and filled.  Freed by the reader on
		 * its CPU instead, they came back cold: 4 GiB of seq took
		 * 0.88-1.26 s against 0.49-0.68 s.  Nothing writes them
		 * meanwhile; later still (4 regions) was slower again.
		 */
		if (prev_base != NULL)
			munmap(prev_base, prev_bytes);
		prev_base = base;
		prev_bytes = map_bytes;
	}
	if (prev_base != NULL)
		munmap(prev_base, prev_bytes);
	return rc;
}

/*
 * Into the pipe from a memfd: write(2) copies a small buffer into the
 * file's pages (whole pages are not zeroed first), splice(2) hands those
 * pages to the pipe by reference, and punching the hole takes them out of
 * the file, so the next round's write(2) gets new pages while the pipe and
 * whoever it passed them to keep the old ones.
 */
static int
run_memfd(uint64_t size, size_t round_bytes)
{
	int fd = memfd_create("vmsplice", MFD_CLOEXEC), rc = 0;
	char *buf = map_region(small_buffer_bytes, false);

	if (fd < 0 || buf == NULL) {
		warn_errno(fd < 0 ? "memfd_create" : "mmap");
		rc = -1;
	}
	for (uint64_t done = 0; rc == 0 && done < size; done += round_bytes) {
		struct xfer x = {
			.in = fd, .out = STDOUT_FILENO, .opts = engine,
			.len = next_bytes(size, done, round_bytes),
		};

		if (lseek(fd, 0, SEEK_SET) < 0) {
			warn_errno("memfd: lseek");
			rc = -1;
			break;
		}
		for (size_t put_bytes = 0, piece; put_bytes < x.len; put_bytes += piece) {
			piece = x.len - put_bytes < small_buffer_bytes ?
			    x.len - put_bytes : small_buffer_bytes;
			pattern_fill(&pattern, done + put_bytes, buf, piece);
			if (write_all(fd, buf, piece) < 0) {
				warn_errno("memfd: write");
				rc = -1;
				break;
			}
		}
		if (rc < 0 || lseek(fd, 0, SEEK_SET) < 0) {
			if (rc == 0)
				warn_errno("memfd: lseek");
			rc = -1;
			break;
		}
		if (move_fd(&x) < 0 || x.moved < x.len) {
			if (x.error.err == 0)
				x.error.err = EIO;
			xfer_warn(&x, "memfd", "standard output");
			rc = -1;
			break;
		}
		/* Whole pages: punching part of one zeroes it in place, in the pipe. */
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
		    (off_t)round_up(x.len, (size_t)sysconf(_SC_PAGESIZE))) < 0) {
			warn_errno("memfd: fallocate");
			rc = -1;
			break;
		}
		if (clear)
			memset(buf, POISON_BYTE, small_buffer_bytes);
	}
	if (fd >= 0)
		close(fd);
	if (buf != NULL)
		munmap(buf, small_buffer_bytes);
	return rc;
}

/*
 * The most bytes, at most limit, that hold whole periods of the pattern:
 * filled once, they can be written again and again.  0 when it never repeats.
 */
static size_t
whole_periods(size_t limit)
{
	uint64_t period = pattern_period(&pattern);

	return period == 0 || period > limit ? 0 : limit - limit % (size_t)period;
}

/* Standard output is not a pipe: write(2) copies, so one buffer is safe. */
static int
run_write(uint64_t size, size_t half)
{
	size_t off = unalign ? UNALIGN_BYTES : 0;
	char *base = map_region(round_up(half + off, huge ? HUGE_PAGE_BYTES : 4096), huge);
	char *data;
	size_t unit = clear ? 0 : whole_periods(half);
	bool repeats = unit > 0;

	if (base == NULL) {
		warn_errno("mmap");
		return -1;
	}
	data = base + off;
	if (repeats)
		pattern_fill(&pattern, 0, data, unit);
	else
		unit = half;
	for (uint64_t done = 0; done < size; ) {
		size_t n = next_bytes(size, done, unit);

		if (!repeats)
			pattern_fill(&pattern, done, data, n);
		if (write_all(STDOUT_FILENO, data, n) < 0) {
			warn_errno("standard output");
			return -1;
		}
		account(M_READ_WRITE, n);
		done += n;
		if (clear)
			memset(data, POISON_BYTE, half);
	}
	return 0;
}

static enum refill
refill_parse(const char *arg)
{
	for (size_t i = 0; i < sizeof(refill_names) / sizeof(refill_names[0]); i++)
		if (strcmp(arg, refill_names[i]) == 0)
			return (enum refill)i;
	usage_error("--refill: unknown way '%s' (one of " REFILL_NAMES ")", arg);
}

/*
 * Every round the same bytes (a round of whole periods, as close to two
 * halves as they come): no refill at all.
 */
static bool
constant(size_t half)
{
	return refill != REFILL_REUSE && whole_periods(2 * half) > 0 && !clear;
}

static const char *
mode_label(bool to_pipe, size_t half)
{
	static const char *const labels[] = {
		[REFILL_FRESH] = "fresh pages for every round",
		[REFILL_STREAM] = "fresh pages for every round, non-temporal stores",
		[REFILL_WRITE] = "write(2) from one small buffer (the kernel copies)",
		[REFILL_MEMFD] = "memfd pages spliced, then punched out",
		[REFILL_REUSE] = "two halves refilled (--reuse)",
	};

	if (!to_pipe)
		return "write(2), one buffer (standard output is not a pipe)";
	if (constant(half))
		return "one buffer filled once (the pattern repeats)";
	return labels[refill];
}

static int
generate(uint64_t size, size_t half, bool to_pipe)
{
	if (!to_pipe)
		return run_write(size, call_bytes_max && call_bytes_max < half ?
		    call_bytes_max : half);
	if (constant(half))
		return run_constant(size, whole_periods(2 * half));
	switch (refill) {
	case REFILL_FRESH:
	case REFILL_STREAM:
		return run_fresh(size, 2 * half, refill == REFILL_STREAM);
	case REFILL_WRITE:
		return run_write(size, call_bytes_max && call_bytes_max < small_buffer_bytes ?
		    call_bytes_max : small_buffer_bytes);
	case REFILL_MEMFD:
		return run_memfd(size, 2 * half);
	case REFILL_REUSE:
		break;
	}
	return run_reuse(size, half);
}

/* The options into the globals; returns -s's size, or 0 when not given. */
static uint64_t
parse_options(int argc, char *argv[], bool *size_given)
{
	uint64_t size = 0;
	int opt;

	while ((opt = options_next(argc, argv, options, WITH)) != -1) {
		switch (opt) {
		case 's':
			endless = strcmp(optarg, "inf") == 0;
			size = endless ? UINT64_MAX : option_size("--size", optarg);
			*size_given = true;
			break;
		case 'p':
			pattern_parse("--pattern", optarg, &pattern);
			break;
		case OPT_REUSE:
			refill = REFILL_REUSE;
			break;
		case OPT_REFILL:
			refill = refill_parse(optarg);
			break;
		case 'c':
			clear = true;
			break;
		case 'g':
			vmsplice_flags |= SPLICE_F_GIFT;
			break;
		case 'u':
			unalign = true;
			break;
		case OPT_HUGE:
			huge = true;
			break;
		case OPT_BUSY:
			busy = true;
			break;
		default:
			common_option(opt, optarg, help);
		}
	}
	no_operands(argc, argv);
	if (common.strict && refill == REFILL_WRITE)
		usage_error("--refill write copies with write(2): not with --strict");
	engine = engine_opts();
	call_bytes_max = engine.call_bytes_max;
	return size;
}

/*
 * The bytes of a half: a pipe's capacity, grown as asked, or the buffer
 * of write(2) where standard output is no pipe (which --strict refuses).
 * 0 when the tool must end (said why).
 */
static size_t
output_half(bool *to_pipe)
{
	long cap;

	/* On a read-only descriptor vmsplice(2) would read the pipe instead. */
	*to_pipe = fd_is_pipe(STDOUT_FILENO) &&
	    (fcntl(STDOUT_FILENO, F_GETFL) & O_ACCMODE) != O_RDONLY;
	if (!*to_pipe) {
		if (common.strict) {
			warn_msg("standard output: not a pipe, vmsplice(2) needs one"
			    " (--strict: no fallback to write)");
			return 0;
		}
		return common.pipe_bytes ? common.pipe_bytes : DEFAULT_PIPE_BYTES;
	}
	cap = pipe_grow(STDOUT_FILENO, &engine);
	if (cap <= 0) {
		warn_errno("standard output: F_GETPIPE_SZ");
		return 0;
	}
	return (size_t)cap;
}

/* -v: what is generated, into what, how. */
static void
note_setup(uint64_t size, size_t half, bool to_pipe)
{
	char amount[32] = "endless";
	size_t pages = half / (size_t)sysconf(_SC_PAGESIZE);

	if (!endless)
		snprintf(amount, sizeof(amount), "%llu bytes", (unsigned long long)size);
	note("%s of %s; %s %zu bytes (%zu page%s), halves of %zu; %s", amount,
	    pattern_label(&pattern), to_pipe ? "pipe" : "buffer", half, pages,
	    plural_s(pages), half, mode_label(to_pipe, half));
}

int
main(int argc, char *argv[])
{
	uint64_t size;
	bool size_given = false, to_pipe;
	size_t half;

	set_progname(argv);
	size = parse_options(argc, argv, &size_given);
	/* As gzip and zstd: binary to a terminal only when asked for by -s. */
	if (!size_given && isatty(STDOUT_FILENO)) {
		warn_msg("standard output is a terminal: give -s SIZE to write there anyway,"
		    " or redirect it");
		return EXIT_ERROR;
	}
	(void)tool_start(STD_FD(STDOUT_FILENO), COUNT_MOVED);
	if (exit_status() != 0)
		return exit_status();
	half = output_half(&to_pipe);
	if (half == 0)
		return EXIT_ERROR;
	if (!size_given)
		size = 2 * (uint64_t)half;
	if (!endless)
		account_set_exact_total(size);
	status_pipes(-1, to_pipe ? STDOUT_FILENO : -1);
	if (common.verbose)
		note_setup(size, half, to_pipe);
	(void)generate(size, half, to_pipe);
	report_totals();
	return exit_status();
}
