// Black-box process helpers: run the `mediapub` executable and the third-party
// tools (ffmpeg, ffprobe, nginx, srt-live-transmit, gst-launch-1.0) used to
// verify it. Foundation only; nothing from the product is imported.

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Errors

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Tool lookup

enum Tools {
    /// Absolute path of an installed tool, searched in $PATH and the sbin
    /// directories (nginx lives in /usr/sbin). Throws, never skips, when absent:
    /// `make test` installs every tool the suite needs.
    static func path(_ name: String) throws -> String {
        if name.hasPrefix("/") { return name }
        var dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        dirs += ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        for dir in dirs where !dir.isEmpty {
            let candidate = (dir as NSString).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw HarnessError("required tool '\(name)' is not installed (run `make test`, which installs the test dependencies)")
    }
}

// MARK: - Process results

struct ProcessResult {
    /// Exit status, or the signal number when `signaled`.
    let status: Int32
    let signaled: Bool
    let timedOut: Bool
    let stdoutData: Data
    let stderr: String
    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }

    /// One line summary for assertion messages.
    func summary(_ label: String) -> String {
        var s = "\(label): "
        if timedOut { s += "TIMED OUT and was killed; " }
        s += signaled ? "killed by signal \(status)" : "exit status \(status)"
        let err = stderr.count > 4000 ? "…" + String(stderr.suffix(4000)) : stderr
        s += "\n--- stderr ---\n\(err)"
        let out = stdout
        if !out.isEmpty {
            s += "\n--- stdout ---\n\(out.count > 2000 ? String(out.prefix(2000)) + "…" : out)"
        }
        return s
    }
}

/// Hands a Process to the thread that waits for it (Foundation's Process is thread-safe to wait on).
private final class ProcessBox: @unchecked Sendable {
    let process: Process
    init(_ process: Process) { self.process = process }
}

/// A child process whose stdout and stderr go to files (never pipes, so a
/// chatty child can never block on a full pipe while we are waiting for it).
final class RunningProcess {
    let name: String
    let process = Process()
    let stdoutURL: URL
    let stderrURL: URL
    private let stdoutHandle: FileHandle
    private let stderrHandle: FileHandle
    private let scratchDir: URL?
    private var closed = false

    /// - Parameters:
    ///   - stdoutURL/stderrURL: where the streams go; default: temp files that
    ///     are deleted by `cleanUp()`.
    init(executable: String, arguments: [String], environment: [String: String]? = nil,
         currentDirectory: URL? = nil, stdoutURL: URL? = nil, stderrURL: URL? = nil) throws {
        let exe = try Tools.path(executable)
        name = (exe as NSString).lastPathComponent
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("mediapub-proc-\(UUID().uuidString.prefix(8))")
        if stdoutURL == nil || stderrURL == nil {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            scratchDir = scratch
        } else {
            scratchDir = nil
        }
        self.stdoutURL = stdoutURL ?? scratch.appendingPathComponent("stdout")
        self.stderrURL = stderrURL ?? scratch.appendingPathComponent("stderr")
        for url in [self.stdoutURL, self.stderrURL] {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw HarnessError("cannot create \(url.path)")
            }
        }
        stdoutHandle = try FileHandle(forWritingTo: self.stdoutURL)
        stderrHandle = try FileHandle(forWritingTo: self.stderrURL)
        process.executableURL = URL(fileURLWithPath: exe)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdoutHandle
        process.standardError = stderrHandle
        do {
            try process.run()
        } catch {
            closeHandles()
            throw HarnessError("cannot start \(exe): \(error)")
        }
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// Send a signal (default SIGTERM) to the child only.
    func terminate(_ signal: Int32 = SIGTERM) {
        if process.isRunning { _ = kill(process.processIdentifier, signal) }
    }

    /// Waits up to `timeout` seconds; true when the process has exited.
    @discardableResult
    func waitForExit(timeout: TimeInterval) -> Bool {
        Proc.waitForExit(process, timeout: timeout)
    }

