// deploy/: the systemd units verify offline, the Kubernetes manifests parse and
// hang together, and the preset they carry runs and records (ffprobe).

import Foundation
import XCTest

final class DeployRecipesTests: XCTestCase {

    private var deploy: URL { CLI.packageRoot.appendingPathComponent("deploy") }

    /// Two channels, each with its own environment file, verify; systemd's expansion of
    /// ExecStart gives each the metrics address of its file (never the same one).
    func testSystemdUnitsVerifyOffline() throws {
        let dir = try makeTempDir()
        let binary = try CLI.binary()
        let units = try FileManager.default.contentsOfDirectory(atPath: deploy.appendingPathComponent("systemd").path).sorted()
        XCTAssertEqual(units, ["mediapub-show@.service", "mediapub-show@.timer", "mediapub@.service"])
        for unit in units {
            // systemd checks that ExecStart's program exists: the one built here stands in;
            // the environment files are this test's.
            let text = try String(contentsOf: deploy.appendingPathComponent("systemd/\(unit)"), encoding: .utf8)
            try text.replacingOccurrences(of: "/usr/local/bin/mediapub", with: binary)
                .replacingOccurrences(of: "/etc/mediapub/%i.env", with: dir.appendingPathComponent("%i.env").path)
                .write(to: dir.appendingPathComponent(unit), atomically: true, encoding: .utf8)
        }
        let channels = ["bgm": "127.0.0.1:9301", "news": "127.0.0.1:9302"]
        for (name, address) in channels {
            _ = try writeFile(dir, "\(name).env", "METRICS_ADDRESS=\(address)\nRTMP_URL=rtmp://live.example.com/app/\(name)Key\n")
        }
        let r = try Proc.run(try Tools.path("systemd-analyze"),
                             ["verify", "mediapub@bgm.service", "mediapub@news.service", "mediapub-show@evening.service",
                              "mediapub-show@evening.timer"],
                             cwd: dir, timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("systemd-analyze verify"))
        XCTAssertEqual(r.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "no warnings: \(r.stderr)")
        // Exit codes a restart cannot mend (preset error, lock held) are not restarted.
        let service = try String(contentsOf: deploy.appendingPathComponent("systemd/mediapub@.service"), encoding: .utf8)
        XCTAssertTrue(service.contains("RestartPreventExitStatus=2 3"), service)
        let execStart = service.split(separator: "\n").filter { $0.hasPrefix("ExecStart=") }
        XCTAssertEqual(execStart.count, 1, service)
        XCTAssertFalse(execStart.joined().contains("://"), "no URL (and key) on the command line: \(execStart)")
        XCTAssertTrue(service.contains("EnvironmentFile=/etc/mediapub/%i.env"), "keys and the metrics address come from an environment file")
        // ExecStart as systemd expands it for each instance: each its own metrics address.
        let metrics = try channels.keys.sorted().map { name -> String in
            var line = execStart.joined()
            let env = try String(contentsOf: dir.appendingPathComponent("\(name).env"), encoding: .utf8)
            for pair in env.split(separator: "\n") {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                line = line.replacingOccurrences(of: "${\(parts[0])}", with: parts[1])
            }
            let words = line.split(separator: " ").map(String.init)
            return words.firstIndex(of: "--metrics").map { words[$0 + 1] } ?? "none"
        }
        XCTAssertEqual(metrics, ["127.0.0.1:9301", "127.0.0.1:9302"], "each instance's metrics address is its environment file's")
        // Under ProtectSystem=strict the shipped presets record where the unit may write.
        let writable = service.split(separator: "\n").filter { $0.hasPrefix("ReadWritePaths=") }.map { String($0.dropFirst(15)) }
        let recordings = try XCTUnwrap(service.split(separator: "\n").first { $0.hasPrefix("Environment=MEDIAPUB_RECORDINGS=") })
            .split(separator: "=", maxSplits: 2).last.map(String.init) ?? ""
        for preset in ["bgm", "demo"] {
            let v = try CLI.run(["validate", CLI.packageRoot.appendingPathComponent("presets/\(preset).yaml").path],
                                env: ["MEDIAPUB_RECORDINGS": recordings])
            XCTAssertEqual(v.status, 0, v.summary("validate \(preset).yaml"))
            let files = v.stdout.split(separator: "\n").filter { $0.contains("url: file://") }
            XCTAssertFalse(files.isEmpty, v.stdout)
            for line in files {
                XCTAssertTrue(writable.contains { line.contains("file://\($0)/") }, "\(preset).yaml records under \(writable): \(line)")
            }
        }
    }

