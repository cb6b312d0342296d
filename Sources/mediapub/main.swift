import CTCPNoDelay
import Foundation
import MediaPub

// mediapub: argument parsing, signals and exit codes (README, Using it; docs/exit-codes.md).

let version = "mediapub 0.1.0"
let usage = """
usage:
  mediapub --preset FILE [RUN OPTIONS]   run a broadcast (also: mediapub run FILE)
  mediapub validate FILE [--set K=V]     check a preset, print the resolved preset, exit 0 or 2
  mediapub probe SOURCE                  print duration, streams and tags of a source as JSON
  mediapub schedule FILE [--from "YYYY-MM-DD HH:MM"] [--hours N] [--set K=V]
                                         list a preset's (or a programme file's) programme, N hours (24) from then (now)
  mediapub ctl [--socket PATH] CMD ...   send a control command to a running instance:
      status | publish on|off | pause|resume|stop|start [PLAYER] | next|prev [PLAYER]
      seek PLAYER 90s (a bare number is seconds) | volume PLAYER 40 | play-volume PLAYER 40
      mute-local PLAYER on|off | aux PLAYER on|off | progress-interval PLAYER 500ms
      speed PLAYER 1.5 | pitch PLAYER -3 | repeat PLAYER on|off
      load PLAYER SOURCE (answers once it plays, or why not) | reconnect [OUTPUT id] | quit
      schedule [reload] (the programme now; its file read again) | skip (the next block now)
      live on|off|auto (the live feed) | overlay show|hide ID | overlay set ID text=... image=PATH opacity=50%
  mediapub --version | --help

run options:
  --output URL          an output (repeatable); replaces the preset's outputs
  --output-env NAME     an output whose URL is in environment variable NAME (keeps keys out of `ps`)
  --duration DUR        stop after DUR: 90s, 10m, 2h, 1h30m, 01:30:00 (at most 87600h, 10 years)
  --set KEY=VALUE       override a preset field: video.bitrate=3000k, players.music.publish_volume=40
  --realtime / --no-realtime
  --events PATH         also write JSON-lines events to PATH (- for stdout)
  --control PATH        control socket (default $XDG_RUNTIME_DIR/mediapub/NAME.sock, else /tmp/mediapub-NAME.sock)
  --log-format text|json, --log-level error|warn|info|debug
  --lock PATH           refuse to start (exit 3) while another instance holds PATH
  --http ADDR:PORT      the HTTP server: the operator's page, the JSON API (docs/http.md), /metrics and /health
                        (loopback by default); --metrics ADDR:PORT is the same option
  --http-token-env NAME the token for commands over HTTP is in environment variable NAME (or http.token_file)
  --from "YYYY-MM-DD HH:MM[:SS]"
                        with --no-realtime: play the preset's programme as from this wall time of its zone (a rehearsal)
"""

func fail(_ message: String, code: ExitCode = .usage) -> Never {
    // A write that fails (stderr closed or full) must not trap: the exit code still tells.
    FDWrite.all(STDERR_FILENO, Data(("mediapub: " + message + "\n").utf8))
    exit(code.rawValue)
}

struct Arguments {
    var command = "run"
    var presetFile: String?
    var positional: [String] = []
    var overrides: [String] = []
    var options = RunOptions()
    var events: [String] = []
    var logFormat = Logger.Format.text
    var logLevel = LogLevel.info
    var control: String?
    var lock: String?
    var from: String?
    var hours: String?
    var httpTokenEnv: String?
}

