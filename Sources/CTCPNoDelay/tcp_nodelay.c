#define _GNU_SOURCE
#include "CTCPNoDelay.h"
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef int (*connect_fn)(int, const struct sockaddr *, socklen_t);

/* libc's connect, found once before main (one thread then): no lazy lookup in a signal or a race. */
static connect_fn libc_connect;

__attribute__((constructor)) static void find_libc_connect(void) {
    libc_connect = (connect_fn)dlsym(RTLD_NEXT, "connect");
}

int connect(int fd, const struct sockaddr *address, socklen_t length);

/* Installed: libc's connect was found, and the libraries' lookups of connect
 * reach this one (the executable exports it, see Package.swift). */
int ctcpnodelay_installed(void) {
    return libc_connect != NULL && (connect_fn)dlsym(RTLD_DEFAULT, "connect") == connect;
}

/* The executable's connect comes before libc's for every library: ld.so
 * searches the executable first, and an unversioned definition there answers
 * the libraries' connect@GLIBC_2.2.5. Only TCP over IP is touched; a failed
 * setsockopt leaves the socket as it was. */
int connect(int fd, const struct sockaddr *address, socklen_t length) {
    if (address != NULL && length >= (socklen_t)sizeof(sa_family_t)
        && (address->sa_family == AF_INET || address->sa_family == AF_INET6)) {
        int type = 0;
        socklen_t size = sizeof type;
        int saved = errno;
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) == 0 && type == SOCK_STREAM) {
            int on = 1;
            (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        }
        errno = saved;
    }
    if (libc_connect != NULL) return libc_connect(fd, address, length);
    return (int)syscall(SYS_connect, fd, address, length);
}
