import AudioPipelineCore
import Foundation

/// A whole barge-in conversation, offline, through the library's own client pipeline on a
/// simulated clock: the agent's packets into the jitter buffer (`TickReplay`, as `jitter play`)
/// and out to the loudspeaker at the device rate; the room (`SessionRoom`) makes the microphone;
/// the capture path frames it into the profile's messages; the VAD with the far-end reference and
/// the barge-in policy decide when the client flushes the agent and sends the interrupt message.
/// Recorded mode replaces the agent and the room by a recording and its played reference.
///
/// ```swift
/// var c = SessionConfiguration()
/// c.agent = "agent.wav"; c.user = "user.wav"
/// let report = try SessionSimulator(configuration: c).run(outputDirectory: nil)
/// XCTAssertLessThan(report.latencyMsP90 ?? .infinity, 300)
/// ```
public final class SessionSimulator {
    /// The configuration it runs.
    public let configuration: SessionConfiguration
    /// The wire profile `configuration.profile` names, loaded.
    public let profile: WireProfile

    /// A simulator of `configuration`.
    /// - Throws: `invalidConfiguration` for a value out of range or an unknown profile; what
    /// `ProfileLoader.load(_:rate:)` throws for a custom profile's template.
    public init(configuration: SessionConfiguration) throws(AudioPipelineError) {
        try configuration.validate()
        self.configuration = configuration
        profile = try ProfileLoader.load(configuration.profile)
    }

    /// Loads the files the configuration names and runs; writes the outputs when `outputDirectory`
    /// is given (all or nothing). `reportedAs`: the directory the report names as its output, when
    /// the outputs are written somewhere else first (a sweep's temporary directory, renamed into
    /// place when the sweep is done).
    public func run(outputDirectory: String?, reportedAs: String? = nil) throws(AudioPipelineError) -> SessionReport {
        let outputDirectory = outputDirectory.map(PathParts.normalized)  // `-o sim/` prints sim/report.html
        let c = configuration
        let inputs = [c.agent, c.user, c.userLabels, c.recorded, c.reference, c.trace, c.echo.impulseResponse]
        if let outputDirectory {
            try SamePathGuard.refuse(inputs: inputs.compactMap { $0 }, outputs: [outputDirectory])
            try SamePathGuard.refuse(inputs: inputs.compactMap { $0 }, insideReport: outputDirectory)
        }
        return try run(
            try SessionTracks.load(c, profile: profile), outputDirectory: outputDirectory, reportedAs: reportedAs)
    }

    /// Runs on tracks already loaded, with subnormals flushed to zero (`Subnormals`: the room's
    /// filters decay through them whenever the agent stops, 7.6× slower on an Intel Xeon).
    public func run(
        _ tracks: SessionTracks, outputDirectory: String?, reportedAs: String? = nil
    ) throws(AudioPipelineError) -> SessionReport {
        try Subnormals.flushed { () throws(AudioPipelineError) -> SessionReport in
            try runFlushed(tracks, outputDirectory: outputDirectory, reportedAs: reportedAs)
        }
    }

    private func runFlushed(
        _ tracks: SessionTracks, outputDirectory: String?, reportedAs: String?
    ) throws(AudioPipelineError) -> SessionReport {
        let outputDirectory = outputDirectory.map(PathParts.normalized)
        let c = configuration
        let D = tracks.deviceRate
        let tickFrames = Int((Double(D) * c.jitter.tickMs / 1000).rounded(.up))
        // A tick of loudspeaker audio after the playback resampler, with room to spare.
        let maxBlock = 2 * tickFrames + 64
        let writer = try outputDirectory.map { (o) throws(AudioPipelineError) in
            try SessionWriter(path: o, deviceRate: D, clientRate: profile.clientRate, maxBlock: maxBlock)
        }
        let engine = try SessionEngine(
            configuration: c, profile: profile, tracks: tracks, maxBlock: maxBlock, writer: writer)
        var warnings = tracks.warnings + (tracks.agent?.warnings ?? [])
        var playout: JitterMetrics?
        var responses = 0
        if let reference = tracks.reference {
            responses = try SessionRecordedPlayout(engine: engine, reference: reference, configuration: c).run()
        } else if let agent = tracks.agent {
            let r = try SessionSyntheticPlayout(engine: engine, agent: agent, configuration: c).run(
                untilS: Double(tracks.user.count) / Double(D))
            playout = r.metrics
            responses = agent.responses
            warnings += r.warnings
        }
        if c.echo.enabled && c.echo.gainDb > 0 && tracks.reference == nil {
            warnings.append("echo gain \(NumberText.plain(c.echo.gainDb)) dB: the echo is louder than the loudspeaker")
        }
        let report = makeReport(
            engine, tracks, playout: playout, responses: responses, warnings: warnings,
            output: reportedAs ?? outputDirectory)
        if let writer {
            let timeline = SessionTimeline(
                report: report, trace: engine.timeline!, user: tracks.userSpeech, configuration: c)
            try writer.finish(report: try ReportJSON.encode(report), timeline: timeline.svg, page: timeline.page)
        }
        return report
    }

