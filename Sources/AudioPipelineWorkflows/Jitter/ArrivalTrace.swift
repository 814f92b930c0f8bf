import AudioPipelineCore

/// One packet of an arrival trace (the jitter kit's format, ../shared/eval/jitter/README.md §1).
public struct TracePacket: Sendable, Hashable {
    /// The packet's sequence number (`seq`).
    public var sequence: Int64
    /// When the server sent it, ms (`send_ms`).
    public var sendMs: Double
    /// nil: lost in the network.
    public var arrivalMs: Double?
    /// Audio it carries, ms (`duration_ms`).
    public var durationMs: Double
    /// Position of its audio on the media clock, ms (`media_ms`).
    public var mediaMs: Double
    /// The utterance it belongs to (`utt`).
    public var utterance: Int64
    /// Its line in the trace file, for messages.
    public var line: Int

    /// A packet with the given fields.
    public init(
        sequence: Int64, sendMs: Double, arrivalMs: Double?, durationMs: Double, mediaMs: Double, utterance: Int64,
        line: Int
    ) {
        self.sequence = sequence
        self.sendMs = sendMs
        self.arrivalMs = arrivalMs
        self.durationMs = durationMs
        self.mediaMs = mediaMs
        self.utterance = utterance
        self.line = line
    }
}

/// A barge-in: every utterance up to `throughUtterance` is cancelled at `timeMs`.
public struct TraceFlush: Sendable, Hashable {
    /// When the client flushed, ms on the arrival clock.
    public var timeMs: Double
    /// The last utterance cancelled.
    public var throughUtterance: Int64
    /// Its line in the flush file, for messages.
    public var line: Int

    /// A flush with the given fields.
    public init(timeMs: Double, throughUtterance: Int64, line: Int) {
        self.timeMs = timeMs
        self.throughUtterance = throughUtterance
        self.line = line
    }
}

/// Reading trace and flush files (on `CSVTable`). Behaviour on bad input (all errors name the file
/// and line):
/// - missing required column, wrong field count, a value that is not a number, a quote: error;
/// - duplicate `seq`, `duration_ms` ≤ 0, under one sample at the replay's rate or over 60 000 (one
///   packet), `arrival_ms` < `send_ms`: error;
/// - `utt` going down as `seq` goes up (the format says utterances are non-decreasing in `seq`):
///   error naming both rows;
/// - rows not in `seq` order: accepted (arrival order is what the simulation uses; the trace
///   format only says rows are *written* in seq order);
/// - a trace with no rows: error; a flush file with only its header: no flushes;
/// - a flush naming an utterance that is not in the trace, or a negative flush time: error.
public enum ArrivalTrace {
    /// The header `deframe --trace` writes.
    public static let header = "seq,send_ms,arrival_ms,duration_ms,media_ms,utt\n"
    /// Times in a trace are within ±this many ms (about 11.5 days): enough for any session, and far
    /// from where sample counts would overflow.
    public static let maximumMs = 1e9

    /// The packets of the trace CSV at `path`, to be replayed at `sampleRate` (every packet must hold
    /// at least one sample there).
    /// - Throws: `AudioPipelineError` naming the file and line of a missing column or a bad value, or a
    /// trace without packets.
    public static func readPackets(path: String, sampleRate: Int) throws(AudioPipelineError) -> [TracePacket] {
        let oneSampleMs = 1000 / Double(sampleRate)
        let table = try CSVTable.read(
            path, what: "the arrival trace", required: ["seq", "send_ms", "arrival_ms", "duration_ms"])
        var packets: [TracePacket] = []
        var seen: [Int64: Int] = [:]
        for row in table.rows {
            let seq = try integer(table, "seq", row)
            if let first = seen[seq] {
                throw AudioPipelineError(
                    .invalidData, "\(path):\(row.line): duplicate seq \(seq) (first on line \(first))")
            }
            seen[seq] = row.line
            let send = try number(table, "send_ms", row)
            let arrival: Double? =
                table.field("arrival_ms", in: row)!.isEmpty ? nil : try number(table, "arrival_ms", row)
            let duration = try number(table, "duration_ms", row)
            guard duration > 0 else {
                throw AudioPipelineError(.invalidData, "\(path):\(row.line): duration_ms \(duration) must be positive")
            }
            guard duration >= oneSampleMs / 2 else {
                throw AudioPipelineError(
                    .invalidData,
                    "\(path):\(row.line): duration_ms \(duration) is less than one sample at \(sampleRate) Hz ("
                        + String(format: "%.4f", oneSampleMs) + " ms)")
            }
            guard duration <= 60_000 else {
                throw AudioPipelineError(
                    .invalidData, "\(path):\(row.line): duration_ms \(duration) is over a minute for one packet")
            }
            if let arrival, arrival < send {
                throw AudioPipelineError(
                    .invalidData,
                    "\(path):\(row.line): packet \(seq) arrives (\(arrival) ms) before it was sent (\(send) ms): "
                        + "arrival_ms < send_ms"
                )
            }
            let media = table.columns["media_ms"] != nil ? try number(table, "media_ms", row) : send
            let utt = table.columns["utt"] != nil ? try integer(table, "utt", row) : 0
            packets.append(
                TracePacket(
                    sequence: seq, sendMs: send, arrivalMs: arrival, durationMs: duration, mediaMs: media,
                    utterance: utt, line: row.line))
        }
        guard !packets.isEmpty else { throw AudioPipelineError(.invalidData, "\(path): the trace has no packets") }
        try checkUtterances(packets, path: path)
        return packets
    }

