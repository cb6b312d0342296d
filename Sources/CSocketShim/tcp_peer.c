#include "CSocketShim.h"
#include <string.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/sockios.h>

int csocket_tcp_peer(int fd, int *family, unsigned char address[16], int *port, int *unacked) {
    int type = 0;
    socklen_t length = sizeof(type);
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM) return 0;
    struct tcp_info info;
    length = sizeof(info);
    memset(&info, 0, sizeof(info));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0 || info.tcpi_state != TCP_ESTABLISHED) return 0;
    struct sockaddr_storage peer;
    length = sizeof(peer);
    if (getpeername(fd, (struct sockaddr *)&peer, &length) != 0) return 0;
    memset(address, 0, 16);
    if (peer.ss_family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *)&peer;
        memcpy(address, &in->sin_addr, 4);
        *port = ntohs(in->sin_port);
    } else if (peer.ss_family == AF_INET6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&peer;
        memcpy(address, &in6->sin6_addr, 16);
        *port = ntohs(in6->sin6_port);
    } else {
        return 0;
    }
    *family = peer.ss_family;
    int queued = 0;
    if (ioctl(fd, SIOCOUTQ, &queued) != 0) return 0;
    *unacked = queued;
    return 1;
}