func parse(_ argv: [String]) -> Arguments {
    var args = Arguments()
    var i = 0
    func value(_ flag: String) -> String {
        i += 1
        guard i < argv.count else { fail("\(flag) needs a value\n\(usage)") }
        return argv[i]
    }
    if let first = argv.first, ["run", "validate", "probe", "ctl", "schedule"].contains(first) {
        args.command = first
        i = 1
    }
    if args.command == "ctl" {
        // Everything after the options is the command and its arguments, as given.
        while i < argv.count {
            if argv[i] == "--socket" || argv[i] == "--control" { args.control = value(argv[i]); i += 1; continue }
            if argv[i] == "--help" || argv[i] == "-h" { print(usage); exit(0) }
            args.positional.append(argv[i]); i += 1
        }
        return args
    }
    while i < argv.count {
        let arg = argv[i]
        switch arg {
        case "--help", "-h": print(usage); exit(0)
        case "--version": print("\(version)\n\(Versions.libraries)"); exit(0)
        case "--preset": args.presetFile = value(arg)
        case "--output", "--output-env":
            let given = value(arg)
            var text = given
            if arg == "--output-env" {
                // The URL (and its key) stays out of the command line, and so out of `ps`.
                guard let fromEnvironment = ProcessInfo.processInfo.environment[given], !fromEnvironment.isEmpty else {
                    fail("--output-env \(given): the environment variable \(given) is not set (it should hold the output URL)")
                }
                text = fromEnvironment
            }
            // Checked and made absolute like a preset's outputs (relative to where mediapub runs).
            switch OutputURL.resolve(text, base: FileManager.default.currentDirectoryPath,
                                     environment: ProcessInfo.processInfo.environment) {
            case .success(let url): args.options.outputs.append(url)
            case .failure(let why): fail("\(arg == "--output" ? "--output" : "--output-env \(given):") \(why.message)")
            }
        case "--duration":
            let text = value(arg)
            switch MediaTime.duration(text) {
            case .success(let d) where d > 0: args.options.duration = d
            case .failure(.tooLong): fail("--duration \(text.prefix(80)): too long (at most \(MediaTime.maxDurationText))")
            default: fail("--duration \(text.prefix(80)): not a duration (90s, 10m, 1h30m, 01:30:00)")
            }
        case "--set":
            let kv = value(arg)
            guard kv.contains("=") else { fail("--set \(kv): expected KEY=VALUE") }
            args.overrides.append(kv)
        case "--realtime": args.options.realtime = true
        case "--no-realtime": args.options.realtime = false
        case "--events": args.events.append(value(arg))
        case "--log-format":
            let text = value(arg)
            guard let f = Logger.Format(rawValue: text) else { fail("--log-format \(text): expected text or json") }
            args.logFormat = f
        case "--log-level":
            let text = value(arg)
            guard let l = LogLevel(name: text) else { fail("--log-level \(text): expected error, warn, info or debug") }
            args.logLevel = l
        case "--control", "--socket": args.control = value(arg)
        case "--lock": args.lock = value(arg)
        case "--http", "--metrics":
            args.options.http = value(arg)
            args.options.httpFlag = arg
        case "--http-token-env": args.httpTokenEnv = value(arg)
        case "--from" where args.command == "schedule": args.from = value(arg)
        case "--hours" where args.command == "schedule": args.hours = value(arg)
        case "--from": args.options.programmeFrom = value(arg)
        default:
            if arg.hasPrefix("-") && arg != "-" { fail("unknown option \(arg)\n\(usage)") }
            args.positional.append(arg)
        }
        i += 1
    }
    return args
}

func loadPreset(_ file: String, overrides: [String], outputs: [OutputURL]) -> Preset {
    loadPreset(file) { try PresetLoader.load(file: file, overrides: overrides, outputs: outputs) }
}

/// What `load` reads from the preset `file`, or exit 2 with its problems, one a line.
func loadPreset<T>(_ file: String, _ load: () throws -> T) -> T {
    do {
        return try load()
    } catch let error as PresetError {
        fail(error.problems.map(\.description).joined(separator: "\nmediapub: "))
    } catch {
        fail("\(file): \(error)")
    }
}

// A reader that goes away (`--events - | head`, stderr to a closed pipe) costs
// its own output, never the run: writes to it fail with EPIPE instead.
signal(SIGPIPE, SIG_IGN)
GStreamer.limitMallocArenas()

let args = parse(Array(CommandLine.arguments.dropFirst()))
// From before GStreamer starts (a preset's test pattern may start it): its own and
// GLib's lines in the chosen format, secrets masked.
let log = Logger(level: args.logLevel, format: args.logFormat)
// Log lines go out on a writer of their own (never holding anyone up): what is queued
// is written before `exit`, within a deadline.
atexit { log.flush(until: Date().addingTimeInterval(1)) }
LibraryLog.install(log)
// TCP sockets get TCP_NODELAY at connect (CTCPNoDelay); said once if that is not so.
if ctcpnodelay_installed() == 0 {
    log.debug("TCP_NODELAY is not set on outgoing TCP connections: an RTMP output may take some 100 ms longer to start")
}

