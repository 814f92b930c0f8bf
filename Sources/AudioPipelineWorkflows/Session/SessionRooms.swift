import AudioPipelineCore
import Foundation

/// One parameter a room is drawn with, and the range it is drawn from (uniformly).
public struct RoomRange: Codable, Sendable, Hashable {
    /// The parameter's name (`echo_gain_db`, `echo_delay_ms` …, as `--room` takes it).
    public var name: String
    /// Lowest value drawn.
    public var low: Double
    /// Highest value drawn.
    public var high: Double

    /// `name` drawn uniformly from `low` to `high`.
    public init(name: String, low: Double, high: Double) {
        self.name = name
        self.low = low
        self.high = high
    }
}

/// What `session simulate --rooms N` measured: one row per room (its parameters and figures), and
/// the figures pooled over all rooms. `rooms.csv`, `rooms.json`, `rooms.txt` and `rooms.svg` in the
/// output directory; `rooms/room-NNN.json` is each room as a scenario file, to run one again alone.
public struct SessionRoomsReport: WorkflowReport, Codable, Hashable {
    /// One drawn parameter of a room.
    public struct Parameter: Codable, Sendable, Hashable {
        /// The parameter's name.
        public var name: String
        /// The value drawn.
        public var value: Double
    }

    /// One room: how it was drawn and what it measured.
    public struct Room: Codable, Sendable, Hashable {
        /// From 1, as in `rooms/room-NNN.json`.
        public var index: Int
        /// The seed of its noise floor, reverberant tail and network (`seed` + index).
        public var seed: UInt64
        /// The parameters it was drawn with.
        public var parameters: [Parameter]
        /// Its headline figures.
        public var headline: SessionHeadline
        /// The latency of each detected barge-in, ms (what the pooled percentiles are of).
        public var latenciesMs: [Double]
        /// nil when it ran; else why not.
        @NullWhenAbsent public var error: String?
    }

    /// Pooled over the rooms that ran: user onsets during agent playout, missed, false barge-ins
    /// per minute of agent-only playout, latency percentiles over every detected barge-in, and how
    /// many rooms had any false barge-in or any missed one.
    public struct Summary: Codable, Sendable, Hashable {
        /// Rooms that ran.
        public var rooms: Int
        /// Rooms that failed.
        public var failed: Int
        /// User onsets during agent playout, over all rooms.
        public var userOnsets: Int
        /// Of them, missed.
        public var missed: Int
        /// Missed, % of the onsets (nil: none).
        @NullWhenAbsent public var missedPercent: Double?
        /// False barge-ins over all rooms.
        public var falseBargeIns: Int
        /// Agent-only playout over all rooms, minutes.
        public var agentOnlyMinutes: Double
        /// False barge-ins per minute of agent-only playout.
        @NullWhenAbsent public var falseBargeInsPerMinute: Double?
        /// Median over every detected barge-in, ms.
        @NullWhenAbsent public var latencyMsP50: Double?
        /// 90th percentile over every detected barge-in, ms.
        @NullWhenAbsent public var latencyMsP90: Double?
        /// Rooms with at least one false barge-in.
        public var roomsWithFalseBargeIns: Int
        /// Rooms with at least one missed barge-in.
        public var roomsWithMissed: Int
    }

    /// The seed the rooms were drawn with (`--room-seed`): the same seed, the same rooms.
    public var seed: UInt64
    /// The ranges drawn from.
    public var ranges: [RoomRange]
    /// The figures pooled over the rooms that ran.
    public var summary: Summary
    /// Worst first: false barge-ins per minute, then missed, then latency p90.
    public var rooms: [Room]
    /// The output directory.
    public var output: String
    public var warnings: [String]

