"""The RTMP server of the realtime jobs: nginx with Debian's RTMP module, and a TCP relay in
front of it that reads the publisher's RTMP chunk stream (first packet, frames, bytes)."""

import os
import socket
import threading
import time

from runner import BenchError, Service, free_port, print_log, tcp_accepts, wait_until


def start_nginx(tmp):
    """nginx with Debian's RTMP module from a temp prefix, as the tests run it."""
    prefix = os.path.join(tmp, "nginx")
    os.makedirs(os.path.join(prefix, "logs"), exist_ok=True)
    port = free_port()
    conf = os.path.join(prefix, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
daemon off;
master_process off;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log info;
events {{ worker_connections 256; }}
rtmp {{
    server {{
        listen 127.0.0.1:{port};
        chunk_size 4096;
        application live {{
            live on;
            record off;
        }}
    }}
}}
""")
    log = os.path.join(tmp, "logs", "nginx.log")
    nginx = Service(["nginx", "-p", prefix + "/", "-c", conf, "-e", f"{prefix}/logs/error.log"], log)
    try:
        wait_until(lambda: tcp_accepts(port) or not nginx.alive(), 10, "nginx-rtmp to listen")
    except BenchError:
        nginx.stop()
        raise
    if not nginx.alive():
        print_log(log)
        print_log(f"{prefix}/logs/error.log")
        raise BenchError("nginx-rtmp did not start")
    nginx.port = port
    nginx.error_log = f"{prefix}/logs/error.log"
    return nginx


# First packet: a relay in front of nginx-rtmp that reads the RTMP chunk stream.

class RTMPChunks:
    """Follows the client-to-server RTMP chunk stream (after the 3073-byte handshake)
    and calls on_message(type, first payload bytes) at the start of each message."""

    HEADER = {0: 11, 1: 7, 2: 3, 3: 0}

    def __init__(self, on_message):
        self.on_message = on_message
        self.buf = bytearray()
        self.handshake = 1 + 1536 + 1536  # C0, C1, C2
        self.chunk_size = 128
        self.streams = {}  # csid -> [length, type, remaining, extended timestamp]

    def feed(self, data):
        self.buf += data
        if self.handshake:
            n = min(self.handshake, len(self.buf))
            del self.buf[:n]
            self.handshake -= n
        while not self.handshake and self._chunk():
            pass

    def _chunk(self):
        b = self.buf
        if len(b) < 1:
            return False
        fmt, csid, pos = b[0] >> 6, b[0] & 0x3F, 1
        if csid == 0:
            if len(b) < 2:
                return False
            csid, pos = 64 + b[1], 2
        elif csid == 1:
            if len(b) < 3:
                return False
            csid, pos = 64 + b[1] + 256 * b[2], 3
        size = self.HEADER[fmt]
        if len(b) < pos + size:
            return False
        st = self.streams.setdefault(csid, [0, 0, 0, False])
        length, mtype, ext = st[0], st[1], st[3]
        if fmt <= 2:
            ext = int.from_bytes(b[pos:pos + 3], "big") == 0xFFFFFF
        if fmt <= 1:
            length, mtype = int.from_bytes(b[pos + 3:pos + 6], "big"), b[pos + 6]
        pos += size + (4 if ext else 0)
        start = st[2] == 0 or fmt <= 1
        remaining = length if start else st[2]
        n = min(self.chunk_size, remaining)
        if len(b) < pos + n:
            return False
        payload = bytes(b[pos:pos + n])
        if start:
            self.on_message(mtype, payload[:8])
            if mtype == 1 and n >= 4:  # Set Chunk Size, for the chunks after this one
                self.chunk_size = int.from_bytes(payload[:4], "big") & 0x7FFFFFFF
        st[:] = [length, mtype, remaining - n, ext]
        del b[:pos + n]
        return True


class RTMPProbe:
    """A TCP relay on 127.0.0.1 in front of nginx-rtmp. For the current run it notes when
    the publisher's connection was accepted, when the first coded audio or video frame
    (an FLV audio/video message that is not a codec header) and the first coded video
    frame arrived, how many bytes the publisher sent and how many coded frames."""

    def __init__(self, upstream_port):
        self.upstream = upstream_port
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.port = self.server.getsockname()[1]
        self.lock = threading.Lock()
        self.reset()
        threading.Thread(target=self._accept, daemon=True).start()

    def reset(self):
        with self.lock:
            self.connected = self.first_media = self.first_video = None
            self.bytes_in = self.video_frames = self.audio_frames = 0

    def _accept(self):
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            t = time.monotonic()
            with self.lock:
                if self.connected is None:
                    self.connected = t
            threading.Thread(target=self._relay, args=(conn,), daemon=True).start()

    def _relay(self, conn):
        try:
            up = socket.create_connection(("127.0.0.1", self.upstream))
        except OSError:
            conn.close()
            return
        for s in (conn, up):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def back():
            try:
                while True:
                    data = up.recv(65536)
                    if not data:
                        break
                    conn.sendall(data)
            except OSError:
                pass
            finally:
                try:
                    conn.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
        threading.Thread(target=back, daemon=True).start()

        now = [0.0]

        def on_message(mtype, head):
            if mtype not in (8, 9) or len(head) < 2:
                return
            if mtype == 9 and head[0] & 0x0F == 7 and head[1] != 1:
                return  # AVC sequence header or end of sequence
            if mtype == 8 and head[0] >> 4 == 10 and head[1] == 0:
                return  # AAC sequence header
            with self.lock:
                if self.first_media is None:
                    self.first_media = now[0]
                if mtype == 9:
                    self.video_frames += 1
                    if self.first_video is None:
                        self.first_video = now[0]
                else:
                    self.audio_frames += 1

        chunks = RTMPChunks(on_message)
        try:
            while True:
                data = conn.recv(65536)
                now[0] = time.monotonic()
                if not data:
                    break
                chunks.feed(data)
                with self.lock:
                    self.bytes_in += len(data)
                up.sendall(data)
        except OSError:
            pass
        finally:
            try:
                up.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            conn.close()

    def snapshot(self):
        with self.lock:
            return self.connected, self.first_media, self.first_video, self.bytes_in

    def frames(self):
        with self.lock:
            return self.video_frames, self.audio_frames

    def close(self):
        self.server.close()
