/*
 * addr.c: addresses as users write them and as scripts read them: HOST:PORT,
 * ports, --allow networks, peers' names, nc's -4 -6 -n -N.  See splice.h.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "internal.h"

void
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

bool
net_option(int opt, struct tcp_opts *o)
{
	switch (opt) {
	case '4':
		o->family = AF_INET;
		return true;
	case '6':
		o->family = AF_INET6;
		return true;
	case 'n':
		o->numeric = true;
		return true;
	case 'N':
		/* nc -N: shut down at the end of input, which is what we do. */
		return true;
	default:
		return false;
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
		return 0;
	}
	colon = strchr(spec, ':');
	/* "::1:9000" is ambiguous: IPv6 needs brackets. */
	if (colon == NULL || colon == spec || colon[1] == '\0' || strchr(colon + 1, ':'))
		return -1;
	*colon = '\0';
	*host = spec;
	*port = colon + 1;
	return 0;
}

bool
port_valid(const char *port, bool allow_zero)
{
	unsigned long value = 0;
	bool negative = false;
	const char *p = port;

	/* What getaddrinfo() takes for a number: strtoul(3)'s syntax. */
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '+' || *p == '-')
		negative = *p++ == '-';
	if (*p < '0' || *p > '9')
		/* A service name ("http") is getaddrinfo()'s to look up. */
		return *port != '\0' && p == port;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((value = value * 10 + (unsigned long)(*p - '0')) > 65535)
			return false;
	/* "80x" is neither a number nor a name anyone means. */
	if (*p != '\0' || (negative && value != 0))
		return false;
	return value > 0 || allow_zero;
}

int
tcp_net_parse(const char *spec, struct tcp_net *net)
{
	char addr[INET6_ADDRSTRLEN];
	const char *slash = strchr(spec, '/');
	size_t len = slash ? (size_t)(slash - spec) : strlen(spec);
	unsigned long bits;
	char *end;

	if (len == 0 || len >= sizeof(addr))
		return -1;
	memcpy(addr, spec, len);
	addr[len] = '\0';
	memset(net, 0, sizeof(*net));
	if (inet_pton(AF_INET, addr, net->addr) == 1)
		net->family = AF_INET;
	else if (inet_pton(AF_INET6, addr, net->addr) == 1)
		net->family = AF_INET6;
	else
		return -1;
	net->prefix_bits = net->family == AF_INET ? 32 : 128;
	if (slash) {
		if (slash[1] < '0' || slash[1] > '9')
			return -1;
		bits = strtoul(slash + 1, &end, 10);
		if (*end != '\0' || bits > net->prefix_bits)
			return -1;
		net->prefix_bits = (unsigned int)bits;
	}
	/* Peers are named as IPv4 when they are v4-mapped: match them so. */
	if (net->family == AF_INET6 && IN6_IS_ADDR_V4MAPPED((struct in6_addr *)net->addr) &&
	    net->prefix_bits >= 96) {
		memmove(net->addr, net->addr + 12, 4);
		net->family = AF_INET;
		net->prefix_bits -= 96;
	}
	return 0;
}

bool
tcp_net_match(const struct tcp_net *nets, size_t n, const struct tcp_name *peer)
{
	unsigned char addr[16];
	int family = inet_pton(AF_INET, peer->host, addr) == 1 ? AF_INET :
	    inet_pton(AF_INET6, peer->host, addr) == 1 ? AF_INET6 : AF_UNSPEC;

	for (size_t i = 0; i < n; i++) {
		unsigned int whole = nets[i].prefix_bits / 8, rest = nets[i].prefix_bits % 8;
		unsigned char mask = (unsigned char)(0xff00 >> rest);

		if (nets[i].family != family || memcmp(nets[i].addr, addr, whole) != 0)
			continue;
		if (rest == 0 || ((nets[i].addr[whole] ^ addr[whole]) & mask) == 0)
			return true;
	}
	return false;
}