    private func makeReport(
        _ engine: SessionEngine, _ tracks: SessionTracks, playout: JitterMetrics?, responses: Int, warnings: [String],
        output: String?
    ) -> SessionReport {
        var interrupts = engine.interrupts
        let metrics = SessionMetrics.bargeIns(
            user: tracks.userSpeech, playing: engine.tickPlaying, tickS: engine.tickS, interrupts: &interrupts,
            lastAudibleS: engine.lastAudibleS)
        let bargeIns = metrics.bargeIns
        let agentOnly = metrics.agentOnlyMinutes
        let latencies = bargeIns.compactMap(\.latencyMs)
        let falseCount = interrupts.count { $0.falseBargeIn }
        var warnings = warnings
        if playout.map({ $0.packets == 0 }) ?? false {
            warnings.append("no agent audio reached the client (the trace or network delivered nothing)")
        }
        return SessionReport(
            mode: tracks.reference == nil ? "synthetic" : "recorded", profile: profile.name,
            durationS: Double(engine.devicePosition) / Double(tracks.deviceRate), bargeIns: bargeIns,
            latencyMsP50: SessionMetrics.percentile(latencies, 0.5),
            latencyMsP90: SessionMetrics.percentile(latencies, 0.9),
            missedBargeIns: bargeIns.count { $0.detectedS == nil }, falseBargeIns: falseCount,
            agentOnlyMinutes: agentOnly,
            agentPlayoutMinutes: Double(engine.tickPlaying.count { $0 >= 0 }) * engine.tickS / 60,
            falseBargeInsPerMinute: agentOnly > 0 ? Double(falseCount) / agentOnly : nil,
            talkOverMsP50: SessionMetrics.percentile(bargeIns.map(\.talkOverMs), 0.5), interrupts: interrupts,
            interruptMessagesSent: engine.interruptMessages, messagesSent: engine.messages,
            micToMessageMsP50: SessionMetrics.percentile(engine.micToMessageMs, 0.5) ?? 0,
            micToMessageMsMax: engine.micToMessageMs.max() ?? 0, playout: playout, responses: responses,
            userSegments: tracks.userSpeech.count, echoLevelDbfs: engine.meanEchoDbfs,
            echoEstimate: engine.echoEstimate.map { VADEchoSummary($0, configuration: configuration.vad) },
            configuration: configuration,
            output: output, warnings: warnings)
    }
}

/// Synthetic mode's loudspeaker: the agent's packets through `TickReplay` (the jitter buffer on the
/// jitter kit's tick model) and the playback resampler to the device rate.
struct SessionSyntheticPlayout {
    let engine: SessionEngine
    let agent: SessionAgent
    let configuration: SessionConfiguration

