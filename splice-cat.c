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

static void
help(void)
{
	printf("Usage: %s [-mu] [-s SIZE] [-L RATE] [-v] [--strict] [--progress]\n"
	    "       [--name NAME] [--interval SECS] [--numeric] [--pipe-size SIZE] [FILE]...\n"
	    "Concatenate FILEs to standard output with splice(2), zero-copy where the\n"
	    "kernel allows.  With no FILE, or when FILE is -, read standard input.\n"
	    "\n"
	    "  -m, --move          pass SPLICE_F_MOVE to splice(2) (a hint, ignored by\n"
	    "                      today's kernels)\n"
	    "  -s, --chunk SIZE    move at most SIZE bytes per call\n"
	    "  -u                  ignored; output is never buffered\n"
	    RATE_LIMIT_HELP
	    COMMON_HELP, progname);
}

/*
 * POSIX cat refuses to copy a regular file onto itself when it would read
 * what it writes: same inode, and input not already at its end.
 */
static bool
input_is_output(int in, const struct stat *out_st)
{
	struct stat in_st;

	if (!S_ISREG(out_st->st_mode) || fstat(in, &in_st) < 0 ||
	    in_st.st_dev != out_st->st_dev || in_st.st_ino != out_st->st_ino)
		return false;
	return lseek(in, 0, SEEK_CUR) < in_st.st_size;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "move", no_argument, NULL, 'm' },
		{ "chunk", required_argument, NULL, 's' },
		RATE_LIMIT_LONG_OPTION,
		COMMON_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	static char *const stdin_only[] = { "-", NULL };
	unsigned int flags = 0;
	uint64_t chunk = 0;
	struct engine_opts eo;
	struct stat out_st;
	char *const *files;
	unsigned int closed;
	int opt;

	set_progname(argv);
	while ((opt = getopt_long(argc, argv, "ms:uL:" COMMON_SHORT_OPTIONS, longopts,
	    NULL)) != -1) {
		switch (opt) {
		case 'm':
			flags |= SPLICE_F_MOVE;
			break;
		case 's':
			chunk = option_size("--chunk", optarg);
			if (chunk == 0 || chunk > 1UL << 30)
				usage_error("--chunk: must be 1 to 1G bytes: '%s'", optarg);
			break;
		case 'u':
			break;
		default:
			if (!common_option(opt, optarg, help))
				usage_error("unknown option");
		}
	}
	files = optind < argc ? argv + optind : stdin_only;
	eo = engine_opts();
	account_start(&common, COUNT_MOVED);
	/* Standard input is needed only for a "-" operand, reported there. */
	closed = std_fds_fill(STD_FD(STDOUT_FILENO));
	if (exit_status() != 0)
		return exit_status();
	account_set_total(inputs_size(files));

	if (fstat(STDOUT_FILENO, &out_st) < 0) {
		warn_errno("standard output");
		return EXIT_ERROR;
	}
	if (S_ISFIFO(out_st.st_mode))
		pipe_grow(STDOUT_FILENO, &eo);

	for (; *files; files++) {
		const char *name = *files;
		bool is_stdin = strcmp(name, "-") == 0;
		struct xfer x = {
			.out = STDOUT_FILENO, .len = TO_EOF, .chunk = (size_t)chunk,
			.flags = flags, .opts = eo,
		};

		if (is_stdin) {
			x.in = STDIN_FILENO;
			name = "standard input";
			if (closed & STD_FD(STDIN_FILENO)) {
				errno = EBADF;
				warn_errno("%s", name);
				continue;
			}
		} else if ((x.in = open(name, O_RDONLY | O_CLOEXEC)) < 0) {
			warn_errno("%s", name);
			continue;
		}
		if (input_is_output(x.in, &out_st))
			warn_msg("%s: input file is output file", name);
		else if (move_fd(&x) < 0) {
			xfer_warn(&x, name, "standard output");
			/* Output is gone or full: the next file cannot fare better. */
			if (x.side == SIDE_OUTPUT) {
				if (!is_stdin)
					close(x.in);
				break;
			}
		}
		if (!is_stdin && close(x.in) < 0)
			warn_errno("%s", name);
	}
	report_totals();
	if (close(STDOUT_FILENO) < 0 && errno != EBADF)
		warn_errno("standard output");
	return exit_status();
}
