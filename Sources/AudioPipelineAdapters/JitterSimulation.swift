import AudioPipelineCore
import Foundation

/// One packet of an arrival trace (the jitter kit's format, ../shared/eval/jitter/README.md §1).
public struct TracePacket: Sendable, Hashable {
    public var sequence: Int64
    public var sendMs: Double
    /// nil: lost in the network.
    public var arrivalMs: Double?
    public var durationMs: Double
    public var mediaMs: Double
    public var utterance: Int64
    public var line: Int
}

public struct TraceFlush: Sendable, Hashable {
    public var timeMs: Double
    public var throughUtterance: Int64
    public var line: Int
}

/// Reading trace and flush files. Behaviour on bad input (all errors name the file and line):
/// - missing required column, wrong field count, a value that is not a number: error;
/// - duplicate `seq`, `duration_ms` ≤ 0 or over 60 000 (one packet), `arrival_ms` < `send_ms`: error;
/// - rows not in `seq` order: accepted (arrival order is what the simulation uses; the trace
///   format only says rows are *written* in seq order);
/// - a trace with no rows: error; a flush file with only its header: no flushes;
/// - a flush naming an utterance that is not in the trace, or a negative flush time: error.
public enum JitterTrace {
    public static func readPackets(path: String) throws(AudioPipelineError) -> [TracePacket] {
        let rows = try readCSV(path: path, required: ["seq", "send_ms", "arrival_ms", "duration_ms"])
        var packets: [TracePacket] = []
        var seen: [Int64: Int] = [:]
        for row in rows.rows {
            func field(_ name: String) -> String? { rows.columns[name].map { row.fields[$0] } }
            func number(_ name: String) throws(AudioPipelineError) -> Double {
                let text = field(name)!.trimmingCharacters(in: .whitespaces)
                guard let v = Double(text), v.isFinite else {
                    throw AudioPipelineError(.invalidData, "\(path):\(row.line): \(name) '\(text)' is not a number")
                }
                return v
            }
            func integer(_ name: String) throws(AudioPipelineError) -> Int64 {
                let text = field(name)!.trimmingCharacters(in: .whitespaces)
                guard let v = Int64(text) else {
                    throw AudioPipelineError(.invalidData, "\(path):\(row.line): \(name) '\(text)' is not an integer")
                }
                return v
            }
            let seq = try integer("seq")
            if let first = seen[seq] {
                throw AudioPipelineError(.invalidData, "\(path):\(row.line): duplicate seq \(seq) (first on line \(first))")
            }
            seen[seq] = row.line
            let send = try number("send_ms")
            let arrivalText = field("arrival_ms")!.trimmingCharacters(in: .whitespaces)
            let arrival: Double? = arrivalText.isEmpty ? nil : try number("arrival_ms")
            let duration = try number("duration_ms")
            guard duration > 0 else {
                throw AudioPipelineError(.invalidData, "\(path):\(row.line): duration_ms \(duration) must be positive")
            }
            guard duration <= 60_000 else {
                throw AudioPipelineError(.invalidData, "\(path):\(row.line): duration_ms \(duration) is over a minute for one packet")
            }
            if let arrival, arrival < send {
                throw AudioPipelineError(.invalidData, "\(path):\(row.line): packet \(seq) arrives (\(arrival) ms) before it was sent (\(send) ms)")
            }
            let media = rows.columns["media_ms"] != nil ? try number("media_ms") : send
            let utt = rows.columns["utt"] != nil ? try integer("utt") : 0
            packets.append(TracePacket(sequence: seq, sendMs: send, arrivalMs: arrival, durationMs: duration, mediaMs: media, utterance: utt, line: row.line))
        }
        guard !packets.isEmpty else { throw AudioPipelineError(.invalidData, "\(path): the trace has no packets") }
        return packets
    }

