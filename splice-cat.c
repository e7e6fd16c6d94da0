/*
 * splice-cat: cat(1) built on splice(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "splice.h"

/* splice-cat's options, as --help lists them (the format: splice.h, lib/optspec.c). */
static const char options[] =
	"A show-all\tsame as -vET\n"
	"b number-nonblank\tnumber the lines that are not empty; beats -n\n"
	"e -\tsame as -vE\n"
	"E show-ends\tend each line with $ (and show CR LF as ^M$)\n"
	"m move\tpass SPLICE_F_MOVE to splice(2) (a hint, ignored by\n"
	"\ttoday's kernels)\n"
	"n number\tnumber every output line\n"
	"s squeeze-blank\tprint one empty line for each run of empty lines\n"
	"t -\tsame as -vT\n"
	"T show-tabs\tshow each tab as ^I\n"
	"u -\tignored; output is never buffered\n"
	"v show-nonprinting\tshow control bytes as ^X and ^?, bytes above 127\n"
	"\tas M- and the byte 128 below (tab and newline stay)\n"
	"- chunk SIZE\tmove at most SIZE bytes per call\n"
	"- skip SIZE\tdiscard the first SIZE bytes of the input (all FILEs\n"
	"\tas one stream), seeking where the input can seek\n"
	"- count SIZE\tcopy at most SIZE bytes of the input, then stop\n"
	"- fsync\tfsync(2) the output at the end; fail if that fails\n"
	"\t(as dd conv=fsync does, also on a pipe)\n"
	"- sparse\tleave a hole for each block of zeros written past the\n"
	"\tend of a regular file, as dd conv=sparse (read/write)\n"
	"- seek SIZE\twrite from byte SIZE of standard output (a file or a\n"
	"\tdevice), truncating nothing, as dd seek= conv=notrunc;\n"
	"\topen it with 1<> to keep what follows the copy\n";
#define WITH (OPTS_RATE_LIMIT | OPTS_SIZE | OPTS_NO_V)
/* The codes of the options without a letter, in their order in options[]. */
enum { OPT_CHUNK = OPT_TOOL_FIRST, OPT_SKIP, OPT_COUNT, OPT_FSYNC, OPT_SPARSE, OPT_SEEK };

/* What the options asked for, and how far the run has got. */
struct cat_job {
	struct engine_opts eo;
	unsigned int flags;		/* extra SPLICE_F_* flags (-m) */
	size_t chunk;			/* --chunk, 0 = the engine's choice */
	bool formatting;		/* an option of fmt is on: read/write */
	bool fsync_output;		/* --fsync */
	struct cat_format fmt;		/* -AbeEnstTv, and the state across operands */
	struct stat out_st;		/* standard output */
	bool stdin_closed;		/* fd 0 was closed: a "-" operand fails */
	/* --skip and --count, over the operands as one stream */
	uint64_t skip;			/* input bytes still to discard */
	uint64_t count;			/* input bytes still to copy, TO_EOF: all */
	const char *skip_ended;		/* the last operand read to its end inside --skip */
	bool zero_holes;		/* --sparse: blocks of zeros as holes */
	bool seek_given;		/* --seek: where the output is written from */
	uint64_t seek;
};

static void
help(void)
{
	printf("Usage: %s [-AbeEmnstTuv] [--chunk SIZE] [--skip SIZE] [--count SIZE]\n"
	    "       [--sparse] [--seek SIZE] [--fsync] [-L RATE] [--size SIZE] [--verbose]\n"
	    "       [--strict] [--progress] [--name NAME] [--interval SECS] [--numeric]\n"
	    "       [--pipe-size SIZE] [FILE]...\n"
	    "Concatenate FILEs to standard output with splice(2), zero-copy where the\n"
	    "kernel allows.  With no FILE, or when FILE is -, read standard input.\n"
	    "The options that format (-AbeEnstTv) copy through user space, as cat does.\n"
	    "\n", progname);
	options_help(options, WITH);
}

/*
 * cat's letters, into *f; false for any other option.  -A, -e and -t stand
 * for letters of their own, as cat's --help says.  -v is --show-nonprinting
 * here, so 'v' never reaches common_option().
 */
