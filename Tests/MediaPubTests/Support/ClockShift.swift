import Foundation
import XCTest

/// A wall clock the test moves under mediapub alone: a shim built with gcc and preloaded
/// into mediapub (`env`) moves CLOCK_REALTIME (clock_gettime, gettimeofday, time) by the
/// seconds a file holds, read at each call, and nothing else (the monotonic clock, the
/// timeline's pace, stay true). libfaketime made mediapub lose its arguments when tried.
struct ClockShift {
    private static let source = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <fcntl.h>
        #include <stdlib.h>
        #include <sys/time.h>
        #include <time.h>
        #include <unistd.h>

        /* The seconds CLOCK_SHIFT_FILE holds (0 without it), read at each call. */
        static double shift(void) {
            const char *path = getenv("CLOCK_SHIFT_FILE");
            if (!path) return 0;
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) return 0;
            char buf[64];
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            if (n <= 0) return 0;
            buf[n] = 0;
            return strtod(buf, NULL);
        }

        static void moved(struct timespec *ts) {
            long long ns = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + (long long)(shift() * 1e9);
            ts->tv_sec = ns / 1000000000LL;
            ts->tv_nsec = ns % 1000000000LL;
        }

        int clock_gettime(clockid_t id, struct timespec *ts) {
            static int (*real)(clockid_t, struct timespec *);
            if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
            int r = real(id, ts);
            if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) moved(ts);
            return r;
        }

        int gettimeofday(struct timeval *tv, void *tz) {
            struct timespec ts;
            if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return -1;
            if (tv) { tv->tv_sec = ts.tv_sec; tv->tv_usec = ts.tv_nsec / 1000; }
            (void)tz;
            return 0;
        }

        time_t time(time_t *t) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            if (t) *t = ts.tv_sec;
            return ts.tv_sec;
        }
        """

    let file: URL
    /// What mediapub is started with (`startMediaPub(env:)`).
    let env: [String: String]

    /// The shim built in `dir`, the clock moved by `seconds` from the start.
    init(in dir: URL, seconds: Double = 0) throws {
        let source = dir.appendingPathComponent("shift.c")
        try Self.source.write(to: source, atomically: true, encoding: .utf8)
        let shim = dir.appendingPathComponent("shift.so")
        try Proc.check(try Tools.path("gcc"), ["-shared", "-fPIC", "-O2", "-o", shim.path, source.path, "-ldl"])
        file = dir.appendingPathComponent("shift")
        env = ["LD_PRELOAD": shim.path, "CLOCK_SHIFT_FILE": file.path]
        try step(to: seconds)
    }

    /// mediapub's wall clock is `seconds` off the true one from now on.
    func step(to seconds: Double) throws {
        try "\(seconds)\n".write(to: file, atomically: true, encoding: .utf8)
    }

    /// Whether an event is the programme's warning that the wall clock moved by `seconds` (±1 s).
    static func moved(by seconds: Double) -> ([String: Any]) -> Bool {
        { e in
            guard e["event"] as? String == "warning", let m = e["message"] as? String, m.contains("wall clock moved by"),
                  let v = Double(m.split(separator: " ").first { $0.hasPrefix("+") || $0.hasPrefix("-") } ?? "") else { return false }
            return abs(v - seconds) < 1
        }
    }
}
