#include "CSocketShim.h"
/* The peer's advertised receive window of a TCP socket, from the kernel's own struct
   tcp_info: glibc's netinet/tcp.h stops before tcpi_snd_wnd (Linux 5.4), so this file
   reads linux/tcp.h, and only it (the two headers cannot be included together). */
#include <linux/tcp.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

/* The kernel's tcp_info of `fd`, and how much of it the kernel filled; 0 on success. */
static int tcp_info_of(int fd, struct tcp_info *info, socklen_t *length) {
    *length = sizeof(*info);
    memset(info, 0, sizeof(*info));
    return getsockopt(fd, IPPROTO_TCP, TCP_INFO, info, length);
}

int csocket_tcp_send_window(int fd) {
    struct tcp_info info;
    socklen_t length;
    if (tcp_info_of(fd, &info, &length) != 0) return -1;
    /* A kernel before 5.4 fills less of the struct: no window to tell. */
    if (length < offsetof(struct tcp_info, tcpi_snd_wnd) + sizeof(info.tcpi_snd_wnd)) return -1;
    return info.tcpi_snd_wnd > INT_MAX ? INT_MAX : (int)info.tcpi_snd_wnd;
}

/* Whether the sender is recovering lost data: segments the peer SACKed (it holds them
   out of order, which narrows its window while it reads), segments taken for lost, or
   retransmitted and not acknowledged yet. 1 or 0; -1 when the kernel does not tell. */
int csocket_tcp_recovering(int fd) {
    struct tcp_info info;
    socklen_t length;
    if (tcp_info_of(fd, &info, &length) != 0) return -1;
    if (length < offsetof(struct tcp_info, tcpi_retrans) + sizeof(info.tcpi_retrans)) return -1;
    return info.tcpi_sacked > 0 || info.tcpi_lost > 0 || info.tcpi_retrans > 0;
}
