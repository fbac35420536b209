/* noresolve.c - linked into every fuzz target and replay driver: name
 * lookups answer "unknown host" without asking anyone. A fuzzed tcpdump
 * expression ("host x", "gateway y") or tc line would otherwise have
 * libpcap send a DNS query for every input. These definitions take the
 * place of libc's for the whole process, libpcap included. */
#include <netdb.h>
#include <stddef.h>

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
		struct addrinfo **res)
{
	if (res)
		*res = NULL;
	return EAI_NONAME;
}

struct hostent *gethostbyname(const char *name)
{
	h_errno = HOST_NOT_FOUND;
	return NULL;
}

struct hostent *gethostbyname2(const char *name, int af)
{
	h_errno = HOST_NOT_FOUND;
	return NULL;
}

int gethostbyname_r(const char *name, struct hostent *ret, char *buf, size_t buflen,
		    struct hostent **result, int *h_errnop)
{
	*result = NULL;
	if (h_errnop)
		*h_errnop = HOST_NOT_FOUND;
	return 0;
}

struct hostent *gethostbyaddr(const void *addr, socklen_t len, int type)
{
	h_errno = HOST_NOT_FOUND;
	return NULL;
}
