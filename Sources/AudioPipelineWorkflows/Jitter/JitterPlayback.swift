import AudioPipelineAdapters
import AudioPipelineCore

/// Plays a captured session (JSON Lines with times, or HAR) through a `JitterBuffer` by the message
/// arrival times and writes what the user would have heard: the agent's audio at the session's rate
/// with the buffer's delays, stretching and concealment, silence between responses, and the cut at
/// every interruption event (a flush of the responses so far). Streams: constant memory on any
/// session length.
public enum JitterPlayback {
    /// Events are replayed in time order; a capture slightly out of order (a HAR merged from several
    /// connections, or JSON Lines written by threads) is put back in order within this window.
    public static let reorderWindowMs = 2_000.0

    /// Plays the server audio of the captured session `input` through a jitter buffer of `settings`,
    /// as a client would have heard it, into `output` (atomically).
    /// - Throws: `AudioPipelineError` naming the file, message or option at fault.
    public static func play(
        input: String, output: String, options: DeframeOptions, settings: JitterSettings
    ) throws(AudioPipelineError) -> JitterPlaybackReport {
        try SamePathGuard.refuse(input: input, output: output)
        try settings.validate()
        var replay: TickReplay?
        var writer: AudioOutput?
        var rate = 0
        var outputFrames = 0
        var toFloat = Int16ToFloat32Converter()
        var converter = try Float32ToInt16Converter()
        var pcm: [Int16] = []
        var pending = ReorderBuffer(window: reorderWindowMs)
        var seq = 0, events = 0

        func start(_ r: Int) throws(AudioPipelineError) {
            rate = r
            writer = try AudioOutput(
                path: output, type: .wav, encoding: .pcm16,
                format: try StreamFormat(sampleRate: try SampleRate(r), channels: 1))
            let configuration = try settings.configuration(sampleRate: r)
            pcm = [Int16](repeating: 0, count: configuration.tick)
            replay = TickReplay(configuration: configuration) { (_, _, audio) throws(AudioPipelineError) in
                _ = pcm.withUnsafeMutableBufferPointer { converter.process(audio, into: $0) }
                try pcm.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try writer!.write(p) }
                outputFrames += audio.count
            }
        }
        func release(_ e: ReorderBuffer.Event) throws(AudioPipelineError) {
            switch e.kind {
            case .audio(let samples, let packet, let utterance, let media):
                try replay!.arrive(
                    samples, sequence: Int64(packet), utterance: Int64(utterance), mediaMs: media, arrivalMs: e.timeMs)
            case .interruption:
                try replay?.flush(throughUtterance: nil, timeMs: e.timeMs)
            }
        }

        let walk = SessionWalk(input: input, options: options, needsTimes: true)
        let session = try walk.run { (event) throws(AudioPipelineError) in
            switch event {
            case .audio(let samples, let r, let time, let utterance, let mediaMs):
                guard let time else {
                    throw AudioPipelineError(.invalidData, "\(input): audio message \(seq + 1) has no arrival time")
                }
                if replay == nil { try start(r) }
                var floats = [Float](repeating: 0, count: samples.count)
                samples.withUnsafeBufferPointer { src in
                    floats.withUnsafeMutableBufferPointer { _ = toFloat.process(src, into: $0) }
                }
                for e in pending.add(
                    .init(timeMs: time, sequence: events, kind: .audio(floats, seq, utterance, mediaMs)))
                { try release(e) }
                seq += 1
                events += 1
            case .interrupted(let time):
                guard let time else { return }
                for e in pending.add(.init(timeMs: time, sequence: events, kind: .interruption)) { try release(e) }
                events += 1
            }
        }
        guard let replay, let writer else {
            throw AudioPipelineError(
                .invalidData,
                "\(input): no \(options.direction.rawValue) audio messages (\(session.messages) messages read)")
        }
        for e in pending.drain() { try release(e) }
        try replay.finish()
        try writer.commit()
        return JitterPlaybackReport(
            metrics: JitterMetrics(replay.statistics, rate: rate, tickMs: settings.tickMs),
            run: SessionRun(
                session: input, profile: session.profile, interruptions: session.interruptions,
                audioMessages: session.audioMessages, rate: rate, outputSeconds: Double(outputFrames) / Double(rate),
                output: output),
            warnings: [replay.gapWarning].compactMap { $0 })
    }
}

/// Puts nearly ordered events back in time order: an event is released once an event `window` ms
/// later has been seen (or at the end); ties keep their capture order.
struct ReorderBuffer {
    struct Event {
        enum Kind {
            /// Samples, packet sequence, utterance, media time (ms).
            case audio([Float], Int, Int, Double)
            case interruption
        }
        var timeMs: Double
        /// Capture order, for ties.
        var sequence: Int
        var kind: Kind
    }

    let window: Double
    private var events: [Event] = []
    private var newest = -Double.infinity

    init(window: Double) { self.window = window }

    /// Adds an event; returns those now safe to release, in order.
    mutating func add(_ e: Event) -> [Event] {
        let at = events.lastIndex { ($0.timeMs, $0.sequence) <= (e.timeMs, e.sequence) }.map { $0 + 1 } ?? 0
        events.insert(e, at: at)
        newest = max(newest, e.timeMs)
        let ready = events.prefix { $0.timeMs < newest - window }
        events.removeFirst(ready.count)
        return Array(ready)
    }

    mutating func drain() -> [Event] {
        defer { events.removeAll() }
        return events
    }
}
