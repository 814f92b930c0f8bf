import Foundation
import Testing
import _AudioPipelineTestSupport

/// A signal during a job leaves nothing behind: no temporary file, no partial report, an existing
/// output untouched, and the shell's exit status (128 + the signal).
@Suite(.serialized) struct Signals {
    /// Starts `audiopipe args` (stdout to `stdout` when given), waits until a temporary file shows
    /// up in `dir`, sends `sig`, and returns the exit status.
    func interrupt(_ args: [String], in dir: String, signal sig: Int32, stdout: FileHandle? = nil) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = args
        p.standardOutput = stdout ?? FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // A bound on waiting, not a timing check: the loop ends as soon as the temporary file shows
        // up or the job exits. Under the address sanitizer on two busy cores `vad tune` took more
        // than 60 s before writing its report (39 s on an idle machine, 2.5 s in release).
        let deadline = Date().addingTimeInterval(300)
        var started = false
        while Date() < deadline && p.isRunning {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            if names.contains(where: { $0.contains(".tmp-") }) { started = true; break }
            usleep(2_000)
        }
        #expect(started, "the job wrote a temporary file before it was interrupted")
        kill(p.processIdentifier, sig)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit, "exits by itself, not killed by the signal")
        return p.terminationStatus
    }

    /// A long input: 10 minutes of noise at 48 kHz stereo float (sox), this process's own (230 MB),
    /// removed when the test process exits.
    static let long: String = {
        let path = NSTemporaryDirectory() + "audiopipe-signal-long-\(getpid()).wav"
        _ = try? runTool(
            "/usr/bin/env",
            [
                "sox", "-n", "-r", "48000", "-c", "2", "-e", "floating-point", "-b", "32", path,
                "synth", "600", "whitenoise", "gain", "-10",
            ])
        atexit { _ = unlink(Signals.long) }
        return path
    }()

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))] as [(Int32, Int32)])
    func convertLeavesNothingAndKeepsTheOldOutput(signal: (Int32, Int32)) throws {
        let s = Scratch()
        try "old".write(toFile: s.file("out.wav"), atomically: true, encoding: .utf8)
        let status = try interrupt(
            ["convert", Self.long, s.file("out.wav"), "-r", "16000", "--resampler", "src-best"],
            in: s.path, signal: signal.0)
        #expect(status == signal.1)
        #expect(s.contents == ["out.wav"], "\(s.contents)")
        #expect(try String(contentsOfFile: s.file("out.wav"), encoding: .utf8) == "old")
    }

    @Test func frameAndDeframeAndJitterPlayAndTuneToo() throws {
        let s = Scratch()
        #expect(
            try interrupt(
                ["frame", Self.long, "--profile", "gemini-live", "-o", s.file("m.jsonl")], in: s.path, signal: SIGTERM)
                == 143)
        #expect(s.contents.isEmpty, "\(s.contents)")
        // A capture long enough to be interrupted: the session sample repeated (its times kept growing).
        let session = try String(contentsOfFile: root + "/samples/agent-session.jsonl", encoding: .utf8)
        let lines = session.split(separator: "\n")
        var shifted = ""
        for k in 0..<200 {
            for l in lines {
                guard let r = l.range(of: "\"time\":") else { shifted += l + "\n"; continue }
                let rest = l[r.upperBound...]
                let num = rest.prefix { "0123456789.".contains($0) }
                shifted += l[..<r.upperBound] + String(Double(num)! + Double(k * 30)) + rest.dropFirst(num.count) + "\n"
            }
        }
        let dir = Scratch()
        try shifted.write(toFile: dir.file("long.jsonl"), atomically: true, encoding: .utf8)
        #expect(
            try interrupt(
                ["deframe", dir.file("long.jsonl"), "-o", s.file("a.wav"), "--trace", s.file("t.csv")], in: s.path,
                signal: SIGINT) == 130)
        #expect(s.contents.isEmpty, "\(s.contents)")
        #expect(
            try interrupt(
                ["jitter", "play", dir.file("long.jsonl"), "-o", s.file("h.wav")], in: s.path, signal: SIGHUP) == 129)
        #expect(s.contents.isEmpty, "\(s.contents)")
        // vad tune: the report directory is written beside its target and published whole.
        try FileManager.default.createDirectory(atPath: dir.file("c"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root + "/samples/bargein-mic-16k.wav", toPath: dir.file("c/a.wav"))
        try "2.54\t4.65\tspeech\n".write(toFile: dir.file("c/a.txt"), atomically: true, encoding: .utf8)
        let many = (0..<400).map { String(format: "%.2f", 6 + Double($0) * 0.01) }.joined(separator: ",")
        let tune = [
            "vad", "tune", "--audio", dir.file("c"), "--labels", dir.file("c"), "--report", s.file("rep"),
            "--set", "enter_db=" + many, "--set", "hangover_ms=60,80,100,120,140,160,180,200",
        ]
        #expect(try interrupt(tune, in: s.path, signal: SIGINT) == 130)
        #expect(s.contents.isEmpty, "\(s.contents)")
    }

    /// session simulate: the output directory is built beside its target and published whole; an
    /// existing one is kept as it was.
    @Test func aSessionSimulationLeavesNothingAndKeepsTheOldDirectory() throws {
        let s = Scratch()
        try FileManager.default.createDirectory(atPath: s.file("sim"), withIntermediateDirectories: true)
        try "old".write(toFile: s.file("sim/report.json"), atomically: true, encoding: .utf8)
        try "".write(toFile: s.file("sim/.audiopipe-report"), atomically: true, encoding: .utf8)  // an earlier report
        let status = try interrupt(
            ["session", "simulate", "--agent", Self.long, "--user", Self.long, "-o", s.file("sim")], in: s.path,
            signal: SIGINT)
        #expect(status == 130)
        #expect(s.contents == ["sim"], "\(s.contents)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: s.file("sim")).sorted()
        #expect(kept == [".audiopipe-report", "report.json"])
        #expect(try String(contentsOfFile: s.file("sim/report.json"), encoding: .utf8) == "old")
    }

    @Test func aBatchLeavesItsFinishedOutputsAndNoTemporaryFile() throws {
        let s = Scratch(), inputs = Scratch()
        for k in 0..<3 {
            try FileManager.default.createSymbolicLink(
                atPath: inputs.file("long\(k).wav"), withDestinationPath: Self.long)
        }
        let status = try interrupt(
            [
                "convert", inputs.path, "-o", s.path, "-j", "2", "-r", "16000", "--resampler", "src-best", "--report",
                s.file("r.jsonl"),
            ],
            in: s.path, signal: SIGTERM)
        #expect(status == 143)
        // Both workers' temporary files are gone; the results file holds only whole lines.
        #expect(!s.contents.contains { $0.contains(".tmp-") }, "\(s.contents)")
        let results = (try? String(contentsOfFile: s.file("r.jsonl"), encoding: .utf8)) ?? ""
        #expect(results.isEmpty || results.hasSuffix("\n"))
    }

    /// SIGINT to the whole process group while the job reads its standard input: the writer dies of
    /// it too, so the job then sees its input end — and must still end as interrupted (130) and leave
    /// nothing, not convert the part it got and exit 0.
    @Test func sigintToTheProcessGroupWhileReadingStandardInput() throws {
        let s = Scratch(), aside = Scratch()
        for attempt in 0..<3 {
            let status = aside.file("status\(attempt)"), group = aside.file("pgid\(attempt)")
            // bash in a session of its own (setsid), surviving the SIGINT (a trap) to report the status.
            let script =
                "trap 'true' INT; ps -o pgid= $$ > '\(group)'; "
                + "(head -c 400000 '\(Self.long)'; sleep 30) | '\(CLI.binary)' convert - '\(s.file("out.wav"))' "
                + "-r 16000; echo $? > '\(status)'"
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
            p.arguments = ["/bin/bash", "-c", script]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            let deadline = Date().addingTimeInterval(60)
            var pgid: Int32?
            while Date() < deadline {
                let started = s.contents.contains { $0.contains(".tmp-") }
                pgid = (try? String(contentsOfFile: group, encoding: .utf8)).flatMap {
                    Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
                }
                if started, pgid != nil { break }
                usleep(2_000)
            }
            let leader = try #require(pgid, "the script reported its process group")
            usleep(UInt32(attempt) * 20_000)
            kill(-leader, SIGINT)
            while Date() < deadline && !FileManager.default.fileExists(atPath: status) { usleep(5_000) }
            p.waitUntilExit()
            let code = try String(contentsOfFile: status, encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines)
            #expect(code == "130", "attempt \(attempt)")
            #expect(s.contents.isEmpty, "\(s.contents)")
        }
    }

    @Test func aClosedPipeEndsQuietly() throws {
        let r = try runTool(
            "/bin/bash",
            [
                "-c",
                "'\(CLI.binary)' convert '\(Self.long)' - --type raw | head -c 1000 > /dev/null; echo ${PIPESTATUS[0]}",
            ])
        #expect(r.err.isEmpty, "no message: \(r.err)")
        #expect(r.out == "141\n", "the shell's status for a closed pipe")
    }
}