    public static func readFlushes(path: String, packets: [TracePacket], tracePath: String) throws(AudioPipelineError) -> [TraceFlush] {
        let rows = try readCSV(path: path, required: ["flush_ms", "through_utt"])
        let utterances = Set(packets.map(\.utterance))
        var flushes: [TraceFlush] = []
        for row in rows.rows {
            let t = row.fields[rows.columns["flush_ms"]!].trimmingCharacters(in: .whitespaces)
            let u = row.fields[rows.columns["through_utt"]!].trimmingCharacters(in: .whitespaces)
            guard let time = Double(t), time.isFinite, time >= 0 else {
                throw AudioPipelineError(.invalidData, "\(path):\(row.line): flush_ms '\(t)' is not a time ≥ 0")
            }
            guard let through = Int64(u) else {
                throw AudioPipelineError(.invalidData, "\(path):\(row.line): through_utt '\(u)' is not an integer")
            }
            guard utterances.contains(through) else {
                throw AudioPipelineError(.invalidData, "\(path):\(row.line): flush names utterance \(through), which is not in \(tracePath)")
            }
            flushes.append(TraceFlush(timeMs: time, throughUtterance: through, line: row.line))
        }
        return flushes.sorted { $0.timeMs < $1.timeMs }
    }

    struct CSV {
        var columns: [String: Int]
        var rows: [(line: Int, fields: [String])]
    }

    static func readCSV(path: String, required: [String]) throws(AudioPipelineError) -> CSV {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AudioPipelineError(.inputUnavailable, "\(path): cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw AudioPipelineError(.invalidData, "\(path): not UTF-8 text")
        }
        // "\r\n" is one Character in Swift: split on any newline character.
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
        guard let header = lines.first else { throw AudioPipelineError(.invalidData, "\(path): empty file (a CSV header is required)") }
        let names = header.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var columns: [String: Int] = [:]
        for (i, n) in names.enumerated() { columns[n] = i }
        for r in required where columns[r] == nil {
            throw AudioPipelineError(.invalidData, "\(path):1: missing column '\(r)' (header: \(header))")
        }
        var rows: [(Int, [String])] = []
        for (i, l) in lines.enumerated().dropFirst() {
            if l.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            let fields = l.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == names.count else {
                throw AudioPipelineError(.invalidData, "\(path):\(i + 1): \(fields.count) fields, the header has \(names.count)")
            }
            rows.append((i + 1, fields))
        }
        return CSV(columns: columns, rows: rows)
    }
}

/// Replays a trace causally through a `JitterBuffer` with the kit's tick model: ticks at k·tick; at
/// each tick deliver every packet with arrival ≤ t (arrival order), apply every flush ≤ t, then pull
/// one tick. The audio of each packet is a synthetic voiced signal (a 140 Hz harmonic series,
/// continuous in media time) so that the time-stretching sees speech-like periodicity.
public struct JitterSimulation {
    public struct Row: Sendable, Hashable {
        public var sequence: Int64
        public var playMs: Double
        public var offsetMs: Double
        public var lengthMs: Double
        public var outputMs: Double
    }

    public var configuration: JitterBuffer.Configuration
    public init(configuration: JitterBuffer.Configuration) { self.configuration = configuration }

    public struct Result: Sendable {
        public var rows: [Row]
        public var statistics: JitterBuffer.Statistics
        public var receivedMs: Double
        public var tickMs: Double
    }

