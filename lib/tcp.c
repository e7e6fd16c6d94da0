/*
 * tcp.c: TCP setup: connect, listen, accept, addresses, the sender's end.  See splice.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "splice.h"

static void
tcp_name_of(const struct sockaddr *sa, struct tcp_name *name)
{
	const void *addr;

	name->host[0] = '\0';
	name->port = 0;
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)sa;

		addr = &sin6->sin6_addr;
		name->port = ntohs(sin6->sin6_port);
		/* A dual-stack listener's IPv4 peer reads better as IPv4. */
		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			addr = &sin6->sin6_addr.s6_addr[12];
			if (inet_ntop(AF_INET, addr, name->host, sizeof(name->host)) == NULL)
				strcpy(name->host, "?");
			return;
		}
	} else if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)sa;

		addr = &sin->sin_addr;
		name->port = ntohs(sin->sin_port);
	} else
		return;
	if (inet_ntop(sa->sa_family, addr, name->host, sizeof(name->host)) == NULL)
		strcpy(name->host, "?");
}

/* connect(2), which EINTR does not restart: the rest happens in the kernel. */
static int
connect_one(int fd, const struct sockaddr *sa, socklen_t len)
{
	int err = 0;
	socklen_t errlen = sizeof(err);

	if (connect(fd, sa, len) == 0)
		return 0;
	if (errno != EINTR && errno != EINPROGRESS)
		return -1;
	if (wait_fd(fd, POLLOUT) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &errlen) < 0)
		return -1;
	errno = err;
	return err == 0 ? 0 : -1;
}

int
tcp_connect(const char *host, const char *port, int family, double retry_secs)
{
	const struct addrinfo hints = { .ai_family = family, .ai_socktype = SOCK_STREAM };
	double deadline = now_seconds() + retry_secs;

	for (;;) {
		struct addrinfo *list, *ai;
		int gai = getaddrinfo(host, port, &hints, &list), err = 0;

		if (gai == 0) {
			for (ai = list; ai; ai = ai->ai_next) {
				int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
				    ai->ai_protocol);

				if (fd >= 0 && connect_one(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
					freeaddrinfo(list);
					return fd;
				}
				err = errno;
				if (fd >= 0)
					close(fd);
			}
			freeaddrinfo(list);
		} else if (gai == EAI_SYSTEM)
			err = errno;
		/* A name that does not exist will not appear by waiting. */
		if ((gai != 0 && gai != EAI_AGAIN && gai != EAI_SYSTEM) ||
		    now_seconds() >= deadline) {
			if (gai != 0 && gai != EAI_SYSTEM)
				warn_msg("%s %s: %s", host, port, gai_strerror(gai));
			else {
				errno = err ? err : ECONNREFUSED;
				warn_errno("%s %s", host, port);
			}
			return -1;
		}
		/* A receiver starting up: try again soon, not in a busy loop. */
		sleep_seconds(deadline - now_seconds() < 0.1 ?
		    deadline - now_seconds() : 0.1);
	}
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
	 * net.ipv6.bindv6only says.
	 */
	if (ai->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, dual_stack ? &off : &on, sizeof(on));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 16) == 0)
		return fd;
	int err = errno;

	close(fd);
	errno = err;
	return -1;
}

int
tcp_listen(const char *addr, const char *port, int family, struct tcp_name *bound)
{
	struct addrinfo hints = {
		.ai_family = family, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE,
	};
	struct addrinfo *list, *ai;
	int gai, fd = -1;

	/* Every address: "::" with IPv4 mapped in, else 0.0.0.0. */
	if (addr == NULL && family == AF_UNSPEC) {
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
		struct pollfd pfd = { .fd = listen_fd, .events = POLLIN };
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		int ms = -1, fd, r;

		if (timeout_secs >= 0) {
			double left_secs = deadline - now_seconds();

			/* poll(2) takes an int: a longer wait is several polls. */
			ms = left_secs <= 0 ? 0 : left_secs >= INT_MAX / 1000.0 ? INT_MAX :
			    (int)(left_secs * 1000.0) + 1;
		}
		r = poll(&pfd, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0 && now_seconds() < deadline)
			continue;
		if (r == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		fd = accept4(listen_fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
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
tcp_split(char *spec, char **host, char **port)
{
	char *colon;

	if (spec[0] == '[') {
		char *close_bracket = strchr(spec, ']');

		if (close_bracket == NULL || close_bracket[1] != ':' || close_bracket[2] == '\0')
			return -1;
		*close_bracket = '\0';
		*host = spec + 1;
		*port = close_bracket + 2;
		return port_valid(*port, false) ? 0 : -1;
	}
	colon = strchr(spec, ':');
	/* "::1:9000" is ambiguous: IPv6 needs brackets. */
	if (colon == NULL || colon == spec || colon[1] == '\0' || strchr(colon + 1, ':'))
		return -1;
	*colon = '\0';
	*host = spec;
	*port = colon + 1;
	return port_valid(*port, false) ? 0 : -1;
}

bool
port_valid(const char *port, bool allow_zero)
{
	unsigned long value = 0;
	const char *p;

	if (*port == '\0')
		return false;
	for (p = port; *p >= '0' && *p <= '9'; p++)
		if ((value = value * 10 + (unsigned long)(*p - '0')) > 65535)
			return false;
	return *p != '\0' || value > 0 || allow_zero;
}

int
tcp_finish(int fd)
{
	size_t drop_bytes;
	void *drop = copy_buffer(&drop_bytes);

	if (shutdown(fd, SHUT_WR) < 0)
		return -1;
	for (;;) {
		ssize_t n = read_retry(fd, drop, drop_bytes);

		if (n <= 0)
			return (int)n;
	}
}
