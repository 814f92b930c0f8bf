import AudioPipelineCore
import Foundation
import Testing
import _AudioPipelineTestSupport

/// The CLI takes what people type (issue 32): a missing argument shows the command's usage (exit
/// 64), bare `audiopipe` names every command, every --help shows every default, the next step is
/// named where it is obvious, and an option name means one thing with one range everywhere.
@Suite struct Usage {
    @Test func bareAudiopipeNamesEveryCommand() throws {
        let r = try CLI.run([])
        #expect(r.status == 64)
        for command in ["info", "convert", "frame", "deframe", "jitter", "vad", "analyze", "bench", "session"] {
            #expect(r.stderr.contains(command), "\(command): \(r.stderr)")
        }
        #expect(r.stderr.contains("Usage: audiopipe <subcommand>"))
        let jitter = try CLI.run(["jitter"])
        #expect(jitter.status == 64 && jitter.stderr.contains("jitter simulate or jitter play"), "\(jitter.stderr)")
        #expect(jitter.stderr.contains("Usage: audiopipe jitter <subcommand>"), "\(jitter.stderr)")
        // Every command group shows its own usage, not the top level's.
        for (group, names) in [("vad", "vad detect or vad tune"), ("session", "session simulate")] {
            let r = try CLI.run([group])
            #expect(r.status == 64 && r.stderr.contains("choose a subcommand: \(names)"), "\(r.stderr)")
            #expect(r.stderr.contains("Usage: audiopipe \(group) <subcommand>"), "\(r.stderr)")
            #expect(r.stderr.contains("See 'audiopipe \(group) --help'"), "\(r.stderr)")
        }
    }

    /// `-o DIR/` is DIR: it runs, and the paths it prints and records have no `//`.
    @Test func aTrailingSlashOnAnOutputDirectoryIsTheSameDirectory() throws {
        let s = Scratch()
        let sim = try CLI.run([
            "session", "simulate", "--agent", root + "/samples/scenario/agent-24k.wav", "--user",
            root + "/samples/scenario/user-16k.wav", "-o", s.file("sim") + "/",
        ])
        #expect(sim.status == 0, "\(sim.stderr)")
        #expect(sim.text.contains(s.file("sim") + "/report.html") && !sim.text.contains("//"), "\(sim.text)")
        #expect(FileManager.default.fileExists(atPath: s.file("sim/report.html")))
        let convert = try CLI.run([
            "convert", root + "/samples/mic-16k-pcm16-mono.wav", root + "/samples/agent-reply-24k-pcm16.wav", "-o",
            s.file("out") + "///", "--report", s.file("out.jsonl"),
        ])
        #expect(convert.status == 0, "\(convert.stderr)")
        let results = try String(contentsOfFile: s.file("out.jsonl"), encoding: .utf8)
        #expect(results.contains("\"output\":\"\(s.file("out"))/mic-16k-pcm16-mono.wav\""), "\(results)")
        #expect(!results.contains("//"), "\(results)")
    }

    /// Without inputs a command prints its own usage, not only "no input files".
    @Test(arguments: [
        ["info"], ["convert"], ["vad", "detect"], ["frame", "--profile", "openai-realtime", "-o", "x.jsonl"],
        ["deframe", "-o", "x.wav"],
    ])
    func noInputShowsTheCommandsUsage(args: [String]) throws {
        let r = try CLI.run(args)
        #expect(r.status == 64, "\(args): \(r.stderr)")
        #expect(r.stderr.contains("no input files"), "\(r.stderr)")
        #expect(r.stderr.contains("Usage: audiopipe \(args.prefix { !$0.hasPrefix("-") }.joined(separator: " "))"))
        #expect(r.stderr.contains("--help"), "\(r.stderr)")
    }

    @Test func convertWithOneFileAndNoOutputShowsItsUsage() throws {
        let one = try CLI.run(["convert", mic])
        #expect(one.status == 64 && one.stderr.contains("give IN OUT"), "\(one.stderr)")
        #expect(one.stderr.contains("Usage: audiopipe convert"), "\(one.stderr)")
    }