    public func run(packets: [TracePacket], flushes: [TraceFlush]) throws(AudioPipelineError) -> Result {
        let rate = Double(configuration.sampleRate)
        let toSamples = rate / 1000
        let tick = Int64(configuration.tick)
        let arrivals = packets.filter { $0.arrivalMs != nil }.sorted { ($0.arrivalMs!, $0.sequence) < ($1.arrivalMs!, $1.sequence) }
        var rows: [Row] = []
        guard let firstArrival = arrivals.first?.arrivalMs else {
            return Result(rows: [], statistics: JitterBuffer.Statistics(), receivedMs: 0, tickMs: Double(tick) / toSamples)
        }
        let startTick = Int64((firstArrival * toSamples / Double(tick)).rounded(.down))
        let buffer = try JitterBuffer(configuration: configuration, startTime: startTick * tick)
        var packetAudio = [Float](repeating: 0, count: 16)
        var output = [Float](repeating: 0, count: Int(tick))
        var next = 0, nextFlush = 0
        var ticksAfterLast: Int64 = 0
        let giveUp = Int64(600 * rate) / tick  // ten minutes of ticks after the last event
        while true {
            let now = buffer.clock
            while next < arrivals.count, Int64((arrivals[next].arrivalMs! * toSamples).rounded(.up)) <= now {
                let p = arrivals[next]
                let n = Int((p.durationMs * toSamples).rounded())
                let media = Int64((p.mediaMs * toSamples).rounded())
                if packetAudio.count < n { packetAudio = [Float](repeating: 0, count: n) }
                Self.synthesize(into: &packetAudio, count: n, media: media, rate: rate)
                packetAudio.withUnsafeBufferPointer { a in
                    _ = buffer.push(
                        UnsafeBufferPointer(rebasing: a[0..<n]), sequence: p.sequence, utterance: p.utterance, media: media,
                        arrival: Int64((p.arrivalMs! * toSamples).rounded(.up)))
                }
                next += 1
            }
            while nextFlush < flushes.count, Int64((flushes[nextFlush].timeMs * toSamples).rounded(.up)) <= now {
                buffer.flush(throughUtterance: flushes[nextFlush].throughUtterance, time: Int64((flushes[nextFlush].timeMs * toSamples).rounded(.down)))
                nextFlush += 1
            }
            output.withUnsafeMutableBufferPointer { buffer.pull(into: $0) }
            for piece in buffer.lastPieces {
                rows.append(Row(
                    sequence: piece.sequence, playMs: (Double(now) + piece.outputStart) / toSamples,
                    offsetMs: Double(piece.offset) / toSamples, lengthMs: Double(piece.length) / toSamples,
                    outputMs: piece.outputLength / toSamples))
            }
            if next == arrivals.count && nextFlush == flushes.count {
                if buffer.queued == 0 { break }
                ticksAfterLast += 1
                if ticksAfterLast > giveUp { break }
            }
        }
        let received = arrivals.reduce(0.0) { $0 + $1.durationMs }
        return Result(rows: rows, statistics: buffer.statistics, receivedMs: received, tickMs: Double(tick) / toSamples)
    }

    /// A voiced-speech-like test signal at media sample positions media ..< media + count.
    static func synthesize(into a: inout [Float], count: Int, media: Int64, rate: Double) {
        let f0 = 140.0
        for k in 0..<count {
            let t = Double(media + Int64(k)) / rate
            var v = 0.0
            for h in 1...4 { v += sin(2 * Double.pi * f0 * Double(h) * t) / Double(h) }
            a[k] = Float(0.2 * v)
        }
    }

    /// The playout log (README §4): seq,play_ms,offset_ms,len_ms,out_ms.
    public static func writeLog(_ rows: [Row], to path: String) throws(AudioPipelineError) {
        let file = try AtomicOutputFile(path: path)
        try file.write("seq,play_ms,offset_ms,len_ms,out_ms\n")
        for r in rows {
            try file.write(String(format: "%lld,%.4f,%.4f,%.4f,%.4f\n", r.sequence, r.playMs, r.offsetMs, r.lengthMs, r.outputMs))
        }
        try file.commit()
    }
}

/// Plays a captured session (JSON Lines with times or HAR) through a `JitterBuffer` by the message
/// arrival times and writes what the user would have heard: the agent's audio at the session's rate
/// with the buffer's delays, stretching and concealment, silence between responses, and the cut at
/// every interruption event (a flush of the responses so far).
public enum JitterPlayback {
    public struct Report: Sendable {
        public var session: DeframeReport
        public var statistics: JitterBuffer.Statistics
        public var rate: Int
        public var outputSeconds: Double
    }

