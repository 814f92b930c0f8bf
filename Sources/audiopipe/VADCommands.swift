import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

struct VAD: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vad",
        abstract: "Energy voice-activity detection for barge-in, optionally echo-aware.",
        subcommands: [VADDetect.self, VADTune.self])
}

/// Every detector parameter as an option; each overrides the --config file and the defaults.
struct VADParameterOptions: ParsableArguments {
    @Option(help: "JSON file with parameters (what `vad tune` writes).") var config: String?
    @Option(help: "Frame length: 10, 20 or 30 ms.") var frameMs: Double?
    @Option(help: "Speech starts this many dB above noise floor (+ expected echo).") var enterDb: Double?
    @Option(help: "Speech continues while at least this many dB above.") var exitDb: Double?
    @Option(help: "Hold speech this long after the level drops, ms.") var hangoverMs: Double?
    @Option(help: "Speech must last this long before it is declared, ms.") var minSpeechMs: Double?
    @Option(help: "Never speech below this band-limited level, dBFS.") var absoluteDbfs: Double?
    @Option(help: "Noise floor = this quantile of recent frame energies.") var floorQuantile: Double?
    @Option(help: "Window of the noise floor, s.") var floorWindowS: Double?
    @Option(help: "With --reference: expected echo raised by this much, dB.") var echoMarginDb: Double?
    @Option(help: "With --align: move onsets this much earlier, ms.") var prerollMs: Double?
    @Option(help: "Speech starts only within this many dB of the loudest recent speech (0: off).") var talkerGateDb: Double?
    @Option(name: .customLong("param"), help: ArgumentHelp(
        "Any parameter by its JSON name, NAME=VALUE (repeatable; applied last).",
        discussion: "Names: \(VADConfiguration.parameterNames.joined(separator: ", "))."))
    var params: [String] = []

    func configuration() throws -> VADConfiguration {
        var c = VADConfiguration()
        if let path = config {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw AudioPipelineError(.inputUnavailable, "\(path): cannot read the VAD configuration")
            }
            do {
                c = try VADConfiguration(json: try JSON.parse(String(decoding: data, as: UTF8.self)))
            } catch let e as JSON.ParseError {
                throw AudioPipelineError(.invalidData, "\(path): \(e)")
            } catch let e as AudioPipelineError {
                throw AudioPipelineError(e.code, "\(path): \(e.message)")
            }
        }
        if let v = frameMs { c.frameMilliseconds = v }
        if let v = enterDb { c.enterThreshold = v }
        if let v = exitDb { c.exitThreshold = v }
        if let v = hangoverMs { c.hangoverMilliseconds = v }
        if let v = minSpeechMs { c.minimumSpeechMilliseconds = v }
        if let v = absoluteDbfs { c.absoluteThreshold = v }
        if let v = floorQuantile { c.floorQuantile = v }
        if let v = floorWindowS { c.floorWindowSeconds = v }
        if let v = echoMarginDb { c.echoMargin = v }
        if let v = prerollMs { c.preRollMilliseconds = v }
        if let v = talkerGateDb { c.talkerGate = v }
        for p in params {
            let parts = p.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let value = Double(parts[1]) else { throw ValidationError("--param wants NAME=VALUE, not '\(p)'") }
            guard c[parts[0]] != nil else {
                throw ValidationError("--param: unknown VAD parameter '\(parts[0])' (known: \(VADConfiguration.parameterNames.joined(separator: ", ")))")
            }
            c[parts[0]] = value
        }
        try c.validate()
        return c
    }
}

enum LabelFormat: String, ExpressibleByArgument, CaseIterable {
    case audacity, csv, json
}