    /// SIGKILL if still running, then reap.
    func kill9() {
        if process.isRunning {
            _ = kill(process.processIdentifier, SIGKILL)
            waitForExit(timeout: 10)
        }
    }

    /// Polite stop: `signal`, then SIGKILL after `grace` seconds. Returns true
    /// when the process went away on the polite signal.
    @discardableResult
    func stop(signal: Int32 = SIGTERM, grace: TimeInterval = 5) -> Bool {
        guard process.isRunning else { return true }
        terminate(signal)
        if waitForExit(timeout: grace) { return true }
        kill9()
        return false
    }

    var exitStatus: Int32 { process.terminationStatus }
    var exitedBySignal: Bool { process.terminationReason == .uncaughtSignal }

    var stdoutData: Data { (try? Data(contentsOf: stdoutURL)) ?? Data() }
    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    var stderr: String { String(decoding: (try? Data(contentsOf: stderrURL)) ?? Data(), as: UTF8.self) }

    /// Result snapshot; call after the process has exited.
    func result(timedOut: Bool = false) -> ProcessResult {
        ProcessResult(status: process.isRunning ? -1 : exitStatus,
                      signaled: process.isRunning ? false : exitedBySignal,
                      timedOut: timedOut, stdoutData: stdoutData, stderr: stderr)
    }

    private func closeHandles() {
        guard !closed else { return }
        closed = true
        try? stdoutHandle.close()
        try? stderrHandle.close()
    }

    /// Kill if needed, close the handles and delete owned temp output files.
    func cleanUp() {
        kill9()
        closeHandles()
        if let scratchDir {
            try? FileManager.default.removeItem(at: scratchDir)
        }
    }

    deinit { cleanUp() }
}

enum Proc {
    /// Waits up to `timeout` seconds for `process` to exit, woken by its exit (a
    /// thread blocked in waitUntilExit), never by polling; true when it has, reaped.
    @discardableResult
    static func waitForExit(_ process: Process, timeout: TimeInterval) -> Bool {
        guard process.isRunning else {
            process.waitUntilExit()  // reaps and settles terminationStatus
            return true
        }
        let exited = DispatchSemaphore(value: 0)
        let box = ProcessBox(process)
        DispatchQueue.global().async {
            box.process.waitUntilExit()
            exited.signal()
        }
        return exited.wait(timeout: .now() + timeout) == .success
    }

    /// Environment for a child: ours, plus `set`, minus `unset`.
    static func environment(set: [String: String] = [:], unset: [String] = []) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for (k, v) in set { env[k] = v }
        for k in unset { env.removeValue(forKey: k) }
        return env
    }

    /// Run to completion, bounded by `timeout` seconds (then SIGKILL; the
    /// result says `timedOut`).
    static func run(_ executable: String, _ arguments: [String], env: [String: String]? = nil,
                    cwd: URL? = nil, timeout: TimeInterval = 60) throws -> ProcessResult {
        let p = try RunningProcess(executable: executable, arguments: arguments,
                                   environment: env, currentDirectory: cwd)
        defer { p.cleanUp() }
        let exited = p.waitForExit(timeout: timeout)
        if !exited { p.kill9() }
        return p.result(timedOut: !exited)
    }

    /// Run and throw unless it exits 0 in time.
    @discardableResult
    static func check(_ executable: String, _ arguments: [String], env: [String: String]? = nil,
                      cwd: URL? = nil, timeout: TimeInterval = 60) throws -> ProcessResult {
        let r = try run(executable, arguments, env: env, cwd: cwd, timeout: timeout)
        guard !r.timedOut, !r.signaled, r.status == 0 else {
            throw HarnessError(r.summary("\(executable) \(arguments.joined(separator: " "))"))
        }
        return r
    }
}

// MARK: - The mediapub executable

