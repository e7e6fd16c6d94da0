/*
 * files.c: what xfstests asks of the family on files, and tee(2) of what a
 * socket spliced: generic/591 (splice from an O_DIRECT file, more than
 * the pipe holds, read sequentially or by a concurrent reader), generic/564
 * (RLIMIT_FSIZE: up to the limit, then EFBIG or SIGXFSZ), and a tee of
 * buffers a TCP or AF_UNIX socket filled, released in either order.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

/*
 * splice-direct FILE seq|concurrent: FILE (1 MiB, written here) opened
 * O_DIRECT, spliced into a 64 KiB pipe in requests of 1 MiB; seq: each
 * call's bytes read back before the next; concurrent: a child reads the
 * pipe meanwhile.  Prints "ok N exact" (N bytes, all as written), the
 * error, or "nodirect" when the file system refuses O_DIRECT.
 */
void
splice_direct(char *argv[])
{
	const size_t len = 1 << 20;
	char *want = pages(len), *got = pages(len);
	bool concurrent = strcmp(argv[1], "concurrent") == 0;
	int fd, p[2], back[2];
	loff_t off = 0;
	size_t have = 0;
	long n = 0;
	pid_t kid = -1;

	if (!concurrent && strcmp(argv[1], "seq") != 0)
		bad_usage("splice-direct: seq or concurrent, not '%s'", argv[1]);
	fill_ramp(want, len);
	spit(argv[0], want, len);
	fd = open(argv[0], O_RDONLY | O_DIRECT);
	if (fd < 0) {
		printf(errno == EINVAL ? "nodirect\n" : "%s\n", errno_name(errno));
		return;
	}
	make_pipe(p);
	if (fcntl(p[1], F_SETPIPE_SZ, 65536) < 0)
		die("F_SETPIPE_SZ");
	make_pipe(back);
	if (concurrent) {
		kid = fork_or_die();
		if (kid == 0) {
			/* All it reads, then all of it back: the parent reads once it is done. */
			close(p[1]);
			for (;;) {
				ssize_t r = read(p[0], got + have, len - have);

				if (r <= 0)
					break;
				have += (size_t)r;
			}
			write_or_die(back[1], got, have);
			_exit(0);
		}
		close(p[0]);
		close(back[1]);
	}
	while (off < (loff_t)len) {
		n = splice(fd, &off, p[1], NULL, len - (size_t)off, 0);
		if (n <= 0)
			break;
		if (!concurrent) {
			read_exactly(p[0], got + have, (size_t)n);
			have += (size_t)n;
		}
	}
	if (concurrent) {
		int status;

		close(p[1]);
		while (have < len) {
			ssize_t r = read(back[0], got + have, len - have);

			if (r <= 0)
				break;
			have += (size_t)r;
		}
		waitpid(kid, &status, 0);
	}
	if (n < 0) {
		printf("%s after %lld\n", errno_name(errno), (long long)off);
		return;
	}
	printf("ok %zu %s\n", have, have == len && memcmp(want, got, len) == 0 ? "exact" :
	    "differs");
}

/*
 * fsize-limit splice|sendfile|cfr ignore|default: RLIMIT_FSIZE of 64 KiB,
 * 128 KiB to copy into a new file: the first call writes up to the limit,
 * the next one is refused.  ignore: SIGXFSZ ignored, EFBIG; default: the
 * signal ends the process ("killed by SIGXFSZ"; the calls run in a child).
 */
