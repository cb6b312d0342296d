#ifndef CSOCKETSHIM_H
#define CSOCKETSHIM_H
/* The kernel's view of a TCP socket of this process (getsockopt TCP_INFO, SIOCOUTQ),
   which an output's link probe reads (prefix csocket_). */

/* A socket of this process (fd): 1 when it is an established TCP connection, with its
   peer's family (AF_INET or AF_INET6), address (4 or 16 bytes into address[16]) and port,
   and the bytes it sent that the peer has not acknowledged yet (SIOCOUTQ); else 0.
   Cheap syscalls: no scan of the kernel's connection tables (/proc/net/tcp walks every
   bucket of the host's hash table, some 15 ms a read here). tcp_peer.c */
int csocket_tcp_peer(int fd, int *family, unsigned char address[16], int *port, int *unacked);

/* The receive window the peer of TCP socket `fd` last advertised (TCP_INFO's tcpi_snd_wnd,
   Linux 5.4), in bytes; -1 when the kernel does not tell it (tcp_window.c). */
int csocket_tcp_send_window(int fd);

/* Whether TCP socket `fd` is recovering lost data (segments SACKed, lost or retransmitted
   and not acknowledged yet): 1 or 0; -1 when the kernel does not tell (tcp_window.c). */
int csocket_tcp_recovering(int fd);

#endif