    /// The summary and the worst rooms, as the CLI prints them.
    public var text: String {
        let s = summary
        func f(_ v: Double?, _ format: String) -> String { v.map { String(format: format, $0) } ?? "n/a" }
        var lines = [
            "\(s.rooms) rooms (seed \(seed)), \(s.failed) failed: \(s.userOnsets) user onsets during agent playout, "
                + "\(s.missed) missed (\(f(s.missedPercent, "%.1f")) %)",
            "  barge-in latency p50 \(f(s.latencyMsP50, "%.0f ms")), p90 \(f(s.latencyMsP90, "%.0f ms"))",
            "  false barge-ins \(s.falseBargeIns) in \(String(format: "%.2f", s.agentOnlyMinutes)) min of agent-only "
                + "playout (\(f(s.falseBargeInsPerMinute, "%.2f")) per min); rooms with any: "
                + "\(s.roomsWithFalseBargeIns), with a missed barge-in: \(s.roomsWithMissed)",
            "worst rooms:",
            "  room  " + SessionHeadline.header + "  parameters",
        ]
        for r in rooms.prefix(10) {
            let parameters = r.parameters.map { "\($0.name)=\(NumberText.plain(($0.value * 10).rounded() / 10))" }
            let figures = r.error.map { "failed: \($0)" } ?? r.headline.columns
            lines.append("  \(r.index)  \(figures)  " + parameters.joined(separator: " "))
        }
        lines.append("-> \(output)/rooms.csv, rooms.svg")
        return lines.joined(separator: "\n")
    }
}

/// Random rooms (`session simulate --rooms N --room-seed S`): N rooms drawn from documented ranges
/// — echo delay and gain, the loudspeaker's band and resonance, the room's reverberation, soft
/// clipping, the noise floor, network jitter — each run as a session through the batch engine
/// (`--jobs` workers), into one table. A user checks settings against many rooms at once; a
/// developer checks a method on seeds that never chose it.
public enum SessionRooms {
    /// The parameters drawn and their default ranges. Each is a `--sweep` name (`SessionSweep`).
    public static let defaultRanges: [RoomRange] = [
        .init(name: "echo_delay_ms", low: 0, high: 300),
        .init(name: "echo_gain_db", low: -20, high: 6),
        .init(name: "speaker_highpass_hz", low: 150, high: 600),
        .init(name: "speaker_lowpass_hz", low: 3_400, high: 8_000),
        .init(name: "speaker_peak_hz", low: 800, high: 3_000),
        .init(name: "speaker_peak_db", low: 0, high: 8),
        .init(name: "rt60_ms", low: 100, high: 600),
        .init(name: "drr_db", low: 0, high: 12),
        .init(name: "softclip", low: 0, high: 3),
        .init(name: "noise_dbfs", low: -75, high: -55),
        .init(name: "jitter_ms", low: 0, high: 40),
    ]

    /// The ranges with `overrides` (`NAME=LOW:HIGH`, or `NAME=VALUE` to fix one) applied.
    public static func ranges(_ overrides: [String]) throws(AudioPipelineError) -> [RoomRange] {
        var ranges = defaultRanges
        for text in overrides {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            let bounds = parts.count == 2 ? parts[1].split(separator: ":", omittingEmptySubsequences: false) : []
            let values = bounds.map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, (1...2).contains(values.count), let low = values.first ?? nil,
                let high = values.last ?? nil, low.isFinite, high.isFinite, low <= high
            else {
                throw AudioPipelineError(
                    .invalidConfiguration, "--room: expected NAME=LOW:HIGH or NAME=VALUE (LOW ≤ HIGH), got '\(text)'")
            }
            guard let i = ranges.firstIndex(where: { $0.name == parts[0] }) else {
                let names = ranges.map(\.name).joined(separator: ", ")
                throw AudioPipelineError(.invalidConfiguration, "--room: unknown parameter '\(parts[0])' (\(names))")
            }
            // Both bounds, not only the values a seed happens to draw (which made the same range pass
            // with one --rooms and fail with another).
            var probe = SessionConfiguration()
            probe.agent = "agent.wav"  // (validation asks for a mode; no file is read)
            for bound in [low, high] {
                do {
                    _ = try SessionSweep.setting(parts[0], bound, in: probe)
                } catch {
                    throw AudioPipelineError(
                        .invalidConfiguration, "--room \(text): the bound \(NumberText.plain(bound)): \(error.message)")
                }
            }
            ranges[i] = RoomRange(name: parts[0], low: low, high: high)
        }
        return ranges
    }