enum CLI {
    /// Package root: this file is <root>/Tests/MediaPubTests/Support/CLI.swift.
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // Support
            .deletingLastPathComponent() // MediaPubTests
            .deletingLastPathComponent() // Tests
            .deletingLastPathComponent() // root
    }

    /// `$MEDIAPUB_BIN`, else `<package root>/.build/debug/mediapub`.
    static var binaryPath: String {
        if let env = ProcessInfo.processInfo.environment["MEDIAPUB_BIN"], !env.isEmpty { return env }
        return packageRoot.appendingPathComponent(".build/debug/mediapub").path
    }

    /// The binary, or a failure that says how to get one (never a skip).
    static func binary() throws -> String {
        let path = binaryPath
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw HarnessError("mediapub executable not found at \(path): build it (`swift build`) or set MEDIAPUB_BIN")
        }
        return path
    }

    /// A runtime folder of this test process's own: runs started here find their default
    /// control socket there, never one of another test process (a control path in use is exit 2).
    static let runtimeDir: String = {
        let dir = "/tmp/mediapub-test-runtime-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return dir
    }()

    /// The environment of a mediapub child: ours with `XDG_RUNTIME_DIR` set to `runtimeDir`
    /// (unless the test sets or unsets it), plus `set`, minus `unset`.
    static func environment(set: [String: String] = [:], unset: [String] = []) -> [String: String] {
        var own = set
        if own["XDG_RUNTIME_DIR"] == nil, !unset.contains("XDG_RUNTIME_DIR") { own["XDG_RUNTIME_DIR"] = runtimeDir }
        return Proc.environment(set: own, unset: unset)
    }

    /// Run `mediapub ARGS` to completion (bounded).
    static func run(_ args: [String], env: [String: String] = [:], unsetEnv: [String] = [],
                    cwd: URL? = nil, timeout: TimeInterval = 60) throws -> ProcessResult {
        try Proc.run(binary(), args, env: environment(set: env, unset: unsetEnv), cwd: cwd, timeout: timeout)
    }

    /// Start `mediapub ARGS` in the background. The caller must stop it; the
    /// XCTestCase helper `startMediaPub` registers that automatically.
    static func start(_ args: [String], env: [String: String] = [:], unsetEnv: [String] = [],
                      cwd: URL? = nil) throws -> RunningProcess {
        try RunningProcess(executable: binary(), arguments: args,
                           environment: environment(set: env, unset: unsetEnv), currentDirectory: cwd)
    }
}

// MARK: - XCTestCase conveniences

extension XCTestCase {
    /// A fresh directory under /tmp, removed at teardown (kept when
    /// MEDIAPUB_KEEP_TEST_TMP=1, for debugging).
    func makeTempDir(_ label: String? = nil) throws -> URL {
        let base = (label ?? name).components(separatedBy: CharacterSet(charactersIn: ". ")).last ?? "test"
        let safe = base.filter { $0.isLetter || $0.isNumber }.prefix(40)
        let dir = URL(fileURLWithPath: "/tmp")
            .appendingPathComponent("mediapub-test-\(safe)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock {
            if ProcessInfo.processInfo.environment["MEDIAPUB_KEEP_TEST_TMP"] == "1" {
                print("kept test dir \(dir.path)")
            } else {
                try? FileManager.default.removeItem(at: dir)
            }
        }
        return dir
    }

    /// Start mediapub in the background; it is killed at teardown if still running.
    func startMediaPub(_ args: [String], env: [String: String] = [:], cwd: URL? = nil) throws -> RunningProcess {
        let p = try CLI.start(args, env: env, cwd: cwd)
        addTeardownBlock { p.cleanUp() }
        return p
    }

    /// Start any tool in the background; killed at teardown if still running.
    func startTool(_ executable: String, _ args: [String], env: [String: String]? = nil, cwd: URL? = nil,
                   stdoutURL: URL? = nil, stderrURL: URL? = nil) throws -> RunningProcess {
        let p = try RunningProcess(executable: executable, arguments: args, environment: env,
                                   currentDirectory: cwd, stdoutURL: stdoutURL, stderrURL: stderrURL)
        addTeardownBlock { p.cleanUp() }
        return p
    }