switch args.command {
case "validate":
    guard let file = args.positional.first ?? args.presetFile else { fail("validate needs a preset FILE\n\(usage)") }
    let (preset, warnings) = loadPreset(file) { try PresetLoader.validate(file: file, overrides: args.overrides) }
    // A playlist's missing items: one line each on stderr; the preset still validates.
    for warning in warnings { FDWrite.all(STDERR_FILENO, Data("mediapub: warning: \(warning)\n".utf8)) }
    print(preset.resolvedYAML(), terminator: "")
    exit(ExitCode.finished.rawValue)

case "schedule":
    guard let file = args.positional.first ?? args.presetFile else { fail("schedule needs a FILE (a preset or a programme file)\n\(usage)") }
    let schedule = loadPreset(file) { try ScheduleListing.load(file: file, overrides: args.overrides) }
    var from = Date()
    if let text = args.from {
        switch ScheduleListing.instant(text, in: schedule.zone) {
        case .success(let t): from = t
        case .failure(let why): fail("--from \(why.message)")
        }
    }
    var hours = 24
    if let text = args.hours {
        guard let h = Int(text), (1...ScheduleListing.maxHours).contains(h) else {
            fail("--hours \(text.prefix(80)): expected a whole number of hours, 1..\(ScheduleListing.maxHours)")
        }
        hours = h
    }
    let lines = ScheduleListing.lines(Programme(schedule), from: from, to: from.addingTimeInterval(Double(hours) * 3600))
    print("# \(schedule.zone.name), \(hours)h from \(schedule.zone.local(from))")
    for line in lines { print(line) }
    exit(ExitCode.finished.rawValue)

case "probe":
    guard let source = args.positional.first else { fail("probe needs a SOURCE\n\(usage)") }
    LibraryLog.addSecrets(of: [source])
    do {
        let info = try Probe.run(source: PathResolution.resolveSource(source, base: FileManager.default.currentDirectoryPath))
        print(String(decoding: try info.json(), as: UTF8.self))
        exit(0)
    } catch {
        fail("\(error)", code: .failed)
    }

case "ctl":
    guard !args.positional.isEmpty else { fail("ctl needs a command (status, publish on|off, pause, seek PLAYER 90s, quit, ...)\n\(usage)") }
    let path: String
    do { path = try args.control ?? ControlServer.discover() } catch { fail("ctl: \(error)") }
    var command = args.positional
    // `load PLAYER ./x.mp3` typed at a shell means the shell's directory, not the preset's.
    if command.count > 2, command[0] == "load" {
        command[2] = PathResolution.resolveSource(command[2], base: FileManager.default.currentDirectoryPath,
                                                  environment: ProcessInfo.processInfo.environment)
    }
    do {
        let reply = try ControlServer.send(command, to: path)
        print(JSONLine.text(reply) ?? "{\"ok\":false}")
        exit((reply["ok"] == .bool(true) ? ExitCode.finished : .failed).rawValue)
    } catch {
        fail("ctl: \(error)", code: .failed)
    }

default:
    guard let file = args.presetFile ?? args.positional.first else { fail("no preset: use --preset FILE\n\(usage)") }
    if args.positional.count > (args.presetFile == nil ? 1 : 0) { fail("unexpected argument \(args.positional.last ?? "")\n\(usage)") }
    let preset = loadPreset(file, overrides: args.overrides, outputs: args.options.outputs)
    // --lock: overlapping cron runs are refused (exit 3); the lock goes with the process.
    var lockFD: Int32 = -1
    if let lockPath = args.lock {
        lockFD = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)   // owner-only: no one else opens it
        guard lockFD >= 0 else { fail("--lock \(lockPath): \(String(cString: strerror(errno)))") }
        if flock(lockFD, LOCK_EX | LOCK_NB) != 0 {
            fail("--lock \(lockPath): held by another instance", code: .locked)
        }
    }
    var options = args.options
    options.controlPath = args.control ?? ControlServer.defaultPath(name: preset.name)
    // The token for commands over HTTP (docs/http.md): a bad one stops the run here (exit 2).
    do {
        if let name = args.httpTokenEnv {
            options.httpToken = try HTTPToken.fromEnvironment(name)
        } else if let file = preset.http.tokenFile {
            options.httpToken = try HTTPToken.fromFile(file)
        }
    } catch {
        fail("\(error)")
    }
    let events = Events()
    for path in args.events {
        do { try events.addDestination(path: path) } catch { fail("\(error)") }
    }
    let broadcast: Broadcast
    do {
        broadcast = try Broadcast(preset: preset, options: options, log: log, events: events)
    } catch {
        fail("\(error)")
    }

    // First SIGINT/SIGTERM/SIGHUP: graceful stop; a second one aborts at once (docs/exit-codes.md).
    // SIGHUP (the terminal closed, `kill -HUP`) would otherwise kill the run with its files
    // unfinished; one started ignoring it (`nohup`) goes on ignoring it.
    var signalsSeen = 0
    let signalQueue = DispatchQueue(label: "signals")
    var sources: [DispatchSourceSignal] = []
    let signalNames = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"]
    for (sig, name) in signalNames {
        let before = signal(sig, SIG_IGN)
        if sig == SIGHUP, let before, unsafeBitCast(before, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
        let source = DispatchSource.makeSignalSource(signal: sig, queue: signalQueue)
        source.setEventHandler {
            signalsSeen += 1
            if signalsSeen > 1 {
                log.error("second signal: aborting")
                log.flush(until: Date().addingTimeInterval(0.5))
                _exit(ExitCode.failed.rawValue)
            }
            log.info("signal \(name): finishing outputs")
            broadcast.requestStop()
        }
        source.resume()
        sources.append(source)
    }
    let result = broadcast.run()
    if lockFD >= 0 { close(lockFD) }
    // Everything is written (logs and events with write(2), recordings finalised): the
    // process ends without running the libraries' static destructors. libsrt's ran while
    // its own threads were still at work (a handshake, its garbage collector) and crashed
    // the process after a clean finish, turning its exit code into a signal.
    fflush(nil)
    _exit(result.exitCode)
}