    func run(untilS: Double) throws(AudioPipelineError) -> (metrics: JitterMetrics, warnings: [String]) {
        let c = configuration
        let S = agent.rate
        let jitter = try c.jitter.configuration(sampleRate: S)
        let toDevice = try FormatConverter(
            .init(
                input: try StreamFormat(sampleRate: try SampleRate(S), channels: 1),
                outputRate: try SampleRate(engine.deviceRate), blockFrames: jitter.tick))
        var device = [Float](repeating: 0, count: toDevice.maxOutputCount(forInput: jitter.tick) + 1)
        var utteranceOf: [Int64: Int64] = [:]
        var remaining: [Int64: Int] = [:]
        // Where each packet sits in its response's audio (ms from the response's first sample).
        var offsetMs: [Int64: Double] = [:]
        var firstMs: [Int64: Double] = [:]
        for p in agent.packets {
            utteranceOf[p.sequence] = p.utterance
            remaining[p.utterance, default: 0] += 1
            firstMs[p.utterance] = min(firstMs[p.utterance] ?? .infinity, p.mediaMs)
        }
        for p in agent.packets { offsetMs[p.sequence] = p.mediaMs - (firstMs[p.utterance] ?? p.mediaMs) }
        var current: Int64?
        let msPerSample = 1000 / Double(S)
        var replay: TickReplay?
        let handler: TickReplay.TickHandler = { (_, buffer, audio) throws(AudioPipelineError) in
            var sounding: Int64?
            var played: Double?
            for piece in buffer.lastPieces where piece.length > 0 {
                sounding = utteranceOf[piece.sequence]
                played = (offsetMs[piece.sequence] ?? 0) + Double(piece.offset + piece.length) * msPerSample
            }
            if let s = sounding, s != current, !engine.flushed.contains(s) { current = s }
            if let r = current,
                engine.flushed.contains(r) || (remaining[r] == 0 && sounding != r && buffer.queued == 0)
            {
                current = nil
            }
            let n = device.withUnsafeMutableBufferPointer { toDevice.process(audio, into: $0).produced }
            let s = buffer.statistics
            let p = SessionEngine.Playout(
                sounding: sounding, playing: current, bufferMs: Double(buffer.queued) * msPerSample,
                concealedMs: Double(s.samplesConcealed) * msPerSample, lateMs: Double(s.samplesLate) * msPerSample,
                playedMs: played)
            let flush = try device.withUnsafeBufferPointer { (d) throws(AudioPipelineError) in
                try engine.process(heard: UnsafeBufferPointer(rebasing: d[0..<n]), reference: nil, playout: p)
            }
            if let r = flush {
                replay?.requestFlush(
                    throughUtterance: r, timeMs: Double(engine.devicePosition) * 1000 / Double(engine.deviceRate))
                current = nil
            }
        }
        let r = TickReplay(configuration: jitter, onTick: handler)
        replay = r
        defer { replay = nil }  // the handler holds `replay`: break the cycle
        r.maximumGapMs = .infinity
        try r.start(atMs: 0)
        var lastArrival = 0.0
        try agent.forEachPacket { (p, samples) throws(AudioPipelineError) in
            try r.arrive(
                samples, sequence: p.sequence, utterance: p.utterance, mediaMs: p.mediaMs, arrivalMs: p.arrivalMs)
            remaining[p.utterance]! -= 1
            lastArrival = p.arrivalMs
        }
        try r.advance(toMs: max(untilS * 1000, lastArrival))
        // Play out what is queued (ten minutes at most), then the fades' and resampler's tails.
        var extra = 0
        while r.queued > 0 && extra < Int(600_000 / c.jitter.tickMs) {
            try r.advance(toMs: (r.clockMs ?? 0) + c.jitter.tickMs)
            extra += 1
        }
        try r.advance(toMs: (r.clockMs ?? 0) + 200)
        return (JitterMetrics(r.statistics, rate: S, tickMs: c.jitter.tickMs), [r.gapWarning].compactMap { $0 })
    }
}

/// Recorded mode's loudspeaker: the played reference, read block by block. Its responses are split
/// at pauses of `responseGapMs` (from its frame levels); a barge-in fades the agent out (5 ms) and
/// keeps it silent until the reference starts a new phrase (after a pause of at least
/// `RecordedResponses.phraseGapMs`) while the VAD no longer hears the user: the agent answering after the
/// interruption, as a new response. So every user onset of the recording meets an agent that is
/// still, or again, talking, as in the conversation recorded.
struct SessionRecordedPlayout {
    let engine: SessionEngine
    let reference: SessionSignal
    let configuration: SessionConfiguration

    func run() throws(AudioPipelineError) -> Int {
        let D = engine.deviceRate
        let count = reference.count
        var tracker = RecordedResponses(
            levels: reference.frameLevels(rate: D), count: count, responseGapMs: configuration.responseGapMs)
        let source = try reference.reader()
        let fade = max(1, D / 200)
        let tickFrames = Double(D) * configuration.jitter.tickMs / 1000
        var played = [Float](repeating: 0, count: Int(tickFrames.rounded(.up)) + 1)
        var heard = played
        var k = 0
        var position = 0
        while position < count {
            k += 1
            let end = min(count, Int((Double(k) * tickFrames).rounded()))
            let n = end - position
            let r = tracker.advance(position..<end, userSpeaking: engine.userSpeaking)
            try played.withUnsafeMutableBufferPointer { (b) throws(AudioPipelineError) in
                try source.read(into: UnsafeMutableBufferPointer(rebasing: b[0..<n]))
            }
            let mutedFrom = tracker.mutedFrom
            for i in 0..<n {
                let at = position + i
                let gain: Float = mutedFrom.map { at < $0 ? 1 : max(0, 1 - Float(at - $0) / Float(fade)) } ?? 1
                heard[i] = played[i] * gain
            }
            let playedMs = mutedFrom == nil ? Double(end - tracker.idStart) * 1000 / Double(D) : nil
            let p = SessionEngine.Playout(
                sounding: r == nil ? nil : tracker.id, playing: tracker.playing(r), playedMs: playedMs)
            let flush = try heard.withUnsafeBufferPointer { (h) throws(AudioPipelineError) in
                try played.withUnsafeBufferPointer { (ref) throws(AudioPipelineError) in
                    try engine.process(
                        heard: UnsafeBufferPointer(rebasing: h[0..<n]),
                        reference: UnsafeBufferPointer(rebasing: ref[0..<n]), playout: p)
                }
            }
            if flush != nil { tracker.flush(at: end) }
            position = end
        }
        return Int(tracker.id + 1)
    }
}
