import AudioPipelineCore
import Foundation

/// The jitter kit's metrics from the buffer's own accounting (`score.py` is the reference for the
/// kit's definitions): late loss and concealment as % of the audio, mean playout delay, underruns per
/// minute, time-stretching as % of the ticks.
public struct JitterMetrics: Codable, Sendable, Hashable {
    /// Packets received.
    public var packets: Int
    /// Packets that came too late to play.
    public var latePackets: Int
    /// Packets of flushed utterances that came after the flush.
    public var stalePackets: Int
    /// Duplicate packets dropped.
    public var duplicatePackets: Int
    /// Packets dropped for lack of room.
    public var overflowPackets: Int
    /// Their audio, ms.
    public var overflowMs: Double
    /// Audio that arrived too late to play, % of the audio received (flushed audio excluded).
    public var lateLossPct: Double
    /// Silence inside utterances, % of the playout window.
    public var concealPct: Double
    /// Mean playout delay, ms.
    public var meanDelayMs: Double
    /// Concealment events (gaps inside utterances).
    public var underruns: Int
    /// Of them, per minute of playout.
    public var underrunsPerMin: Double
    /// Ticks time-stretched, % of the playout.
    public var stretchPct: Double
    /// Flushes (barge-ins).
    public var flushes: Int
    /// Audio the flushes dropped, ms.
    public var flushedMs: Double
    /// Most audio queued at once, ms.
    public var maxQueuedMs: Double
    /// Audio played, ms.
    public var playedMs: Double

    /// The metrics of a buffer's `statistics` at `rate`, with ticks of `tickMs`.
    public init(_ s: JitterBuffer.Statistics, rate: Int, tickMs: Double) {
        let ms = 1000 / Double(rate)
        let counted = max(1, s.samplesReceived - s.samplesFlushed)
        let window = Double(s.samplesPlayed - s.samplesRemoved + s.samplesInserted + s.samplesConcealed) * ms
        packets = s.packetsReceived
        latePackets = s.packetsLate
        stalePackets = s.packetsStale
        duplicatePackets = s.packetsDuplicate
        overflowPackets = s.packetsOverflow
        overflowMs = Double(s.samplesOverflow) * ms
        lateLossPct = 100 * Double(s.samplesLate) / Double(counted)
        concealPct = window > 0 ? 100 * Double(s.samplesConcealed) * ms / window : 0
        meanDelayMs = s.meanDelay * ms
        underruns = s.underruns
        underrunsPerMin = window > 0 ? Double(s.underruns) / (window / 60_000) : 0
        stretchPct = window > 0 ? 100 * Double(s.ticksAccelerated + s.ticksDecelerated) * tickMs / window : 0
        flushes = s.flushes
        flushedMs = Double(s.samplesFlushed) * ms
        maxQueuedMs = Double(s.maximumQueued) * ms
        playedMs = Double(s.samplesPlayed) * ms
    }
}

/// A jitter replay's report: the metrics and what was replayed (`Run`), side by side at the top
/// level of the JSON, as `jitter simulate --json` and `jitter play --json` have always printed them.
public struct JitterReport<Run: Codable & Sendable & Hashable>: WorkflowReport, Codable, Hashable {
    /// The jitter kit's metrics.
    public var metrics: JitterMetrics
    /// What was replayed.
    public var run: Run
    /// Pauses shortened to the maximum gap, and the like.
    public var warnings: [String]

    /// A report of the given parts.
    public init(metrics: JitterMetrics, run: Run, warnings: [String] = []) {
        self.metrics = metrics
        self.run = run
        self.warnings = warnings
    }

    public init(from decoder: any Decoder) throws {
        metrics = try JitterMetrics(from: decoder)
        run = try Run(from: decoder)
        warnings =
            try decoder.container(keyedBy: JSONKey.self).decodeIfPresent([String].self, forKey: JSONKey("warnings"))
            ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        try metrics.encode(to: encoder)
        try run.encode(to: encoder)
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.encode(warnings, forKey: JSONKey("warnings"))
    }
}

/// What `jitter simulate` replayed.
public struct TraceRun: Codable, Sendable, Hashable {
    /// The arrival trace's path.
    public var trace: String
    /// The flush file used ("" when none).
    public var flushFile: String
    /// Packets in the trace.
    public var packetCount: Int
    /// Flushes applied.
    public var flushCount: Int
    /// The playout log's path.
    public var output: String
}

/// What `jitter play` replayed.
public struct SessionRun: Codable, Sendable, Hashable {
    /// The captured session's path.
    public var session: String
    /// The wire profile's name.
    public var profile: String
    /// Interruptions the server reported (flushes applied).
    public var interruptions: Int
    /// Server audio messages played.
    public var audioMessages: Int
    /// The session's (and the output's) rate, Hz.
    public var rate: Int
    /// Audio written, s.
    public var outputSeconds: Double
    /// The audio file written.
    public var output: String
}

/// What `jitter simulate` reports.
public typealias JitterSimulationReport = JitterReport<TraceRun>
/// What `jitter play` reports.
public typealias JitterPlaybackReport = JitterReport<SessionRun>

extension JitterMetrics {
    /// The human summary `audiopipe` prints.
    public var text: String {
        var s = String(
            format:
                "  late loss %.3f %%, concealment %.3f %%, mean delay %.1f ms, underruns %d (%.2f/min), stretch "
                + "%.2f %%\n",
            lateLossPct, concealPct, meanDelayMs, underruns, underrunsPerMin, stretchPct)
        s += String(
            format:
                "  packets %d: late %d, stale %d, duplicate %d, overflow %d (%.0f ms); flushes %d (%.0f ms dropped); "
                + "most queued %.0f ms",
            packets, latePackets, stalePackets, duplicatePackets, overflowPackets, overflowMs, flushes, flushedMs,
            maxQueuedMs)
        return s
    }
}

extension JitterReport where Run == TraceRun {
    /// The human summary `audiopipe` prints.
    public var text: String {
        "\(run.trace): \(run.packetCount) packets, \(run.flushCount) flushes -> \(run.output)\n" + metrics.text
    }
}

extension JitterReport where Run == SessionRun {
    /// The human summary `audiopipe` prints.
    public var text: String {
        String(
            format: "%@ (%@): %d audio messages, %d interruptions -> %@ (%.3f s at %d Hz)\n", run.session, run.profile,
            run.audioMessages, run.interruptions, run.output, run.outputSeconds, run.rate) + metrics.text
    }
}