    /// The flushes of the flush CSV at `path`, checked against the trace's `packets`.
    /// - Throws: `AudioPipelineError` naming the file and line of a bad row.
    public static func readFlushes(path: String, packets: [TracePacket], tracePath: String) throws(AudioPipelineError)
        -> [TraceFlush]
    {
        let table = try CSVTable.read(path, what: "the flush file", required: ["flush_ms", "through_utt"])
        let utterances = Set(packets.map(\.utterance))
        var flushes: [TraceFlush] = []
        for row in table.rows {
            let t = table.field("flush_ms", in: row)!, u = table.field("through_utt", in: row)!
            guard let time = Double(t), time.isFinite, time >= 0, time <= maximumMs else {
                throw AudioPipelineError(.invalidData, "\(path):\(row.line): flush_ms '\(t)' is not a time ≥ 0")
            }
            guard let through = Int64(u) else {
                throw AudioPipelineError(.invalidData, "\(path):\(row.line): through_utt '\(u)' is not an integer")
            }
            guard utterances.contains(through) else {
                throw AudioPipelineError(
                    .invalidData,
                    "\(path):\(row.line): flush names utterance \(through), which is not in \(tracePath) (through_utt)")
            }
            flushes.append(TraceFlush(timeMs: time, throughUtterance: through, line: row.line))
        }
        return flushes.sorted { $0.timeMs < $1.timeMs }
    }

    /// Utterances never go down as `seq` goes up: a flush cancels "every utterance through N", which
    /// means nothing when a later packet belongs to an earlier utterance.
    private static func checkUtterances(_ packets: [TracePacket], path: String) throws(AudioPipelineError) {
        let bySequence = packets.sorted { $0.sequence < $1.sequence }
        for (before, after) in zip(bySequence, bySequence.dropFirst()) where after.utterance < before.utterance {
            throw AudioPipelineError(
                .invalidData,
                "\(path):\(after.line): utt \(after.utterance) is lower than utt \(before.utterance) of seq "
                    + "\(before.sequence) (line \(before.line)): utterances must not go down as seq goes up")
        }
    }

    private static func number(_ table: CSVTable, _ name: String, _ row: CSVTable.Row) throws(AudioPipelineError)
        -> Double
    {
        let text = table.field(name, in: row)!
        guard let v = Double(text), v.isFinite else {
            throw AudioPipelineError(.invalidData, "\(table.path):\(row.line): \(name) '\(text)' is not a number")
        }
        guard abs(v) <= maximumMs else {
            throw AudioPipelineError(
                .invalidData, "\(table.path):\(row.line): \(name) \(text) is beyond ±\(Int(maximumMs)) ms")
        }
        return v
    }

    private static func integer(_ table: CSVTable, _ name: String, _ row: CSVTable.Row) throws(AudioPipelineError)
        -> Int64
    {
        let text = table.field(name, in: row)!
        guard let v = Int64(text) else {
            throw AudioPipelineError(.invalidData, "\(table.path):\(row.line): \(name) '\(text)' is not an integer")
        }
        return v
    }
}
