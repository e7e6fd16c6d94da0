/*
 * vmsplice_io.c: vmsplice(2) into and out of a pipe.  See splice.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/uio.h>

#include "internal.h"

int
vmsplice_all(int fd, const void *buf, size_t len, unsigned int flags, bool busy)
{
	const char *p = buf;

	while (len > 0) {
		struct iovec iov = { .iov_base = (void *)p, .iov_len = len };
		ssize_t n = vmsplice(fd, &iov, 1, flags | SPLICE_F_NONBLOCK);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			account(M_VMSPLICE, (uint64_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			/* A POLLOUT only promises one free slot: loop. */
			if (!busy && wait_fd(fd, POLLOUT) < 0)
				return -1;
			continue;
		}
		if (n == 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

ssize_t
vmsplice_read(int fd, void *buf, size_t len, bool nonblock)
{
	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = len };
		ssize_t n = vmsplice(fd, &iov, 1, nonblock ? SPLICE_F_NONBLOCK : 0);

		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			if (wait_fd(fd, POLLIN) < 0)
				return -1;
			continue;
		}
		return -1;
	}
}
