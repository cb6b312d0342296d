#ifndef CTCPNODELAY_H
#define CTCPNODELAY_H

/* Linked into the mediapub executable only. Every TCP socket the process
 * connects (rtmp2sink's, through GIO, which offers no way to ask) gets
 * TCP_NODELAY first, as librtmp and OBS do: the RTMP handshake and commands
 * are small writes, each answered before the next, and with Nagle's algorithm
 * each waited out the server's delayed ACK (about 140 ms to the first frame
 * on loopback). Returns 1 when the interposer found libc's connect. */
int ctcpnodelay_installed(void);

#endif
