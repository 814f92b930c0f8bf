import AudioPipelineCore
import Foundation

/// Replays an arrival trace causally through a `JitterBuffer` (`TickReplay`) and gives the playout
/// log the jitter kit scores. The audio of each packet is a synthetic voiced signal (a 140 Hz harmonic
/// series, continuous in media time) so that the time-stretching sees speech-like periodicity.
public struct JitterSimulation {
    /// One row of the playout log (`seq,play_ms,offset_ms,len_ms,out_ms`).
    public struct Row: Sendable, Hashable {
        /// The packet played (`seq`).
        public var sequence: Int64
        /// When its piece started playing, ms (`play_ms`).
        public var playMs: Double
        /// Start of the piece inside the packet, ms (`offset_ms`).
        public var offsetMs: Double
        /// Media played, ms (`len_ms`).
        public var lengthMs: Double
        /// Output it took, ms (`out_ms`; differs from `lengthMs` under time-stretching).
        public var outputMs: Double
    }

    /// What a replay produced.
    public struct Result: Sendable {
        /// The playout log.
        public var rows: [Row]
        /// The buffer's counters at the end.
        public var statistics: JitterBuffer.Statistics
        /// Audio received, ms.
        public var receivedMs: Double
        /// The tick, ms.
        public var tickMs: Double
        /// Gaps shortened and the like.
        public var warnings: [String] = []
    }

    /// Traces carry no audio or rate; the simulation runs at this rate (24 kHz, the voice APIs'
    /// output rate). Results in ms do not depend on it beyond sample rounding.
    public static let sampleRate = 24_000

    /// The jitter buffer replayed through.
    public var configuration: JitterBuffer.Configuration
    /// A simulation with this buffer (at `sampleRate`).
    public init(configuration: JitterBuffer.Configuration) { self.configuration = configuration }

    /// Replays `packets` and `flushes` causally, tick by tick.
    /// - Throws: `AudioPipelineError` from the replay (a configuration the buffer refuses).
    public func run(packets: [TracePacket], flushes: [TraceFlush]) throws(AudioPipelineError) -> Result {
        let rate = Double(configuration.sampleRate)
        let toSamples = rate / 1000
        var rows: [Row] = []
        let replay = TickReplay(configuration: configuration) { (now, buffer, _) throws(AudioPipelineError) in
            for piece in buffer.lastPieces {
                rows.append(
                    Row(
                        sequence: piece.sequence, playMs: (Double(now) + piece.outputStart) / toSamples,
                        offsetMs: Double(piece.offset) / toSamples, lengthMs: Double(piece.length) / toSamples,
                        outputMs: piece.outputLength / toSamples))
            }
        }
        let arrivals = packets.filter { $0.arrivalMs != nil }.sorted {
            ($0.arrivalMs!, $0.sequence) < ($1.arrivalMs!, $1.sequence)
        }
        var f = 0
        for p in arrivals {
            while f < flushes.count, flushes[f].timeMs <= p.arrivalMs! {
                try replay.flush(throughUtterance: flushes[f].throughUtterance, timeMs: flushes[f].timeMs)
                f += 1
            }
            let n = Int((p.durationMs * toSamples).rounded())
            let media = Int64((p.mediaMs * toSamples).rounded())
            try replay.arrive(
                Self.synthesize(count: n, media: media, rate: rate), sequence: p.sequence, utterance: p.utterance,
                mediaMs: p.mediaMs, arrivalMs: p.arrivalMs!)
        }
        for flush in flushes[f...] { try replay.flush(throughUtterance: flush.throughUtterance, timeMs: flush.timeMs) }
        try replay.finish()
        let received = arrivals.reduce(0.0) { $0 + $1.durationMs }
        return Result(
            rows: rows, statistics: replay.statistics, receivedMs: received,
            tickMs: Double(configuration.tick) / toSamples, warnings: [replay.gapWarning].compactMap { $0 })
    }

    /// A voiced-speech-like test signal at media sample positions media ..< media + count.
    static func synthesize(count: Int, media: Int64, rate: Double) -> [Float] {
        let f0 = 140.0
        return (0..<count).map { k in
            let t = Double(media + Int64(k)) / rate
            var v = 0.0
            for h in 1...4 { v += sin(2 * Double.pi * f0 * Double(h) * t) / Double(h) }
            return Float(0.2 * v)
        }
    }

    /// The playout log (the kit's README §4): `seq,play_ms,offset_ms,len_ms,out_ms`.
    public static func writeLog(_ rows: [Row], to path: String) throws(AudioPipelineError) {
        let file = try ByteOutput(path: path)
        try file.write("seq,play_ms,offset_ms,len_ms,out_ms\n")
        for r in rows {
            try file.write(
                String(format: "%lld,%.4f,%.4f,%.4f,%.4f\n", r.sequence, r.playMs, r.offsetMs, r.lengthMs, r.outputMs))
        }
        try file.commit()
    }

    /// `jitter simulate`: reads the trace (and its flushes: `flush`, or `NAME.flush.csv` beside
    /// `NAME.csv` when it exists), replays it and writes the playout log to `output`.
    public static func simulate(
        trace: String, flush: String?, output: String, settings: JitterSettings
    ) throws(AudioPipelineError) -> JitterSimulationReport {
        var flushPath = flush
        if flushPath == nil, trace.hasSuffix(".csv") {
            let sibling = String(trace.dropLast(4)) + ".flush.csv"
            if FileManager.default.fileExists(atPath: sibling) { flushPath = sibling }
        }
        // The flush file found beside the trace is an input too: never written over.
        try SamePathGuard.refuse(inputs: [trace] + (flushPath.map { [$0] } ?? []), outputs: [output])
        let packets = try ArrivalTrace.readPackets(path: trace, sampleRate: sampleRate)
        let flushes =
            try flushPath.map { (p) throws(AudioPipelineError) in
                try ArrivalTrace.readFlushes(path: p, packets: packets, tracePath: trace)
            } ?? []
        let result = try JitterSimulation(configuration: try settings.configuration(sampleRate: sampleRate)).run(
            packets: packets, flushes: flushes)
        try writeLog(result.rows, to: output)
        return JitterSimulationReport(
            metrics: JitterMetrics(result.statistics, rate: sampleRate, tickMs: settings.tickMs),
            run: TraceRun(
                trace: trace, flushFile: flushPath ?? "", packetCount: packets.count, flushCount: flushes.count,
                output: output),
            warnings: result.warnings)
    }
}