static bool
format_option(int opt, struct cat_format *f)
{
	static const char letters[] = "nbsETv";
	bool *const flags[] = { &f->number, &f->number_nonblank, &f->squeeze, &f->show_ends,
	    &f->show_tabs, &f->show_nonprinting };
	char one[2] = { (char)opt, '\0' };
	const char *set = opt == 'A' ? "vET" : opt == 'e' ? "vE" : opt == 't' ? "vT" : one;

	if (opt <= 0 || opt > 127 || strchr(letters, *set) == NULL)
		return false;
	for (; *set != '\0'; set++)
		*flags[strchr(letters, *set) - letters] = true;
	return true;
}

/* Parses the options into *job; returns the index of the first operand. */
static int
parse_options(int argc, char *argv[], struct cat_job *job)
{
	uint64_t bytes;
	int opt;

	while ((opt = options_next(argc, argv, options, WITH)) != -1) {
		if (format_option(opt, &job->fmt))
			continue;
		switch (opt) {
		case 'm':
			job->flags |= SPLICE_F_MOVE;
			break;
		case 'u':
			break;
		case OPT_CHUNK:
			bytes = option_size("--chunk", optarg);
			if (bytes == 0 || bytes > 1UL << 30)
				usage_error("--chunk: must be 1 to 1G bytes: '%s'", optarg);
			job->chunk = (size_t)bytes;
			break;
		case OPT_SKIP:
			job->skip = option_size("--skip", optarg);
			break;
		case OPT_COUNT:
			job->count = option_size("--count", optarg);
			break;
		case OPT_FSYNC:
			job->fsync_output = true;
			break;
		case OPT_SPARSE:
			job->zero_holes = true;
			break;
		case OPT_SEEK:
			job->seek = option_size("--seek", optarg);
			job->seek_given = true;
			break;
		default:
			common_option(opt, optarg, help);
		}
	}
	job->formatting = cat_format_any(&job->fmt);
	if (job->formatting && common.strict)
		usage_error("--strict: the formatting options (-AbeEnstTv) copy through"
		    " user space");
	if (job->zero_holes && common.strict)
		usage_error("--strict: --sparse reads every byte through user space");
	job->eo = engine_opts();
	return optind;
}

/*
 * POSIX cat refuses to copy a regular file onto itself when it would read
 * what it writes: same inode, and the input reading before where the output
 * writes (its end, if O_APPEND), as GNU cat 9.6+ has it.  In place, or
 * from further on, the copy ends.
 */
static bool
input_is_output(int in, const struct stat *out_st)
{
	struct stat in_st;
	int out_flags;
	off_t in_pos;

	if (!S_ISREG(out_st->st_mode) || fstat(in, &in_st) < 0 ||
	    in_st.st_dev != out_st->st_dev || in_st.st_ino != out_st->st_ino)
		return false;
	in_pos = lseek(in, 0, SEEK_CUR);
	out_flags = fcntl(STDOUT_FILENO, F_GETFL);
	return in_pos >= 0 && in_pos < lseek(STDOUT_FILENO, 0,
	    out_flags >= 0 && (out_flags & O_APPEND) ? SEEK_END : SEEK_CUR);
}

/*
 * As GNU cat words it (coreutils' tests check it): "write error: reason"
 * for the output, "NAME: reason" for an input.
 */
static void
cat_warn(const struct xfer *x, const char *name)
{
	if (x->error.side == SIDE_OUTPUT && !x->error.refused)
		warn_msg("write error: %s", strerror(x->error.err));
	else
		xfer_warn(x, name, "standard output");
}

/*
 * --skip: discards what is left of it from in.  True when the operand has
 * bytes left to copy.
 */
static bool
skip_part(struct cat_job *job, int in, const char *name)
{
	struct xfer x = { .in = in, .len = job->skip };

	if (job->skip == 0)
		return true;
	if (skip_input(&x) < 0)
		cat_warn(&x, name);
	job->skip -= x.moved;
	/* Read to its end inside --skip: the last such operand, for dd's warning. */
	if (x.error.err == 0 && job->skip > 0)
		job->skip_ended = name;
	return job->skip == 0 && x.error.err == 0;
}

/* Copies the rest of an operand; false when the output failed. */
static bool
copy_part(struct cat_job *job, struct xfer *x, const char *name)
{
	int r;

	x->len = job->count;
	r = job->formatting ? cat_format_fd(&job->fmt, x) : move_fd(x);
	if (job->count != TO_EOF)
		job->count -= x->moved;
	if (r == 0)
		return true;
	cat_warn(x, name);
	/* Output is gone or full: the next file cannot fare better. */
	return x->error.side != SIDE_OUTPUT;
}

