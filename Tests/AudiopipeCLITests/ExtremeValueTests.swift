import Foundation
import Testing
import _AudioPipelineTestSupport

/// No number from outside can crash the process: every numeric option of every command and every
/// numeric field of every input format, at the extremes, ends in a clean exit — success, or 64/65
/// with the offending option, field, file or line named — never a trap.
@Suite struct ExtremeValues {
    static let extremes = ["0", "-1", "1e300", "-1e300", "nan", "inf", "-inf", "9223372036854775808", "abc"]

    /// Runs `args`; the run must exit by itself with 0, 64 or 65 (or `vad tune`'s 1: nothing met its
    /// limits), and name one of `names` when it fails.
    func expectClean(
        _ args: [String], names: [String], stdin: Data? = nil, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        let r = try CLI.run(args, stdin: stdin)
        // `vad tune` exits 1 when no setting of the grid meets its limits: a finding, not a failure.
        let noSetting =
            args.first == "vad" && args.dropFirst().first == "tune" && r.status == 1
            && String(decoding: r.stdout, as: UTF8.self).contains("No setting meets")
        let ok = [0, 64, 65].contains(r.status) || noSetting
        #expect(ok, "\(args): exit \(r.status)\n\(r.stderr)", sourceLocation: sourceLocation)
        #expect(!r.stderr.contains("Fatal error"), "\(args): \(r.stderr)", sourceLocation: sourceLocation)
        if r.status != 0 && !noSetting {
            #expect(
                names.contains { r.stderr.contains($0) }, "\(args) should name \(names): \(r.stderr)",
                sourceLocation: sourceLocation)
        }
    }

    /// (command line with the value, names a failure must mention)
    func optionCases(_ s: Scratch) throws -> [((String) -> [String], [String])] {
        let raw = s.file("x.raw")
        try Data(count: 3200).write(to: URL(fileURLWithPath: raw))
        let (trace, _) = JitterTraceFixture.small(s)
        let out = s.file("o.wav")
        var cases: [((String) -> [String], [String])] = [
            ({ ["convert", mic, out, "--rate", $0] }, ["--rate"]),
            ({ ["convert", mic, out, "--channels", $0] }, ["--channels"]),
            ({ ["convert", phone, out, "--channel", $0] }, ["--channel"]),
            ({ ["convert", mic, out, "--dither", "tpdf", "--dither-seed", $0] }, ["--dither-seed"]),
            (
                { ["convert", raw, out, "--in-rate", $0, "--in-channels", "1", "--in-encoding", "pcm16"] },
                ["--in-rate"]
            ),
            (
                { ["convert", raw, out, "--in-rate", "16000", "--in-channels", $0, "--in-encoding", "pcm16"] },
                ["--in-channels", "channel count"]
            ),
            (
                { ["frame", mic, "--profile", "gemini-live", "--chunk-ms", $0, "-o", s.file("m.jsonl")] },
                ["--chunk-ms"]
            ),
            (
                { ["frame", mic, "--profile", "deepgram", "--rate", $0, "-o", s.file("m.bin")] },
                ["--rate", "deepgram"]
            ),
            (
                {
                    ["analyze", "resampler", "--from", $0, "--to", "16000", "--no-speed", "--resampler", "native-fast"]
                },
                ["--from"]
            ),
            (
                {
                    ["analyze", "resampler", "--from", "48000", "--to", $0, "--no-speed", "--resampler", "native-fast"]
                },
                ["--to"]
            ),
            ({ ["jitter", "simulate", trace, "-o", s.file("p.csv"), "--policy", "fixed:" + $0] }, ["--policy"]),
        ]
        for option in [
            "--tick-ms", "--quantile", "--capacity-s", "--hole-wait-ms", "--margin-ms", "--max-stall-ms",
            "--history-s", "--baseline-s", "--accelerate-ms", "--decelerate-ms",
        ] {
            cases.append(({ ["jitter", "simulate", trace, "-o", s.file("p.csv"), option, $0] }, [option]))
        }
        let vad: [(String, String)] = [
            ("--frame-ms", "frame_ms"), ("--enter-db", "enter_db"), ("--exit-db", "exit_db"),
            ("--hangover-ms", "hangover_ms"),
            ("--min-speech-ms", "min_speech_ms"), ("--absolute-dbfs", "absolute_dbfs"),
            ("--floor-quantile", "floor_quantile"),
            ("--floor-window-s", "floor_window_s"), ("--echo-margin-db", "echo_margin_db"),
            ("--preroll-ms", "preroll_ms"),
            ("--talker-gate-db", "talker_gate_db"),
        ]
        for (option, name) in vad {
            cases.append(({ ["vad", "detect", mic, "-o", s.file("l.txt"), option, $0] }, [option, name]))
        }
        // The bench, briefly (a valid value runs 50 chunks a row).
        for option in [
            "--device-rate", "--device-channels", "--chunk-ms", "--duration", "--iterations", "--warmup", "--cpu",
            "--tick-ms", "--frame-ms",
        ] {
            // (--iterations fixes the chunks per row, and is refused beside --duration.)
            let chunks = option == "--duration" ? [] : ["--iterations", "50"]
            let quick = ["bench"] + chunks + ["--warmup", "5", "--no-peers", "--quiet"]
            cases.append(({ quick + [option, $0] }, [option, "frame_ms", "chunk"]))
        }
        for name in Self.vadParameters {
            cases.append(
                ({ ["vad", "detect", mic, "-o", s.file("l.txt"), "--param", "\(name)=\($0)"] }, ["--param", name]))
        }
        return cases
    }

    static let vadParameters = [
        "frame_ms", "floor_quantile", "floor_window_s", "enter_db", "exit_db", "absolute_dbfs", "min_speech_ms",
        "hangover_ms", "preroll_ms", "echo_delay_min_ms", "echo_delay_max_ms", "echo_margin_db", "echo_margin_min_db",
        "echo_gain_window_s",
        "initial_echo_gain_db", "reference_active_dbfs", "echo_rt60_ms", "echo_delay_tau_s", "talker_gate_db",
        "talker_window_s", "talker_onset_gate_db", "exit_average_frames", "transient_ms", "transient_drop_db",
        "sustained_enter_db", "steady_noise_ms",
    ]

    @Test func everyNumericOptionAtTheExtremes() throws {
        let s = Scratch()
        for (args, names) in try optionCases(s) {
            for v in Self.extremes { try expectClean(args(v), names: names) }
        }
        // With a far-end reference too, so the echo parameters are used.
        for name in Self.vadParameters {
            for v in Self.extremes {
                try expectClean(
                    [
                        "vad", "detect", root + "/samples/bargein-mic-16k.wav", "--reference",
                        root + "/samples/bargein-mic-16k.ref.wav", "-o", s.file("l.txt"), "--param", "\(name)=\(v)",
                    ],
                    names: ["--param", name])
            }
        }
    }

    @Test func vadTuneOptionsAndGridsAtTheExtremes() throws {
        let s = Scratch()
        try FileManager.default.createDirectory(atPath: s.file("c"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root + "/samples/bargein-mic-16k.wav", toPath: s.file("c/a.wav"))
        try "2.54\t4.65\tspeech\n".write(toFile: s.file("c/a.txt"), atomically: true, encoding: .utf8)
        let base = [
            "vad", "tune", "--audio", s.file("c"), "--labels", s.file("c"), "--report", s.file("r"), "--set",
            "enter_db=10",
        ]
        for v in Self.extremes {
            try expectClean(base + ["--max-false-alarm", v], names: ["--max-false-alarm"])
            try expectClean(base + ["--max-settings", v], names: ["--max-settings"])
            try expectClean(
                base + ["--set", "hangover_ms=" + v], names: ["--set", "hangover_ms", "grid has no valid"])
            try "{\"enter_db\": [\(v)]}".write(toFile: s.file("g.json"), atomically: true, encoding: .utf8)
            try expectClean(Array(base.dropLast(2)) + ["--grid", s.file("g.json")], names: ["g.json", "grid"])
            // Labels with the value as a time.
            try "\(v)\t4.65\tspeech\n".write(toFile: s.file("c/a.txt"), atomically: true, encoding: .utf8)
            try expectClean(base, names: ["a.txt"])
        }
    }

    @Test func everyNumericFieldOfTheInputFormats() throws {
        let s = Scratch()
        let header = ["seq", "send_ms", "arrival_ms", "duration_ms", "media_ms", "utt"]
        for v in Self.extremes {
            // Trace and flush files.
            for (k, column) in header.enumerated() {
                var row = ["1", "20", "30", "20", "20", "0"]
                row[k] = v
                let text = header.joined(separator: ",") + "\n0,0,10,20,0,0\n" + row.joined(separator: ",") + "\n"
                try text.write(toFile: s.file("t.csv"), atomically: true, encoding: .utf8)
                try expectClean(["jitter", "simulate", s.file("t.csv"), "-o", s.file("p.csv")], names: [column])
            }
            let (trace, flush) = JitterTraceFixture.small(s)
            for (k, column) in ["flush_ms", "through_utt"].enumerated() {
                var row = ["100", "0"]
                row[k] = v
                try ("flush_ms,through_utt\n" + row.joined(separator: ",") + "\n").write(
                    toFile: flush, atomically: true, encoding: .utf8)
                try expectClean(
                    ["jitter", "simulate", trace, "--flush", flush, "-o", s.file("p.csv")], names: [column])
            }
            // Captured messages: times, opcodes, rates and error codes.
            let audio = #"{\"type\":\"response.output_audio.delta\",\"response_id\":\"r\",\"delta\":\"AAABAA==\"}"#
            for (field, line) in [
                ("time", #"{"type":"receive","time":\#(v),"opcode":1,"data":"\#(audio)"}"#),
                ("opcode", #"{"type":"receive","time":1,"opcode":\#(v),"data":"\#(audio)"}"#),
            ] {
                let first = #"{"type":"receive","time":0.5,"opcode":1,"data":"\#(audio)"}"#
                try (first + "\n" + line + "\n").write(toFile: s.file("s.jsonl"), atomically: true, encoding: .utf8)
                try expectClean(["deframe", s.file("s.jsonl"), "-o", s.file("a.wav")], names: [field, "s.jsonl"])
                try expectClean(
                    ["jitter", "play", s.file("s.jsonl"), "-o", s.file("h.wav")], names: [field, "s.jsonl"])
                let har = #"{"log":{"entries":[{"_webSocketMessages":[\#(first),\#(line)]}]}}"#
                try har.write(toFile: s.file("s.har"), atomically: true, encoding: .utf8)
                try expectClean(["deframe", s.file("s.har"), "-o", s.file("a.wav")], names: [field, "s.har"])
            }
            let gemini =
                #"{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm;rate=\#(v)","data":"AAABAA=="}}]}}}"#
            try (gemini + "\n").write(toFile: s.file("g.jsonl"), atomically: true, encoding: .utf8)
            try expectClean(
                ["deframe", s.file("g.jsonl"), "-o", s.file("a.wav"), "--profile", "gemini-live"],
                names: ["rate", "g.jsonl"])
            let atoms =
                #"{"type":"output_audio.delta","audio":"AAABAA=="}"# + "\n"
                + #"{"type":"error","code":\#(v),"message":"x"}"#
            try (atoms + "\n").write(toFile: s.file("at.jsonl"), atomically: true, encoding: .utf8)
            // Every profile is tried on it when detecting: none may trap.
            try expectClean(["deframe", s.file("at.jsonl"), "-o", s.file("a.wav")], names: ["at.jsonl"])
            // Configuration and template files.
            try "{\"enter_db\": \(v)}".write(toFile: s.file("c.json"), atomically: true, encoding: .utf8)
            try expectClean(
                ["vad", "detect", mic, "-o", s.file("l.txt"), "--config", s.file("c.json")], names: ["c.json"])
            try #"{"clientRate": \#(v), "clientMessage": "{\"a\":\"{{audio}}\"}"}"#.write(
                toFile: s.file("p.json"), atomically: true, encoding: .utf8)
            try expectClean(
                ["frame", mic, "--profile", "custom:" + s.file("p.json"), "-o", s.file("m.jsonl")], names: ["p.json"])
        }
    }
}

/// A two-packet trace and its flush file.
enum JitterTraceFixture {
    static func small(_ s: Scratch) -> (trace: String, flush: String) {
        let trace = s.file("small.csv"), flush = s.file("small.flush.csv")
        try? "seq,send_ms,arrival_ms,duration_ms,media_ms,utt\n0,0,10,20,0,0\n1,20,30,20,20,0\n"
            .write(toFile: trace, atomically: true, encoding: .utf8)
        try? "flush_ms,through_utt\n100,0\n".write(toFile: flush, atomically: true, encoding: .utf8)
        return (trace, flush)
    }
}