    /// The manifests as a cluster would read them (PyYAML), and the preset of the
    /// ConfigMap run with the Secret's variable set: it validates, runs and records.
    func testKubernetesManifestsHangTogetherAndTheirPresetRuns() throws {
        let dir = try makeTempDir()
        let script = try writeFile(dir, "check.py", """
        import glob, json, sys, yaml
        docs = {}
        for f in sorted(glob.glob(sys.argv[1] + "/*.yaml")):
            for d in yaml.safe_load_all(open(f)):
                docs[d["kind"]] = d
        dep = docs["Deployment"]["spec"]["template"]["spec"]["containers"][0]
        job = docs["CronJob"]
        out = {
            "kinds": sorted(docs),
            "probe": dep["livenessProbe"]["httpGet"]["path"],
            "probeGrace": dep["livenessProbe"]["initialDelaySeconds"]
                + dep["livenessProbe"]["periodSeconds"] * dep["livenessProbe"]["failureThreshold"],
            "probePort": [p["containerPort"] for p in dep["ports"] if p["name"] == dep["livenessProbe"]["httpGet"]["port"]],
            "args": dep["args"],
            "keyRef": dep["env"][0]["valueFrom"]["secretKeyRef"],
            "secretKeys": sorted(docs["Secret"]["stringData"]),
            "secretName": docs["Secret"]["metadata"]["name"],
            "policy": job["spec"]["concurrencyPolicy"],
            "jobArgs": job["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["args"],
            "pull": [dep.get("imagePullPolicy"),
                     job["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0].get("imagePullPolicy")],
            "configMap": docs["ConfigMap"]["metadata"]["name"],
            "mounted": docs["Deployment"]["spec"]["template"]["spec"]["volumes"][0]["configMap"]["name"],
            "preset": docs["ConfigMap"]["data"]["channel.yaml"],
        }
        print(json.dumps(out))
        """)
        let r = try Proc.run(try Tools.path("python3"), [script.path, deploy.appendingPathComponent("kubernetes").path], timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("PyYAML"))
        let m = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(m["kinds"] as? [String], ["ConfigMap", "CronJob", "Deployment", "Secret"])
        // /health fails when the channel does (its timeline stands, no output publishes); a
        // restart is a minute away at the least, past an output's reconnect backoff.
        XCTAssertEqual(m["probe"] as? String, "/health")
        XCTAssertGreaterThanOrEqual(m["probeGrace"] as? Int ?? 0, 60)
        XCTAssertEqual(m["probePort"] as? [Int], [9300])
        let args = try XCTUnwrap(m["args"] as? [String])
        XCTAssertEqual(args.firstIndex(of: "--metrics").map { args[$0 + 1] }, "0.0.0.0:9300")
        let keyRef = try XCTUnwrap(m["keyRef"] as? [String: String])
        XCTAssertEqual(keyRef["name"], m["secretName"] as? String)
        XCTAssertEqual([keyRef["key"] ?? ""], m["secretKeys"] as? [String])
        XCTAssertEqual(m["policy"] as? String, "Forbid")
        // A locally built image (`mediapub:latest`) is used, not pulled (a registry has none).
        XCTAssertEqual(m["pull"] as? [String], ["IfNotPresent", "IfNotPresent"])
        XCTAssertEqual(m["configMap"] as? String, m["mounted"] as? String)
        XCTAssertTrue((m["jobArgs"] as? [String] ?? []).contains("--duration"))

        // The ConfigMap's preset, with the Secret's variable pointing at a local recording.
        let preset = try writeFile(dir, "channel.yaml", try XCTUnwrap(m["preset"] as? String))
        let out = dir.appendingPathComponent("channel.mp4")
        let validate = try CLI.run(["validate", preset.path], env: ["RTMP_URL": "rtmp://live.example.com/app/k8sKey77"])
        XCTAssertEqual(validate.status, 0, validate.summary("validate the ConfigMap preset"))
        XCTAssertFalse(validate.stdout.contains("k8sKey77"), validate.stdout)
        let run = try CLI.run(["--preset", preset.path, "--no-realtime", "--duration", "2s"], env: ["RTMP_URL": out.path], timeout: 60)
        XCTAssertEqual(run.status, 0, run.summary("run the ConfigMap preset"))
        let p = try assertH264AAC(out.path)
        XCTAssertEqual(p.video?.width, 1280)
    }

    func testCrontabLineKeepsTheKeyInAFileAndLocks() throws {
        let text = try String(contentsOf: deploy.appendingPathComponent("cron/mediapub.crontab"), encoding: .utf8)
        let entries = text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        XCTAssertEqual(entries.count, 1, text)
        let fields = entries[0].split(separator: " ", maxSplits: 5)
        XCTAssertEqual(fields.count, 6, "five time fields and a command")
        let command = String(fields.last ?? "")
        XCTAssertTrue(command.contains("--lock "), command)
        XCTAssertFalse(command.contains("rtmp://"), "no key on the command line: \(command)")
        // The lock is in a folder of its own, not in /tmp where anyone may plant one.
        XCTAssertTrue(command.contains("--lock /var/lib/mediapub/evening.lock"), command)
        XCTAssertFalse(command.contains("/tmp"), command)
        // The command, run by sh as cron does (with its paths pointed at a test preset), records.
        let dir = try makeTempDir()
        let out = dir.appendingPathComponent("cron.mkv")
        let preset = try writeFile(dir, "evening.yaml", E2EPreset.basic(source: E2EPreset.testsrc, outputs: ["${RTMP_URL}"]))
        let env = try writeFile(dir, "evening.env", "RTMP_URL=\(out.path)\n")
        let local = command
            .replacingOccurrences(of: "/etc/mediapub/evening.env", with: env.path)
            .replacingOccurrences(of: "/etc/mediapub/evening.yaml", with: preset.path)
            .replacingOccurrences(of: "/usr/local/bin/mediapub", with: try CLI.binary())
            .replacingOccurrences(of: "--duration 1h", with: "--duration 2s --no-realtime")
            .replacingOccurrences(of: "/var/lib/mediapub/evening.lock", with: dir.appendingPathComponent("lock").path)
            .replacingOccurrences(of: "/var/log/mediapub/evening.log", with: dir.appendingPathComponent("log").path)
        let r = try Proc.run("/bin/sh", ["-c", local], env: CLI.environment(), timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary("the crontab command") + ((try? String(contentsOf: dir.appendingPathComponent("log"), encoding: .utf8)) ?? ""))
        _ = try assertH264AAC(out.path)
    }
}
