/*
 * tcp.c: TCP and Unix-domain stream setup: connect, listen, accept, the
 * sender's end, the reset on abort.  See splice.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <ctype.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "internal.h"

/*
 * connect(2) without blocking, so that a listener whose backlog is full
 * (it drops the SYNs, and the kernel retries for minutes) gives up after
 * timeout_secs (< 0: the kernel's own time); the socket is left blocking.
 */
static int
connect_one(int fd, const struct sockaddr *sa, socklen_t len, double timeout_secs)
{
	int err = 0, flags = fcntl(fd, F_GETFL);
	socklen_t errlen = sizeof(err);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -1;
	if (connect(fd, sa, len) < 0) {
		if (errno != EINPROGRESS && errno != EINTR)
			return -1;
		if (wait_fd_timeout(fd, POLLOUT, timeout_secs) < 0 ||
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &errlen) < 0)
			return -1;
		if (err != 0) {
			errno = err;
			return -1;
		}
	}
	return fcntl(fd, F_SETFL, flags);
}

static int
gai_flags(const struct tcp_opts *o)
{
	return o->numeric ? AI_NUMERICHOST | AI_NUMERICSERV : 0;
}

/* -s: the local address to connect from, of the family being tried. */
static int
bind_source(int fd, const struct tcp_opts *o, int family)
{
	const struct addrinfo hints = {
		.ai_family = family, .ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | gai_flags(o),
	};
	struct addrinfo *list;
	int gai, r;

	if (o->source == NULL)
		return 0;
	gai = getaddrinfo(o->source, NULL, &hints, &list);
	if (gai != 0) {
		errno = gai == EAI_SYSTEM ? errno : EADDRNOTAVAIL;
		return -1;
	}
	r = bind(fd, list->ai_addr, list->ai_addrlen);
	freeaddrinfo(list);
	return r;
}

/* One pass over every address of host; the socket, or -1 with *err, *gai. */
static int
connect_round(const char *host, const char *port, const struct tcp_opts *o, int *err,
    int *gai)
{
	const struct addrinfo hints = {
		.ai_family = o->family, .ai_socktype = SOCK_STREAM, .ai_flags = gai_flags(o),
	};
	struct addrinfo *list, *ai;
	double timeout_secs = o->timeout_secs > 0 ? o->timeout_secs : -1;

	*err = 0;
	*gai = getaddrinfo(host, port, &hints, &list);
	if (*gai != 0) {
		if (*gai == EAI_SYSTEM)
			*err = errno;
		return -1;
	}
	for (ai = list; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);

		if (fd >= 0 && bind_source(fd, o, ai->ai_family) == 0 &&
		    connect_one(fd, ai->ai_addr, ai->ai_addrlen, timeout_secs) == 0) {
			freeaddrinfo(list);
			/*
			 * A peer that stops reading leaves the data unsent
			 * (zero window): give up after -w as well.
			 */
			if (o->timeout_secs > 0) {
				unsigned int ms = o->timeout_secs >= 4e6 ? 4000000000U :
				    (unsigned int)(o->timeout_secs * 1000.0);

				setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof(ms));
			}
			return fd;
		}
		*err = errno;
		if (fd >= 0)
			close(fd);
	}
	freeaddrinfo(list);
	return -1;
}

int
tcp_connect(const char *host, const char *port, const struct tcp_opts *o)
{
	double deadline = now_seconds() + o->retry_secs;

	for (;;) {
		int err, gai, fd = connect_round(host, port, o, &err, &gai);

		if (fd >= 0)
			return fd;
		/* A name that does not exist will not appear by waiting. */
		if ((gai != 0 && gai != EAI_AGAIN && gai != EAI_SYSTEM) ||
		    now_seconds() >= deadline) {
			if (gai != 0 && gai != EAI_SYSTEM)
				warn_msg("%s%s%s: %s", o->name ? o->name : host, o->name ? "" : " ",
				    o->name ? "" : port, gai_strerror(gai));
			else {
				errno = err ? err : ECONNREFUSED;
				warn_errno("%s%s%s", o->name ? o->name : host, o->name ? "" : " ",
				    o->name ? "" : port);
			}
			return -1;
		}
		/* A receiver starting up: try again soon, not in a busy loop. */
		sleep_seconds(deadline - now_seconds() < 0.1 ?
		    deadline - now_seconds() : 0.1);
	}
}