struct VADDetect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Speech segments of a recording, as a streaming detector would decide them.",
        discussion: """
            Segments are on the streaming decision timeline: a segment starts when the detector \
            decided (the end of the frame that confirmed speech), as a live client experiences \
            it. --align moves onsets back to where the speech began (for offline labelling). \
            With --reference (the audio the client was playing, on the microphone's timeline) the \
            detector ignores the echo of that audio; a reference with another rate or channel \
            count is converted, one of another length padded or cut (with a warning). Any input \
            rate and channel count (mixed to mono). Formats: audacity (start<TAB>end<TAB>speech), \
            csv (start,end), json (segments and the configuration).

            Examples:
              audiopipe vad detect mic.wav -o mic.txt
              audiopipe vad detect mic.wav --reference played.wav --format json
              audiopipe vad detect mic.wav --config tuned.json --align -o labels.txt
            """)

    @Argument(help: "Microphone recording.") var input: String
    @Option(help: "Far-end reference: what the client was playing.") var reference: String?
    @OptionGroup var parameters: VADParameterOptions
    @Option(help: "Output format: audacity, csv or json.") var format: LabelFormat = .audacity
    @Flag(help: "Back-date onsets (offline labelling) instead of the streaming timeline.") var align = false
    @Option(name: .shortAndLong, help: "Output file (default: standard output).") var output: String = "-"

    func run() throws {
        let c = try parameters.configuration()
        let (mic, rate) = try VADAudio.readMono(path: input)
        var ref: [Float]?
        if let reference {
            try FileConverter.refuseSamePath(reference, output)
            let r = try VADAudio.readReference(path: reference, rate: rate, length: mic.count)
            if let w = r.warning { Terminal.stderr("audiopipe: warning: \(w)\n") }
            ref = r.samples
        }
        try FileConverter.refuseSamePath(input, output)
        let result = try VADRun(samples: mic, rate: rate, reference: ref, configuration: c)
        let segments = result.segments(align: align)
        let text: String
        switch format {
        case .audacity: text = AudacityLabels.format(segments)
        case .csv: text = "start,end\n" + segments.map { String(format: "%.6f,%.6f\n", $0.start, $0.end) }.joined()
        case .json:
            let o: [String: Any] = [
                "input": input, "reference": reference ?? NSNull(), "sampleRate": rate, "duration": result.duration,
                "timeline": align ? "aligned" : "streaming",
                "segments": segments.map { ["start": $0.start, "end": $0.end] },
                "configuration": try JSONSerialization.jsonObject(with: Data(c.json.utf8)),
            ]
            text = String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self) + "\n"
        }
        let out = try AtomicOutputFile(path: output)
        try out.write(text)
        try out.commit()
        if output != "-" {
            let speech = segments.reduce(0) { $0 + $1.end - $1.start }
            Terminal.stderr(String(format: "%@: %d segments, %.2f s of speech in %.2f s -> %@\n", input, segments.count, speech, result.duration, output))
        }
    }
}

extension VADTuning.Objective: ExpressibleByArgument {}