/* Copies one operand; false when the output failed and the run must stop. */
static bool
cat_file(struct cat_job *job, const char *name)
{
	bool is_stdin = strcmp(name, "-") == 0, go_on = true;
	struct xfer x = {
		.out = STDOUT_FILENO, .chunk = job->chunk, .flags = job->flags,
		.opts = job->eo, .sparse = true, .zero_holes = job->zero_holes,
	};

	if (is_stdin) {
		x.in = STDIN_FILENO;
		name = "standard input";
		if (job->stdin_closed) {
			errno = EBADF;
			warn_errno("%s", name);
			return true;
		}
	} else if ((x.in = open(name, O_RDONLY | O_CLOEXEC)) < 0) {
		warn_errno("%s", name);
		return true;
	}
	if (input_is_output(x.in, &job->out_st))
		warn_msg("%s: input file is output file", name);
	else if (skip_part(job, x.in, name)) {
		status_pipes(x.in, STDOUT_FILENO);
		go_on = copy_part(job, &x, name);
		status_pipes(-1, STDOUT_FILENO);
	}
	if (!is_stdin && close(x.in) < 0)
		warn_errno("%s", name);
	return go_on;
}

/* What --progress counts to: the operands' sizes, less --skip, at most --count. */
static void
set_progress_total(const struct cat_job *job, char *const *files)
{
	uint64_t total = inputs_size(files);

	if (total != TO_EOF)
		total = total > job->skip ? total - job->skip : 0;
	if (job->count != TO_EOF && job->count < total)
		total = job->count;
	account_set_total(total);
}

/*
 * --seek: standard output placed at the byte asked for, as dd seek=
 * conv=notrunc places it; an output that cannot seek, or that appends
 * whatever its offset, is an error.
 */
static bool
seek_output(const struct cat_job *job)
{
	int flags = fcntl(STDOUT_FILENO, F_GETFL);

	if (!job->seek_given)
		return true;
	if (flags >= 0 && (flags & O_APPEND)) {
		warn_msg("standard output: cannot seek: it is open O_APPEND (>>)");
		return false;
	}
	if (job->seek > (uint64_t)INT64_MAX)
		errno = EFBIG;
	if (job->seek > (uint64_t)INT64_MAX ||
	    lseek(STDOUT_FILENO, (off_t)job->seek, SEEK_SET) < 0) {
		warn_errno("standard output: cannot seek");
		return false;
	}
	return true;
}

int
main(int argc, char *argv[])
{
	static char *const stdin_only[] = { "-", NULL };
	struct cat_job job = { .count = TO_EOF };
	char *const *files;
	unsigned int closed;
	bool output_ok = true;

	set_progname(argv);
	files = argv + parse_options(argc, argv, &job);
	if (*files == NULL)
		files = stdin_only;
	/* Standard input is needed only for a "-" operand, reported there. */
	closed = tool_start(STD_FD(STDOUT_FILENO), COUNT_MOVED);
	if (exit_status() != 0)
		return exit_status();
	job.stdin_closed = closed & STD_FD(STDIN_FILENO);
	set_progress_total(&job, files);

	if (fstat(STDOUT_FILENO, &job.out_st) < 0) {
		warn_errno("standard output");
		return EXIT_ERROR;
	}
	if (S_ISFIFO(job.out_st.st_mode))
		pipe_grow(STDOUT_FILENO, &job.eo);
	if (!seek_output(&job))
		return EXIT_ERROR;

	/* Once --count is reached, the operands left are not even opened. */
	for (; *files && output_ok && job.count > 0; files++)
		output_ok = cat_file(&job, *files);
	/* As dd: a warning, not an error, when the input ended inside --skip. */
	if (output_ok && job.skip > 0 && job.skip_ended)
		note("%s: cannot skip to specified offset", job.skip_ended);
	if (output_ok && cat_format_end(&job.fmt, STDOUT_FILENO) < 0)
		warn_errno("write error");
	/* As dd conv=fsync: an output that cannot be synced (a pipe) fails too. */
	else if (output_ok && job.fsync_output && fsync(STDOUT_FILENO) < 0)
		warn_errno("standard output: fsync");
	report_totals();
	if (close(STDOUT_FILENO) < 0 && errno != EBADF)
		warn_errno("write error");
	return exit_status();
}