/* sockaddr_un for path; -1 with ENAMETOOLONG when it does not fit. */
static int
unix_address(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun->sun_path, path);
	return 0;
}

int
unix_connect(const char *path, const struct tcp_opts *o)
{
	double deadline = now_seconds() + o->retry_secs;
	struct sockaddr_un sun;

	if (unix_address(path, &sun) < 0) {
		warn_errno("%s", path);
		return -1;
	}
	for (;;) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), err;

		/* A full backlog makes a non-blocking connect fail with EAGAIN. */
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
			return fd;
		err = errno;
		if (fd >= 0)
			close(fd);
		if ((err != ECONNREFUSED && err != ENOENT) || now_seconds() >= deadline) {
			errno = err;
			warn_errno("%s", path);
			return -1;
		}
		sleep_seconds(deadline - now_seconds() < 0.1 ?
		    deadline - now_seconds() : 0.1);
	}
}

/*
 * Whether a listening Unix-domain socket of this network namespace is bound
 * to a path with the same last component as path (the kernel keeps the
 * path as it was given, relative or not).  When /proc/net/unix cannot be
 * read, it may be: true.
 */
static bool
unix_listener_named(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	FILE *f = fopen("/proc/net/unix", "re");
	char line[512];
	bool found = false;

	if (f == NULL)
		return true;
	while (!found && fgets(line, sizeof(line), f)) {
		char *field[8], *save = NULL;
		const char *bound_base;
		int n = 0;

		/* Num RefCount Protocol Flags Type St Inode Path; 0x10000: listening. */
		for (char *w = strtok_r(line, " \n", &save); w && n < 8;
		    w = strtok_r(NULL, " \n", &save))
			field[n++] = w;
		if (n < 8 || !(strtoul(field[3], NULL, 16) & 0x10000))
			continue;
		bound_base = strrchr(field[7], '/') ? strrchr(field[7], '/') + 1 : field[7];
		found = strcmp(bound_base, base) == 0;
	}
	fclose(f);
	return found;
}

/*
 * A socket file at path that nobody listens on (a listener that was killed
 * left it).  Anything else there (a live listener, a file that is not a
 * socket) is left alone.  A connect(2) would tell, but a live listener
 * would take it for a peer: it is tried only once /proc/net/unix shows no
 * listener that could be the one.
 */
static bool
unix_stale(const struct sockaddr_un *sun)
{
	struct stat st;
	int fd, err;

	if (lstat(sun->sun_path, &st) < 0 || !S_ISSOCK(st.st_mode) ||
	    unix_listener_named(sun->sun_path) ||
	    (fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return false;
	err = connect(fd, (const struct sockaddr *)sun, sizeof(*sun)) < 0 ? errno : 0;
	close(fd);
	return err == ECONNREFUSED;
}

int
unix_listen(const char *path)
{
	struct sockaddr_un sun;
	int fd = -1, err;

	if (unix_address(path, &sun) < 0 ||
	    (fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		goto fail;
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		err = errno;
		/* As nc -lU does: a stale socket file is replaced, nothing else. */
		if (err != EADDRINUSE || !unix_stale(&sun) || unlink(path) < 0 ||
		    bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
			errno = err;
			goto fail;
		}
	}
	if (listen(fd, 16) == 0)
		return fd;
fail:
	warn_errno("%s", path);
	if (fd >= 0)
		close(fd);
	return -1;
}

static bool
v4_mapped(const struct addrinfo *ai)
{
	const struct sockaddr_in6 *sin6 = (const void *)ai->ai_addr;

	return ai->ai_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr);
}

static int
listen_on(const struct addrinfo *ai, bool dual_stack)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
	int on = 1, off = 0;

	if (fd < 0)
		return -1;
	/* A port left in TIME_WAIT by the last run is free to reuse. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	/*
	 * "::" takes IPv4 too unless -6 asked for IPv6 alone, whatever
	 * net.ipv6.bindv6only says; a v4-mapped address (::ffff:127.0.0.1)
	 * needs IPv4 too.
	 */
	if (ai->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, dual_stack || v4_mapped(ai) ? &off : &on,
		    sizeof(on));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 16) == 0)
		return fd;
	int err = errno;

	close(fd);
	errno = err;
	return -1;
}