struct VADTune: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tune",
        abstract: "Sweep VAD parameters against reference labels; write the best configuration, the sweep and plots.",
        discussion: """
            Pairs every audio file in --audio with LABELS/NAME.txt (Audacity labels) and, if \
            present, the far-end reference NAME<suffix> in --audio (default .ref.wav). Unmatched \
            files are listed and skipped. The sweep is every combination of the grid: --grid FILE \
            (JSON object, parameter -> list of values) and/or --set NAME=V1,V2,… (repeatable); the \
            default grid sweeps enter_db, exit_db, hangover_ms and min_speech_ms. Band features \
            are computed once per file, so hundreds of settings take seconds. Metrics use the \
            VAD kit's definitions (score.py), on the streaming timeline.

            --report DIR receives: best.json (the configuration for `vad detect --config`, with \
            its scores), sweep.csv and sweep.json (every setting and its metrics), per-file.csv \
            (the best setting per file), plots/NAME.svg per file (waveform, frame level, noise \
            floor, thresholds, labels and detections on one time axis), f1-vs-threshold.svg, \
            precision-recall.svg, and index.html showing them all.

            Example:
              audiopipe vad tune --audio recordings --labels labels --report tuned
              audiopipe vad detect new.wav --config tuned/best.json
            """)

    @Option(help: "Directory of recordings.") var audio: String
    @Option(help: "Directory of Audacity label files NAME.txt.") var labels: String
    @Option(help: "Suffix of far-end reference files in the audio directory.") var referenceSuffix: String = ".ref.wav"
    @Option(help: "JSON grid file: {\"enter_db\": [6, 8, 10], …}.") var grid: String?
    @Option(name: .customLong("set"), help: "A grid axis NAME=V1,V2,… (repeatable).") var axes: [String] = []
    @OptionGroup var parameters: VADParameterOptions
    @Option(help: "What to maximise: f1, precision, recall, fa (lowest false alarm), f1-latency.") var objective: VADTuning.Objective = .f1
    @Option(help: "Only settings with a false-alarm rate at most this (0…1) compete, if any do.") var maxFalseAlarm: Double?
    @Option(help: "Report directory (created).") var report: String

    static let defaultGrid: [(String, [Double])] = [
        ("enter_db", [6, 8, 10, 12, 14]), ("exit_db", [3, 5, 7, 9]), ("hangover_ms", [60, 100, 150, 200, 300]),
        ("min_speech_ms", [10, 20, 40, 60, 80]),
    ]

    func parseGrid() throws -> [(String, [Double])] {
        var axes: [(String, [Double])] = []
        if let grid {
            guard let data = FileManager.default.contents(atPath: grid) else {
                throw AudioPipelineError(.inputUnavailable, "\(grid): cannot read the grid file")
            }
            let v: JSONValue
            do { v = try JSON.parse(String(decoding: data, as: UTF8.self)) } catch { throw AudioPipelineError(.invalidData, "\(grid): \(error)") }
            guard let o = v.object else { throw AudioPipelineError(.invalidData, "\(grid): the grid must be a JSON object of lists") }
            for k in o.keys.sorted() {
                guard let list = o[k]?.array, list.allSatisfy({ $0.number != nil }) else {
                    throw AudioPipelineError(.invalidData, "\(grid): '\(k)' must be a list of numbers")
                }
                axes.append((k, list.map { $0.number! }))
            }
        }
        for a in self.axes {
            let parts = a.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw ValidationError("--set wants NAME=V1,V2,…, not '\(a)'") }
            let values = parts[1].split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !values.isEmpty, values.allSatisfy({ $0 != nil }) else { throw ValidationError("--set \(a): values must be numbers") }
            axes.removeAll { $0.0 == String(parts[0]) }
            axes.append((String(parts[0]), values.map { $0! }))
        }
        return axes.isEmpty ? Self.defaultGrid : axes
    }

    func run() throws {
        let base = try parameters.configuration()
        let axes = try parseGrid()
        let settings = try VADTuning.settings(base: base, grid: axes)
        guard !settings.isEmpty else { throw AudioPipelineError(.invalidConfiguration, "the grid has no valid setting (is every exit_db above every enter_db?)") }
        let start = Date()
        let tuning = try VADTuning(audioDirectory: audio, labelDirectory: labels, referenceSuffix: referenceSuffix)
        for s in tuning.skipped { Terminal.stderr("audiopipe: skipped \(s)\n") }
        for w in tuning.warnings { Terminal.stderr("audiopipe: warning: \(w)\n") }
        Terminal.stderr("\(tuning.items.count) files (\(tuning.items.filter { $0.reference != nil }.count) with a reference), \(settings.count) settings\n")
        let bar = ProgressBar(total: settings.count, label: "settings")
        let outcomes = try tuning.sweep(settings) { done, _ in bar.update(done) }
        bar.finish()
        let best = VADTuning.best(outcomes, objective: objective, maxFalseAlarm: maxFalseAlarm)
        try writeReport(tuning: tuning, outcomes: outcomes, best: best, axes: axes)
        let m = best.metrics
        Terminal.stderr(String(
            format: "best (%@): F1 %.3f, precision %.3f, recall %.3f, false alarm %.1f %%, fresh onset latency p50 %.0f ms, %.2f false triggers/min\n  %@\nswept in %.1f s -> %@/best.json\n",
            objective.rawValue, m.f1, m.precision, m.recall, m.falseAlarm * 100, m.freshLatencyP50, m.falseTriggersPerMinute,
            axes.map { "\($0.0)=\(formatValue(best.setting.configuration[$0.0]!))" }.joined(separator: " "), Date().timeIntervalSince(start), report))
    }

    func formatValue(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }

    func writeReport(tuning: VADTuning, outcomes: [VADTuning.Outcome], best: VADTuning.Outcome, axes: [(String, [Double])]) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: report + "/plots", withIntermediateDirectories: true)
        func write(_ name: String, _ text: String) throws {
            let f = try AtomicOutputFile(path: report + "/" + name)
            try f.write(text)
            try f.commit()
        }
        func num(_ v: Double) -> Any { v.isFinite ? v : NSNull() }
        func metricsObject(_ m: VADScoring.Metrics) -> [String: Any] {
            var o: [String: Any] = [:]
            for (k, v) in zip(VADScoring.Metrics.names, m.values) { o[k] = num(v) }
            o["onsets"] = m.onsets
            return o
        }
        // best.json: the configuration (readable by --config) plus its scores.
        var bestObject = try JSONSerialization.jsonObject(with: Data(best.setting.configuration.json.utf8)) as! [String: Any]
        bestObject["scores"] = metricsObject(best.metrics)
        bestObject["_comment"] = "audiopipe vad tune: best by \(objective.rawValue)\(maxFalseAlarm.map { " with false alarm <= \($0)" } ?? "") over \(outcomes.count) settings on \(tuning.items.count) files; use with: audiopipe vad detect IN --config best.json"
        try write("best.json", String(decoding: try JSONSerialization.data(withJSONObject: bestObject, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self) + "\n")
        // sweep.csv / sweep.json
        let names = axes.map(\.0)
        var csv = (names + VADScoring.Metrics.names).joined(separator: ",") + "\n"
        var rows: [[String: Any]] = []
        for o in outcomes {
            let m = o.metrics
            csv += (names.map { formatValue(o.setting.configuration[$0]!) } + m.values.map { $0.isFinite ? String(format: "%.5g", $0) : "" }).joined(separator: ",") + "\n"
            var row: [String: Any] = [:]
            for n in names { row[n] = o.setting.configuration[n]! }
            row["metrics"] = metricsObject(m)
            rows.append(row)
        }
        try write("sweep.csv", csv)
        let sweepObject: [String: Any] = ["objective": objective.rawValue, "grid": Dictionary(uniqueKeysWithValues: axes.map { ($0.0, $0.1) }),
                                          "files": tuning.items.map(\.name), "settings": rows]
        try write("sweep.json", String(decoding: try JSONSerialization.data(withJSONObject: sweepObject, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self) + "\n")
        // Per file, best setting.
        var perFile = "file,reference," + VADScoring.Metrics.names.joined(separator: ",") + "\n"
        var html = "<!doctype html><meta charset=\"utf-8\"><title>VAD tune report</title><body style=\"font-family:sans-serif\">"
        html += "<h1>VAD tune report</h1><p>Best by \(objective.rawValue): <code>\(VADPlots.esc(axes.map { "\($0.0)=\(formatValue(best.setting.configuration[$0.0]!))" }.joined(separator: " ")))</code> — F1 \(String(format: "%.3f", best.metrics.f1)), false alarm \(String(format: "%.1f", best.metrics.falseAlarm * 100)) %.</p>"
        html += "<img src=\"f1-vs-threshold.svg\"> <img src=\"precision-recall.svg\"><h2>Files (best setting)</h2>"
        for (i, item) in tuning.items.enumerated() {
            let m = VADScoring.metrics(best.perFile[i])
            perFile += "\(item.name),\(item.referencePath != nil)," + m.values.map { $0.isFinite ? String(format: "%.5g", $0) : "" }.joined(separator: ",") + "\n"
            let run = try tuning.frames(of: item, configuration: best.setting.configuration)
            let svg = VADPlots.file(name: item.name, samples: item.samples, rate: item.rate, run: run, reference: item.labels,
                                    detected: run.segments(), metrics: m, hasReference: item.reference != nil)
            try write("plots/\(item.name).svg", svg)
            html += "<h3>\(VADPlots.esc(item.name))</h3><img src=\"plots/\(item.name).svg\" style=\"max-width:100%\">"
        }
        try write("per-file.csv", perFile)
        try write("index.html", html + "</body>\n")
        // F1 against the enter threshold: the best F1 over the other parameters at each threshold.
        var byEnter: [Double: Double] = [:]
        for o in outcomes { byEnter[o.setting.configuration.enterThreshold] = max(byEnter[o.setting.configuration.enterThreshold] ?? 0, o.metrics.f1) }
        let chosen = best.setting.configuration.enterThreshold
        try write("f1-vs-threshold.svg", VADPlots.chart(
            title: "F1 against the enter threshold (best over the other parameters)", xLabel: "enter threshold, dB above noise floor",
            yLabel: "frame F1", series: [("best F1 at each threshold", "#1f77b4", byEnter.map { ($0.key, $0.value) }, true),
                                         ("every setting", "#aaaaaa", outcomes.map { ($0.setting.configuration.enterThreshold, $0.metrics.f1) }, false)],
            mark: (chosen, best.metrics.f1, "chosen"), yRange: nil))
        try write("precision-recall.svg", VADPlots.chart(
            title: "Precision against recall, every setting", xLabel: "recall", yLabel: "precision",
            series: [("settings", "#1f77b4", outcomes.compactMap { o in
                let m = o.metrics
                return m.recall.isFinite && m.precision.isFinite ? (m.recall, m.precision) : nil
            }, false)],
            mark: (best.metrics.recall, best.metrics.precision, String(format: "chosen (F1 %.3f)", best.metrics.f1))))
    }
}