    /// `vad detect --help` shows the defaults of the VAD's parameters, from VADConfiguration itself.
    @Test func helpShowsEveryDefault() throws {
        let c = VADConfiguration()
        let vad = try CLI.run(["vad", "detect", "--help"]).text.replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ").joined(separator: " ")
        for (option, value) in [
            ("--enter-db", c.enterThreshold), ("--exit-db", c.exitThreshold), ("--hangover-ms", c.hangoverMilliseconds),
            ("--min-speech-ms", c.minimumSpeechMilliseconds), ("--absolute-dbfs", c.absoluteThreshold),
            ("--frame-ms", c.frameMilliseconds), ("--floor-quantile", c.floorQuantile),
        ] {
            let number = value == value.rounded() ? String(Int(value)) : String(value)
            guard let at = vad.range(of: option + " <") else {
                Issue.record("\(option) not in the help")
                continue
            }
            let entry = vad[at.upperBound...].prefix(200).components(separatedBy: " --").first ?? ""
            #expect(entry.contains("(default: \(number)"), "\(option): \(entry)")
        }
        // The bench's help lists its options (not only its subcommands), with their defaults.
        let bench = try CLI.run(["bench", "--help"]).text
        for word in ["--device-rate", "--budget", "--chunk-ms", "--wide", "(default: 48000)", "compare"] {
            #expect(bench.contains(word), "\(word)")
        }
        // The jitter buffer's optional overrides say what they default to.
        let play = try CLI.run(["jitter", "play", "--help"]).text.replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ").joined(separator: " ")
        for option in ["--hole-wait-ms", "--margin-ms", "--max-stall-ms", "--history-s", "--baseline-s"] {
            guard let at = play.range(of: option + " <") else {
                Issue.record("\(option) not in the help")
                continue
            }
            let entry = play[at.upperBound...].prefix(200).components(separatedBy: " --").first ?? ""
            #expect(entry.contains("(default: "), "\(option): \(entry)")
        }
        #expect(play.contains("(default: 40)"), "hole wait: 40 ms")
        let frame = try CLI.run(["frame", "--help"]).text.replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ").joined(separator: " ")
        #expect(frame.contains("deepgram; default: its own)"), "frame --rate")
        // session simulate's echo and noise options name their defaults (the library's).
        let session = try CLI.run(["session", "simulate", "--help"]).text.replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ").joined(separator: " ")
        for entry in [
            "--echo-delay-ms <echo-delay-ms> Echo path delay, ms (default: 40 ms).",
            "--echo-gain-db <echo-gain-db> Echo level relative to the loudspeaker, dB (default: -10 dB).",
            "--noise-dbfs <noise-dbfs> Microphone noise floor, dBFS RMS (default: -70 dBFS).",
        ] {
            #expect(session.contains(entry), "\(entry)")
        }
    }

    @Test func hintsNameTheNextStep() throws {
        let s = Scratch()
        // frame's own output (client messages) given to deframe: --direction client.
        #expect(try CLI.run(["frame", mic, "--profile", "openai-realtime", "-o", s.file("m.jsonl"), "-q"]).status == 0)
        let server = try CLI.run(["deframe", s.file("m.jsonl"), "-o", s.file("a.wav")])
        #expect(server.status == 65 && server.stderr.contains("no server audio messages"), "\(server.stderr)")
        #expect(server.stderr.contains("client audio messages") && server.stderr.contains("give --direction client"))
        #expect(try CLI.run(["deframe", s.file("m.jsonl"), "-o", s.file("a.wav"), "-q"]).status == 65)
        #expect(
            try CLI.run(["deframe", s.file("m.jsonl"), "-o", s.file("a.wav"), "--direction", "client"]).status == 0)
        // Raw PCM on stdin: name the raw options.
        let pcm = try CLI.run(["convert", mic, "-", "--type", "raw"]).stdout
        // (Less than a pipe holds: the command stops reading at once, and the write must not block.)
        let raw = try CLI.run(["convert", "-", s.file("x.wav")], stdin: pcm.prefix(8000))
        #expect(raw.status == 65 && raw.stderr.contains("stdin: cannot decode"), "\(raw.stderr)")
        #expect(raw.stderr.contains("--in-rate, --in-channels and --in-encoding"), "\(raw.stderr)")
        // A WAV given to deframe: audio, not a capture.
        let wav = try CLI.run(["deframe", mic, "-o", s.file("b.wav")])
        #expect(wav.status == 65 && wav.stderr.contains("is audio (WAV), not a captured session"), "\(wav.stderr)")
        #expect(s.contents == ["a.wav", "m.jsonl"], "\(s.contents)")
    }

    /// `--dither` is `none|tpdf` wherever it is taken; `--chunk-ms` has one range.
    @Test func oneMeaningAndOneRangePerOptionName() throws {
        let quick = ["bench", "--iterations", "50", "--warmup", "5", "--no-peers"]
        let bench = try CLI.run(quick + ["--dither", "tpdf"])
        #expect(bench.status == 0 && bench.text.contains("dither=tpdf"), "\(bench.stderr)")
        let flag = try CLI.run(quick + ["--dither"])
        #expect(flag.status == 64, "a value is needed, as for convert: \(flag.stderr)")
        let convertHelp = try CLI.run(["convert", "--help"]).text
        let benchHelp = try CLI.run(["bench", "--help"]).text
        #expect(convertHelp.contains("--dither <dither>") && benchHelp.contains("--dither <dither>"))
        for value in ["0.001", "0.5", "1000.5", "60000"] {
            let frame = try CLI.run(["frame", mic, "--profile", "gemini-live", "--chunk-ms", value, "-o", "/dev/null"])
            let b = try CLI.run(quick + ["--chunk-ms", value])
            for r in [frame, b] {
                #expect(r.status == 64 && r.stderr.contains("--chunk-ms must be in 1…1000 ms"), "\(value): \(r.stderr)")
            }
        }
        for value in ["1", "1000"] {
            let frame = try CLI.run(["frame", mic, "--profile", "gemini-live", "--chunk-ms", value, "-o", "/dev/null"])
            #expect(frame.status == 0, "\(value): \(frame.stderr)")
        }
    }
}