    /// Write `text` to `dir/name` and return its URL.
    @discardableResult
    func writeFile(_ dir: URL, _ name: String, _ text: String) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }
}

// MARK: - Generated test media (ffmpeg lavfi)

enum TestMedia {
    private static func ffmpeg(_ args: [String], timeout: TimeInterval = 120) throws {
        try Proc.check("ffmpeg", ["-nostdin", "-hide_banner", "-v", "error", "-y"] + args, timeout: timeout)
    }

    /// MP4, H.264 (testsrc2) + AAC stereo (sine at `freq`), `seconds` long,
    /// keyframe every second.
    @discardableResult
    static func makeVideo(in dir: URL, name: String = "src.mp4", seconds: Double, size: String = "640x360",
                          fps: Int = 25, freq: Double = 440, sampleRate: Int = 44100) throws -> URL {
        let out = dir.appendingPathComponent(name)
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(fps):duration=\(seconds)",
            "-f", "lavfi", "-i", "sine=frequency=\(freq):sample_rate=\(sampleRate):duration=\(seconds)",
            "-map", "0:v", "-map", "1:a",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "\(fps)",
            "-c:a", "aac", "-b:a", "128k", "-ac", "2",
            "-t", "\(seconds)", "-movflags", "+faststart", out.path,
        ])
        return out
    }

    /// Audio-only file: a sine at `freq`. `ext` is mp3, wav, flac or aac (ADTS).
    @discardableResult
    static func makeAudio(in dir: URL, name: String? = nil, seconds: Double, freq: Double = 440,
                          ext: String, sampleRate: Int = 44100) throws -> URL {
        let out = dir.appendingPathComponent(name ?? "tone-\(Int(freq)).\(ext)")
        let codec: [String]
        switch ext {
        case "mp3": codec = ["-c:a", "libmp3lame", "-b:a", "128k"]
        case "wav": codec = ["-c:a", "pcm_s16le"]
        case "flac": codec = ["-c:a", "flac"]
        case "aac": codec = ["-c:a", "aac", "-b:a", "128k", "-f", "adts"]
        default: throw HarnessError("makeAudio: unsupported extension \(ext)")
        }
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=\(freq):sample_rate=\(sampleRate):duration=\(seconds)",
                    "-ac", "2"] + codec + [out.path])
        return out
    }

    /// A single-colour PNG (`color` as ffmpeg understands it: red, #102030...).
    @discardableResult
    static func makePNG(in dir: URL, name: String = "still.png", color: String, size: String = "640x360") throws -> URL {
        let out = dir.appendingPathComponent(name)
        try ffmpeg(["-f", "lavfi", "-i", "color=c=\(color):s=\(size):d=1", "-frames:v", "1", out.path])
        return out
    }
}

// MARK: - Preset text

enum E2EPreset {
    static let testsrc = "testsrc:?pattern=smpte&freq=440"

    /// The sample preset (640x360@25, 800k, keyframe 1s; AAC 44100 stereo
    /// 96k) with one video player on `source` and the given outputs, one key
    /// per line (block style) so that line numbers are predictable.
    static func basic(name: String = "t1", source: String, outputs: [String] = ["null://"], extra: String = "") -> String {
        var y = """
        name: \(name)
        video:
          size: 640x360
          fps: 25
          bitrate: 800k
          keyframe_interval: 1s
        audio:
          sample_rate: 44100
          channels: 2
          bitrate: 96k
        players:
          - id: main
            source: "\(source)"
            video: true
        outputs:

        """
        for o in outputs { y += "  - url: \"\(o)\"\n" }
        if !extra.isEmpty { y += extra + (extra.hasSuffix("\n") ? "" : "\n") }
        return y
    }
}
