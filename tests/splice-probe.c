/*
 * splice-probe SCENARIO [ARG]...: performs one named splice(2), tee(2),
 * vmsplice(2), sendfile(2), copy_file_range(2) or pipe-capacity scenario,
 * most of them one of the Linux Test Project's, and prints on stdout what
 * the kernel said: "ok N" for a call that returned N, or the errno's name
 * (EINVAL, EBADF, ...), several answers on one line where the scenario
 * makes several calls.  Data scenarios write what came out of the kernel to
 * a file the caller names, so the caller checks every byte with cmp(1);
 * those that make many calls say of each whether the bytes were right.
 *
 * Exit status: 0 the scenario ran (whatever the kernel answered), 1 the
 * scenario could not be set up (the message says which step), 2 usage.
 * The checks themselves live in tests/kernel.sh: this program only asks.
 * The scenarios live in tests/probe/, one file per system call family.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "probe/probe.h"

static const struct scenario {
	const char *name;
	int least, most;	/* how many arguments; most -1: no limit */
	const char *args;
	const char *what;
	scenario_fn *run;	/* given the arguments */
	arg_scenario_fn *each;	/* or once per argument, answers on one line (each_arg()) */
} scenarios[] = {
	{ "file-pipe-file", 2, 2, "IN OUT", "splice01: file -> pipe -> file",
	  .run = file_pipe_file },
	{ "splice02", 1, 1, "OUT", "splice02: 512-byte writes spliced 1024 a call",
	  .run = splice02 },
	{ "letters", 1, 1, "LEN", "splice02's letters to stdout", .run = letters },
	{ "splice-error", 1, -1, "KIND...", "splice03: bad-fd-in bad-fd-out write-only-in "
	  "read-only-out append-out no-pipe offset-in-pipe offset-out-pipe", .each = splice_error },
	{ "pipe-pipe", 2, 2, "IN OUT", "splice04: pipe -> splice -> pipe", .run = pipe_pipe },
	{ "pipe-unix-pipe", 2, 2, "IN OUT", "splice05: pipe -> AF_UNIX stream -> pipe",
	  .run = pipe_unix_pipe },
	{ "fd-pairs", 0, 0, "", "splice07: every pair with a side that cannot splice",
	  .run = fd_pairs },
	{ "dev-source", 1, 1, "DEV", "splice08: splices of 0 to 8 x 1009 bytes from DEV",
	  .run = dev_source },
	{ "dev-sink", 2, 2, "DEV IN", "splice09: IN queued in a pipe, one splice into DEV",
	  .run = dev_sink },
	{ "dirtypipe", 1, 1, "FILE", "CVE-2022-0847: a write merging into a spliced page",
	  .run = dirtypipe },
	{ "linked-writes", 1, 1, "tee|partial|vmsplice", "a write into each of two pipes "
	  "that share a page", .run = linked_writes },
	{ "splice-offsets", 1, 1, "FILE", "offsets past 2^31 and 2^32", .run = splice_offsets },
	{ "proc-files", 0, 0, "", "which /proc and /sys files splice", .run = proc_files },
	{ "pty", 0, 0, "", "splice from both ends of a pty", .run = pty_splice },
	{ "nonblock-socket", 0, 0, "", "SPLICE_F_NONBLOCK from an idle TCP socket",
	  .run = nonblock_socket },
	{ "tee-empty", 0, 0, "", "tee(2) of an empty pipe, SPLICE_F_NONBLOCK", .run = tee_empty },
	{ "epipe", 0, 0, "", "splice, vmsplice, tee into a pipe without reader", .run = epipe },
	{ "file-by-reference", 1, 1, "FILE", "a file page rewritten while in a pipe",
	  .run = file_by_reference },
	{ "tee-file", 3, 3, "IN OUT COPY", "tee01: file -> pipe -> tee -> pipe -> file",
	  .run = tee_file },
	{ "tee-error", 1, -1, "KIND...", "tee02: file-in file-out same-pipe", .each = tee_error },
	{ "ramp", 1, 1, "LEN", "the ramp pattern to stdout, with write(2)", .run = ramp },
	{ "vmsplice-file", 2, 2, "OUT LEN", "vmsplice01: vmsplice ramp with poll, splice to OUT",
	  .run = vmsplice_file },
	{ "vmsplice-error", 1, -1, "KIND...", "vmsplice02: bad-fd file file-read too-many-iovecs",
	  .each = vmsplice_error },
	{ "vmsplice-touser", 2, 2, "IN OUT", "vmsplice03: pipe -> user memory before a guard page",
	  .run = vmsplice_touser },
	{ "vmsplice-full", 0, 0, "", "vmsplice04: full pipe, SPLICE_F_NONBLOCK then blocking",
	  .run = vmsplice_full },
	{ "vmsplice-reuse", 0, 1, "[gift]", "rewrite a page after it left the first pipe",
	  .run = vmsplice_reuse },
	{ "pipe-set-size", 1, -1, "N...", "F_SETPIPE_SZ N on a fresh pipe", .each = pipe_set_size },
	{ "pipe-set-size-as", 2, -1, "WHO N...", "the same as user:NAME or without "
	  "CAP_SYS_RESOURCE and CAP_SYS_ADMIN (nocap)", .run = pipe_set_size_as },
	{ "pipe-shrink-busy", 0, 0, "", "shrink below what is queued", .run = pipe_shrink_busy },
	{ "page-size", 0, 0, "", "the page size the kernel gave (getconf PAGESIZE where a "
	  "small system has no getconf)", .run = page_bytes },
	{ "fcntl30", 0, 0, "", "fcntl30: get, set to pipe-max-size, get", .run = fcntl30 },
	{ "fcntl35", 1, 1, "USER", "fcntl35: new pipes under a one-page pipe-max-size (root)",
	  .run = fcntl35 },
	{ "fcntl37", 0, 0, "", "fcntl37: EINVAL, EBUSY, EPERM from F_SETPIPE_SZ", .run = fcntl37 },
	{ "pipe2_04", 0, 0, "", "pipe2_04: size 0, a full O_NONBLOCK pipe, a blocking writer",
	  .run = pipe2_04 },
	{ "pipe12", 0, 0, "", "pipe12: writes into full, non-empty, empty pipes", .run = pipe12 },
	{ "pipe15", 1, 1, "WHO", "pipe15: past pipe-user-pages-soft as WHO (or self)",
	  .run = pipe15 },
	{ "pipe-user-pages", 1, 1, "UID", "pipes as UID up to pipe-user-pages-soft and -hard "
	  "(root)", .run = pipe_user_pages },
	{ "sendfile-at", 4, 4, "IN OUT OFFSET|null COUNT", "sendfile02/06/09: offsets, position",
	  .run = sendfile_at },
	{ "sendfile-sparse", 2, 2, "FILE MIB", "sendfile09's sparse input",
	  .run = sendfile_sparse },
	{ "sendfile03", 1, -1, "KIND...", "sendfile03: out-bad out-rdonly in-bad in-wronly",
	  .each = sendfile03 },
	{ "sendfile04", 1, -1, "KIND...", "sendfile04: none read exec read-exec unmapped",
	  .each = sendfile04 },
	{ "sendfile05", 0, 0, "", "sendfile05: offset -1", .run = sendfile05 },
	{ "sendfile07", 0, 0, "", "sendfile07: a full non-blocking socket", .run = sendfile07 },
	{ "sendfile08", 2, 2, "IN OUT", "sendfile08: writes at OUT's position", .run = sendfile08 },
	{ "cfr01", 2, 2, "DIR libc|syscall", "copy_file_range01: lengths x offsets into DIR",
	  .run = cfr01 },
	{ "cfr-once", 2, 2, "DEST libc|syscall", "one line of content to DEST", .run = cfr_once },
	{ "cfr02", 1, 1, "libc|syscall", "copy_file_range02: each refusal", .run = cfr02 },
	{ "cfr03", 1, 1, "libc|syscall", "copy_file_range03: the output's mtime", .run = cfr03 },
	{ "with-tmpfs", 2, -1, "DIR CMD [ARG]...", "CMD with a private tmpfs on DIR",
	  .run = with_tmpfs },
	{ "cow-vmsplice", 2, 2, "base|thp|thp-pte|thp-single|shared WAY",
	  "CVE-2020-29374 (mm/cow.c): WAY child-unmap child-unmap-mprotect before-fork "
	  "parent-after-fork", .run = cow_vmsplice },
	{ "vmsplice-efault", 1, -1, "in|out:KIND...", "CVE-2008-0009/0010/0600: KIND null "
	  "unmapped prot-none top wrap bad-iovec", .each = vmsplice_efault },
	{ "zero-length", 1, 1, "FILE", "liburing splice.c: every call for 0 bytes",
	  .run = zero_length },
	{ "past-eof", 1, 1, "FILE", "generic/434: splice, sendfile, copy_file_range past EOF",
	  .run = past_eof },
	{ "splice-head", 3, 3, "FILE LEN OUT", "short_splice_read.sh: one splice of LEN",
	  .run = splice_head },
	{ "pipe-self", 0, 0, "", "a pipe spliced and teed into itself", .run = pipe_self },
	{ "pipe-cross", 1, 1, "splice|tee",
	  "four threads each way, pipe 1 -> 2 and 2 -> 1, a second",
	  .run = pipe_cross },
	{ "pipe-cross-block", 0, 0, "", "two full pipes spliced into each other, then SIGALRM",
	  .run = pipe_cross_block },
	{ "splice-direct", 2, 2, "FILE seq|concurrent", "generic/591: 1 MiB from an O_DIRECT "
	  "FILE through a 64 KiB pipe", .run = splice_direct },
	{ "fsize-limit", 2, 2, "splice|sendfile|cfr ignore|default", "generic/564: "
	  "RLIMIT_FSIZE, EFBIG or SIGXFSZ", .run = fsize_limit },
	{ "tee-socket", 2, 2, "tcp|unix first|second", "tee(2) of what a socket spliced",
	  .run = tee_socket },
	{ "uring-splice", 1, -1, "CASE...", "liburing splice.c: IORING_OP_SPLICE and TEE: "
	  "file-pos file-off pipe-file pipe-pipe tee pipe-offset tee-file fixed",
	  .each = uring_splice },
	{ "kmsg-last", 0, 0, "", "the kernel log's newest sequence number", .run = kmsg_last },
	{ "kmsg-since", 1, 1, "SEQ", "the kernel log's records after SEQ", .run = kmsg_since },
};

static void
usage(void)
{
	fprintf(stderr, "usage: splice-probe SCENARIO [ARG]...\n");
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		fprintf(stderr, "  %s %s\n      %s\n", scenarios[i].name, scenarios[i].args,
		    scenarios[i].what);
	fprintf(stderr, "Prints \"ok N\" or the errno name; exit 1 when setup failed.\n");
}

int
main(int argc, char *argv[])
{
	const char *name = argc > 1 ? argv[1] : "";
	int nargs = argc - 2;

	/* A scenario that dies of SIGPIPE would hide what the kernel said. */
	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		const struct scenario *s = &scenarios[i];

		if (strcmp(name, s->name) != 0)
			continue;
		if (nargs < s->least || (s->most >= 0 && nargs > s->most))
			break;
		if (s->each)
			each_arg(argv + 2, s->each);
		else
			s->run(argv + 2);
		return fflush(stdout) != 0 || ferror(stdout);
	}
	usage();
	return 2;
}