    /// `configure` turns the session's rate into the buffer configuration.
    public static func play(
        input: String, output: String, options: DeframeOptions, configure: (Int) throws -> JitterBuffer.Configuration
    ) throws -> Report {
        try FileConverter.refuseSamePath(input, output)
        struct Arrival { var samples: [Float]; var time: Double; var utterance: Int; var media: Double; var seq: Int }
        var arrivals: [Arrival] = []
        var interruptions: [Double] = []
        var rate = 0
        var seq = 0
        var toFloat = Int16ToFloat32Converter()
        let session = try Deframer.walk(input: input, options: options, needsTimes: true) { (event) throws(AudioPipelineError) in
            switch event {
            case .audio(let samples, let r, let time, let utterance, let mediaMs):
                guard let time else {
                    throw AudioPipelineError(.invalidData, "\(input): audio message \(seq + 1) has no arrival time")
                }
                rate = r
                var floats = [Float](repeating: 0, count: samples.count)
                samples.withUnsafeBufferPointer { src in floats.withUnsafeMutableBufferPointer { _ = toFloat.process(src, into: $0) } }
                arrivals.append(Arrival(samples: floats, time: time, utterance: utterance, media: mediaMs, seq: seq))
                seq += 1
            case .interrupted(let time):
                if let time { interruptions.append(time) }
            }
        }
        guard let first = arrivals.first else {
            throw AudioPipelineError(.invalidData, "\(input): no \(options.direction.rawValue) audio messages (\(session.messages) messages read)")
        }
        let configuration = try configure(rate)
        let toSamples = Double(rate) / 1000
        let tick = Int64(configuration.tick)
        arrivals.sort { ($0.time, $0.seq) < ($1.time, $1.seq) }
        interruptions.sort()
        let startTick = Int64((first.time * toSamples / Double(tick)).rounded(.down))
        let buffer = try JitterBuffer(configuration: configuration, startTime: startTick * tick)
        let writer = try AudioFileWriter(path: output, type: .wav, encoding: .pcm16, format: try StreamFormat(sampleRate: try SampleRate(rate), channels: 1))
        var converter = try Float32ToInt16Converter()
        var tickAudio = [Float](repeating: 0, count: Int(tick))
        var tickPCM = [Int16](repeating: 0, count: Int(tick))
        var next = 0, nextInterruption = 0
        var lastUtterance = Int64.min
        var outputFrames = 0
        while next < arrivals.count || nextInterruption < interruptions.count || buffer.queued > 0 {
            let now = buffer.clock
            while next < arrivals.count, Int64((arrivals[next].time * toSamples).rounded(.up)) <= now {
                let a = arrivals[next]
                a.samples.withUnsafeBufferPointer {
                    _ = buffer.push($0, sequence: Int64(a.seq), utterance: Int64(a.utterance), media: Int64((a.media * toSamples).rounded()),
                                    arrival: Int64((a.time * toSamples).rounded(.up)))
                }
                lastUtterance = max(lastUtterance, Int64(a.utterance))
                next += 1
            }
            while nextInterruption < interruptions.count, Int64((interruptions[nextInterruption] * toSamples).rounded(.up)) <= now {
                // The user talked over the agent: everything received so far is cancelled.
                if lastUtterance > Int64.min {
                    buffer.flush(throughUtterance: lastUtterance, time: Int64((interruptions[nextInterruption] * toSamples).rounded(.down)))
                }
                nextInterruption += 1
            }
            tickAudio.withUnsafeMutableBufferPointer { buffer.pull(into: $0) }
            tickAudio.withUnsafeBufferPointer { src in
                tickPCM.withUnsafeMutableBufferPointer { dst in _ = converter.process(src, into: dst) }
            }
            try tickPCM.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try writer.write(p) }
            outputFrames += Int(tick)
        }
        try writer.commit()
        return Report(session: session, statistics: buffer.statistics, rate: rate, outputSeconds: Double(outputFrames) / Double(rate))
    }
}