int
tcp_listen(const char *addr, const char *port, const struct tcp_opts *o, struct tcp_name *bound)
{
	struct addrinfo hints = {
		.ai_family = o->family, .ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | gai_flags(o),
	};
	struct addrinfo *list, *ai;
	int gai, fd = -1;

	/* Every address: "::" with IPv4 mapped in, else 0.0.0.0. */
	if (addr == NULL && o->family == AF_UNSPEC) {
		hints.ai_family = AF_INET6;
		if (getaddrinfo(NULL, port, &hints, &list) == 0) {
			for (ai = list; ai && fd < 0; ai = ai->ai_next)
				fd = listen_on(ai, true);
			freeaddrinfo(list);
		}
		hints.ai_family = AF_INET;
	}
	if (fd < 0) {
		gai = getaddrinfo(addr, port, &hints, &list);
		if (gai != 0) {
			if (gai == EAI_SYSTEM)
				warn_errno("%s %s", addr ? addr : "*", port);
			else
				warn_msg("%s %s: %s", addr ? addr : "*", port, gai_strerror(gai));
			return -1;
		}
		for (ai = list; ai && fd < 0; ai = ai->ai_next)
			fd = listen_on(ai, false);
		freeaddrinfo(list);
		if (fd < 0) {
			warn_errno("%s %s", addr ? addr : "*", port);
			return -1;
		}
	}
	if (bound) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);

		if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
			warn_errno("%s %s: getsockname", addr ? addr : "*", port);
			close(fd);
			return -1;
		}
		tcp_name_of((struct sockaddr *)&ss, bound);
	}
	return fd;
}

int
tcp_accept(int listen_fd, double timeout_secs, struct tcp_name *peer)
{
	double deadline = now_seconds() + timeout_secs;

	for (;;) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		int fd;

		if (wait_fd_timeout(listen_fd, POLLIN,
		    timeout_secs < 0 ? -1 : deadline - now_seconds()) < 0)
			return -1;
		fd = accept4(listen_fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd >= 0) {
			if (peer)
				tcp_name_of((struct sockaddr *)&ss, peer);
			return fd;
		}
		/* A peer that gave up before we took it is not our error. */
		if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN)
			return -1;
	}
}

int
tcp_finish(int fd, double idle_secs)
{
	size_t drop_bytes;
	void *drop = copy_buffer(&drop_bytes);

	if (shutdown(fd, SHUT_WR) < 0)
		return -1;
	for (;;) {
		ssize_t n;

		if (wait_fd_timeout(fd, POLLIN, idle_secs > 0 ? idle_secs : -1) < 0)
			return -1;
		n = read_retry(fd, drop, drop_bytes);
		if (n <= 0)
			return (int)n;
	}
}

/* Closing with a zero linger time sends RST, not FIN. */
static void
reset_on_close(int fd)
{
	const struct linger reset = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
}

void
tcp_abort(int fd)
{
	reset_on_close(fd);
	close(fd);
}

static const int *abort_fds;
static size_t abort_nfds;

void
tcp_reset_registered(void)
{
	for (size_t i = 0; i < abort_nfds; i++)
		if (abort_fds[i] >= 0)
			reset_on_close(abort_fds[i]);
}

void
tcp_abort_and_die(int sig)
{
	tcp_reset_registered();
	term_dying();
	signal(sig, SIG_DFL);
	raise(sig);
	/* Blocked or ignored: end as the signal would have. */
	_exit(128 + sig);
}

void
tcp_abort_on_signals(const int *fds, size_t nfds)
{
	struct sigaction sa = { .sa_handler = tcp_abort_and_die }, old;

	abort_fds = fds;
	abort_nfds = nfds;
	/*
	 * SIGINT, SIGTERM and SIGHUP reach progress.c's watcher thread,
	 * which runs this hook before it ends the tool; SIGPIPE reaches the
	 * thread that wrote.  Ignored stays ignored (nohup, splice-tee -p).
	 */
	on_ending_signal(tcp_reset_registered);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPIPE, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGPIPE, &sa, NULL);
}