void
fsize_limit(char *argv[])
{
	static const char *const ways[] = { "splice", "sendfile", "cfr" };
	int way = pick("fsize-limit", argv[0], ways, 3);
	bool ignore = strcmp(argv[1], "ignore") == 0;
	int said[2], status;
	char line[64] = "";
	pid_t kid;

	if (!ignore && strcmp(argv[1], "default") != 0)
		bad_usage("fsize-limit: ignore or default, not '%s'", argv[1]);
	make_pipe(said);
	kid = fork_or_die();
	if (kid == 0) {
		const size_t len = 128 << 10;
		struct rlimit lim = { .rlim_cur = 64 << 10, .rlim_max = 64 << 10 };
		char *data = pages(len);
		int in = open_or_die("probe-fsize-in", O_RDWR | O_CREAT | O_TRUNC);
		int out = open_or_die("probe-fsize-out", O_RDWR | O_CREAT | O_TRUNC);
		int p[2];
		long n[2];
		int err = 0, len_line;

		fill_ramp(data, len);
		write_or_die(in, data, len);
		make_pipe(p);
		if (fcntl(p[1], F_SETPIPE_SZ, (int)len) < 0)
			die("F_SETPIPE_SZ");
		write_or_die(p[1], data, len);
		signal(SIGXFSZ, ignore ? SIG_IGN : SIG_DFL);
		if (setrlimit(RLIMIT_FSIZE, &lim) < 0)
			die("setrlimit");
		for (int i = 0; i < 2; i++) {
			loff_t off = i == 0 ? 0 : 64 << 10;
			size_t ask = i == 0 ? len : len - (64 << 10);

			/* The second call asks from where the first stopped, at the limit. */
			if (way == 0)
				n[i] = splice(p[0], NULL, out, NULL, ask, 0);
			else if (way == 1)
				n[i] = sendfile(out, in, &(off_t){ off }, ask);
			else
				n[i] = copy_file_range(in, &off, out, NULL, ask, 0);
			if (n[i] < 0)
				err = errno;
		}
		len_line = snprintf(line, sizeof(line), "ok %ld %s\n", n[0],
		    n[1] < 0 ? errno_name(err) : "more");
		write_or_die(said[1], line, (size_t)len_line);
		_exit(0);
	}
	close(said[1]);
	if (waitpid(kid, &status, 0) < 0)
		die("waitpid");
	if (WIFSIGNALED(status)) {
		/* What the first call wrote: the file's size. */
		int out = open_or_die("probe-fsize-out", O_RDONLY);
		off_t size = lseek(out, 0, SEEK_END);

		printf("ok %lld killed by %s\n", (long long)size,
		    WTERMSIG(status) == SIGXFSZ ? "SIGXFSZ" : "another signal");
		return;
	}
	if (read(said[0], line, sizeof(line) - 1) <= 0)
		die("the child said nothing");
	fputs(line, stdout);
}

/* A connected pair: TCP over loopback, or AF_UNIX stream. */
static void
connected(bool tcp, int sv[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int l;

	if (!tcp) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
			die("socketpair");
		return;
	}
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &alen) < 0)
		die("listen on 127.0.0.1");
	sv[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (sv[0] < 0 || connect(sv[0], (struct sockaddr *)&a, sizeof(a)) < 0)
		die("connect to 127.0.0.1");
	sv[1] = accept(l, NULL, NULL);
	if (sv[1] < 0)
		die("accept");
	close(l);
}

/*
 * tee-socket tcp|unix first|second: 60 KiB written into a socket, spliced
 * from its other end into pipe 1, teed into pipe 2; then read back, the
 * original (first) or the copy (second) first.  Prints "ok N exact exact"
 * when both hold what was written.
 */
void
tee_socket(char *argv[])
{
	const size_t len = 60 << 10;
	bool tcp = strcmp(argv[0], "tcp") == 0, copy_first = strcmp(argv[1], "second") == 0;
	char *want = pages(len), *got1 = pages(len), *got2 = pages(len);
	int sv[2], p1[2], p2[2];
	size_t have = 0;
	long n = 0;

	if (!tcp && strcmp(argv[0], "unix") != 0)
		bad_usage("tee-socket: tcp or unix, not '%s'", argv[0]);
	connected(tcp, sv);
	make_pipe(p1);
	make_pipe(p2);
	/* Room for a buffer per segment the socket hands over, however small. */
	if (fcntl(p1[1], F_SETPIPE_SZ, 1 << 20) < 0 || fcntl(p2[1], F_SETPIPE_SZ, 1 << 20) < 0)
		die("F_SETPIPE_SZ");
	fill_ramp(want, len);
	write_or_die(sv[0], want, len);
	while (have < len) {
		n = splice(sv[1], NULL, p1[1], NULL, len - have, 0);
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	if (n <= 0) {
		result_line(n, errno);
		return;
	}
	n = tee(p1[0], p2[1], len, 0);
	if (n != (long)len) {
		printf("tee: ");
		result_line(n, errno);
		return;
	}
	if (copy_first)
		read_exactly(p2[0], got2, len);
	read_exactly(p1[0], got1, len);
	close(p1[0]);
	if (!copy_first)
		read_exactly(p2[0], got2, len);
	printf("ok %zu %s %s\n", len, memcmp(want, got1, len) == 0 ? "exact" : "differs",
	    memcmp(want, got2, len) == 0 ? "exact" : "differs");
}
