// RTMP servers that misbehave during a connect, for the connect deadline tests: small
// TCP servers (python3) on loopback.

import Foundation
import XCTest

extension XCTestCase {
    /// Three servers that take TCP connections: `silent` answers nothing, `garbage`
    /// answers 8 KB of random bytes, `handshake` answers the RTMP handshake (S0, S1, S2)
    /// and then nothing. Each reads all that comes. Their ports, by name.
    func startBadRTMPServers() throws -> [String: UInt16] {
        let ports = ["silent": try Ports.free(), "garbage": try Ports.free(), "handshake": try Ports.free()]
        let script = """
        import os, socket, sys, threading
        def serve(c, mode):
            try:
                if mode == "garbage":
                    c.sendall(os.urandom(8192))
                elif mode == "handshake":
                    got = b""
                    while len(got) < 1537:
                        d = c.recv(1537 - len(got))
                        if not d: return
                        got += d
                    c.sendall(b"\\x03" + bytes(1536) + got[1:])
                while c.recv(65536): pass
            except OSError: pass
        def listen(mode, port):
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", port)); s.listen(16)
            while True:
                c, _ = s.accept()
                threading.Thread(target=serve, args=(c, mode), daemon=True).start()
        for mode, port in zip(sys.argv[1::2], sys.argv[2::2]):
            threading.Thread(target=listen, args=(mode, int(port)), daemon=True).start()
        threading.Event().wait(300)
        """
        _ = try startTool(try Tools.path("python3"), ["-c", script] + ports.flatMap { [$0.key, "\($0.value)"] })
        for port in ports.values { XCTAssertTrue(Ports.waitForTCP(port), "a bad server listens on \(port)") }
        return ports
    }
}

extension XCTestCase {
    /// A TCP server that answers every connection with random bytes, without end, and
    /// reads all that comes: what rtmp2sink takes for RTMP chunks it cannot parse. Its port.
    func startNoiseRTMPServer() throws -> UInt16 {
        let port = try Ports.free()
        let script = """
        import os, socket, sys, threading
        def serve(c):
            threading.Thread(target=lambda: [None for _ in iter(lambda: c.recv(65536), b"")], daemon=True).start()
            try:
                while True: c.sendall(os.urandom(4096))
            except OSError: pass
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16)
        threading.Timer(300, lambda: os._exit(0)).start()
        while True:
            c, _ = s.accept()
            threading.Thread(target=serve, args=(c,), daemon=True).start()
        """
        _ = try startTool(try Tools.path("python3"), ["-c", script, "\(port)"])
        XCTAssertTrue(Ports.waitForTCP(port), "the noise server listens on \(port)")
        return port
    }
}