    /// Room `index` (from 1) of `seed`: each parameter uniform in its range, from a generator of its
    /// own (a room does not depend on how many are drawn), applied to `base`.
    public static func room(
        _ base: SessionConfiguration, ranges: [RoomRange], seed: UInt64, index: Int
    ) throws(AudioPipelineError) -> (configuration: SessionConfiguration, parameters: [SessionRoomsReport.Parameter]) {
        var rng = SplitMix64(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index))
        var c = base
        c.seed = seed &+ UInt64(index)
        var parameters: [SessionRoomsReport.Parameter] = []
        for r in ranges {
            let u = Double(rng.next() >> 11) / Double(1 << 53)
            let value = r.low + (r.high - r.low) * u
            do {
                c = try SessionSweep.setting(r.name, value, in: c)
            } catch {
                throw AudioPipelineError(
                    .invalidConfiguration, "--room \(r.name)=\(NumberText.plain(value)): \(error.message)")
            }
            parameters.append(.init(name: r.name, value: value))
        }
        return (c, parameters)
    }

    /// Draws `count` rooms and runs each with the tracks of `base` (loaded once), writing the report
    /// directory `output` whole or not at all.
    public static func run(
        configuration base: SessionConfiguration, rooms count: Int, seed: UInt64, ranges: [RoomRange],
        output: String, options: BatchOptions = BatchOptions(),
        result: @escaping (BatchResult) -> Void = { _ in }
    ) throws(AudioPipelineError) -> SessionRoomsReport {
        let output = PathParts.normalized(output)  // `-o rooms/` prints rooms/rooms.csv
        _ = try Checked.integer(Double(count), in: 1...100_000, "--rooms", code: .invalidConfiguration)
        guard !base.isRecorded else {
            throw AudioPipelineError(
                .invalidConfiguration, "--rooms draws the echo path; a --recorded session has its own: give --agent")
        }
        let simulator = try SessionSimulator(configuration: base)
        let inputs = [base.agent, base.user, base.userLabels, base.recorded, base.reference, base.echo.impulseResponse]
        try SamePathGuard.refuse(inputs: inputs.compactMap { $0 }, outputs: [output])
        try SamePathGuard.refuse(inputs: inputs.compactMap { $0 }, insideReport: output)
        let rooms = try (1...count).map { (i) throws(AudioPipelineError) in
            try room(base, ranges: ranges, seed: seed, index: i)
        }
        let tracks = try SessionTracks.load(base, profile: simulator.profile)
        let directory = try ReportDirectory(path: output)
        var items: [BatchItem] = []
        for (k, r) in rooms.enumerated() {
            let name = String(format: "rooms/room-%03d.json", k + 1)
            try directory.write(name, try ReportJSON.encode(r.configuration) + "\n")
            let path = directory.temporaryPath + "/" + name
            items.append(BatchItem(input: BatchInput(path: path, relativePath: name), output: nil))
        }
        let collected = RoomCollector()
        var batch = options
        batch.reportPath = nil
        _ = try BatchRunner.run(items, options: batch, result: result) { item in
            let k = Int(item.input.relativePath.dropFirst("rooms/room-".count).dropLast(".json".count))! - 1
            let c = rooms[k].configuration
            var row = SessionRoomsReport.Room(
                index: k + 1, seed: c.seed, parameters: rooms[k].parameters, headline: SessionHeadline(),
                latenciesMs: [], error: nil)
            do {
                var own = tracks
                own.agent = tracks.agent?.resent(under: c)
                let r = try SessionSimulator(configuration: c).run(own, outputDirectory: nil)
                row.headline = SessionHeadline(r)
                row.latenciesMs = r.bargeIns.compactMap(\.latencyMs)
                collected.add(row)
                return FileOutcome(audioSeconds: r.durationS, warnings: r.warnings.map { "room \(k + 1): \($0)" })
            } catch let error as AudioPipelineError {
                row.error = error.message
                collected.add(row)
                throw error
            }
        }
        let report = SessionRoomsReport(
            seed: seed, ranges: ranges, summary: summary(collected.rows), rooms: worstFirst(collected.rows),
            output: output, warnings: tracks.warnings)
        try directory.write("rooms.json", try ReportJSON.encode(report) + "\n")
        try directory.write("rooms.csv", csv(report))
        try directory.write("rooms.txt", report.text + "\n")
        try directory.write("rooms.svg", SessionRoomsPlot.svg(report))
        try directory.publish()
        return report
    }

    static func summary(_ rows: [SessionRoomsReport.Room]) -> SessionRoomsReport.Summary {
        let ran = rows.filter { $0.error == nil }
        let onsets = ran.reduce(0) { $0 + $1.headline.bargeIns }
        let missed = ran.reduce(0) { $0 + $1.headline.missedBargeIns }
        let falseCount = ran.reduce(0) { $0 + $1.headline.falseBargeIns }
        let minutes = ran.reduce(0.0) { $0 + $1.headline.agentOnlyMinutes }
        let latencies = ran.flatMap(\.latenciesMs)
        return .init(
            rooms: rows.count, failed: rows.count - ran.count, userOnsets: onsets, missed: missed,
            missedPercent: onsets > 0 ? 100 * Double(missed) / Double(onsets) : nil, falseBargeIns: falseCount,
            agentOnlyMinutes: minutes, falseBargeInsPerMinute: minutes > 0 ? Double(falseCount) / minutes : nil,
            latencyMsP50: SessionMetrics.percentile(latencies, 0.5),
            latencyMsP90: SessionMetrics.percentile(latencies, 0.9),
            roomsWithFalseBargeIns: ran.count { $0.headline.falseBargeIns > 0 },
            roomsWithMissed: ran.count { $0.headline.missedBargeIns > 0 })
    }

    /// Failed rooms, then by false barge-ins per minute, missed barge-ins, latency p90; then index.
    static func worstFirst(_ rows: [SessionRoomsReport.Room]) -> [SessionRoomsReport.Room] {
        func key(_ r: SessionRoomsReport.Room) -> (Int, Double, Int, Double) {
            let h = r.headline
            return (r.error == nil ? 0 : 1, h.falseBargeInsPerMinute ?? 0, h.missedBargeIns, h.latencyMsP90 ?? 0)
        }
        return rows.sorted { a, b in
            let ka = key(a)
            let kb = key(b)
            if ka != kb { return ka > kb }
            return a.index < b.index
        }
    }

    static func csv(_ r: SessionRoomsReport) -> String {
        var csv = CSVWriter(header: ["room", "seed"] + r.ranges.map(\.name) + SessionHeadline.csvHeader + ["error"])
        for room in r.rooms.sorted(by: { $0.index < $1.index }) {
            csv.append(
                [String(room.index), String(room.seed)] + room.parameters.map { NumberText.plain($0.value) }
                    + room.headline.csvFields + [room.error ?? ""])
        }
        return csv.text
    }

    /// The rooms' rows from the workers.
    final class RoomCollector: @unchecked Sendable {
        private var collected: [SessionRoomsReport.Room] = []
        private let lock = NSLock()
        func add(_ r: SessionRoomsReport.Room) { lock.withLock { collected.append(r) } }
        var rows: [SessionRoomsReport.Room] { lock.withLock { collected } }
    }
}
