/* The peer's advertised receive window of a TCP socket, from the kernel's own struct
   tcp_info: glibc's netinet/tcp.h stops before tcpi_snd_wnd (Linux 5.4), so this file
   reads linux/tcp.h, and only it (the two headers cannot be included together). */
#include <linux/tcp.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

int cshim_tcp_send_window(int fd) {
    struct tcp_info info;
    socklen_t length = sizeof(info);
    memset(&info, 0, sizeof(info));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
    /* A kernel before 5.4 fills less of the struct: no window to tell. */
    if (length < offsetof(struct tcp_info, tcpi_snd_wnd) + sizeof(info.tcpi_snd_wnd)) return -1;
    return info.tcpi_snd_wnd > INT_MAX ? INT_MAX : (int)info.tcpi_snd_wnd;
}
