import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// The audio a simulated session is made of, at the device rate: the agent's packets (synthetic)
/// or the played reference (recorded), the user's track or the recorded microphone, the user's
/// speech, an optional impulse response. Build one in code (an app's tests: arrays) or with
/// `load(_:)` from the files a `SessionConfiguration` names: each file is measured once (its
/// length, its 10 ms frame levels, the agent's packet schedule) and read again block by block as
/// the session plays, so a session of any length runs in constant memory (short files are held).
public struct SessionTracks: Sendable {
    /// The device's rate, Hz: every track's.
    public var deviceRate: Int
    /// Synthetic mode: the agent's packets.
    public var agent: SessionAgent?
    /// Synthetic: the user's clean track; recorded: the microphone recording (device rate, mono).
    public var user: SessionSignal
    /// Recorded mode: what was played, on the microphone's timeline.
    public var reference: SessionSignal?
    /// Where the user speaks, s.
    public var userSpeech: [SpeechSegment]
    /// The echo path's impulse response at the device rate.
    public var impulseResponse: [Float]?
    /// What the inputs lacked or what was changed to use them.
    public var warnings: [String] = []

    /// Tracks held in memory.
    public init(
        deviceRate: Int, agent: SessionAgent? = nil, user: [Float], reference: [Float]? = nil,
        userSpeech: [SpeechSegment], impulseResponse: [Float]? = nil
    ) {
        self.init(
            deviceRate: deviceRate, agent: agent, user: SessionSignal(user),
            reference: reference.map(SessionSignal.init),
            userSpeech: userSpeech, impulseResponse: impulseResponse)
    }

    /// Tracks as signals: held in memory or read from their files as the session plays.
    public init(
        deviceRate: Int, agent: SessionAgent? = nil, user: SessionSignal, reference: SessionSignal? = nil,
        userSpeech: [SpeechSegment], impulseResponse: [Float]? = nil
    ) {
        self.deviceRate = deviceRate
        self.agent = agent
        self.user = user
        self.reference = reference
        self.userSpeech = userSpeech
        self.impulseResponse = impulseResponse
    }

    /// Longest impulse response taken, s.
    public static let maximumImpulseResponseS = 2.0

    /// Measures the files of `c` (checked with `validate()` first); files of more than `holdLimit`
    /// samples are read again as the session plays.
    public static func load(
        _ c: SessionConfiguration, profile: WireProfile, holdLimit: Int = SessionSignal.holdLimit
    ) throws(AudioPipelineError) -> SessionTracks {
        try c.validate()
        if let recorded = c.recorded, let reference = c.reference {
            return try loadRecorded(c, recorded: recorded, reference: reference, holdLimit: holdLimit)
        }
        let rate = c.deviceRate
        let agentPath = c.agent!
        let agent: SessionAgent
        var warnings: [String] = []
        if ["jsonl", "json", "har", "bin"].contains(fileExtension(agentPath)) {
            var o = DeframeOptions()
            o.profile = nil
            agent = try SessionAgent.fromSession(path: agentPath, options: o)
        } else {
            let audio = try SessionSignal.file(path: agentPath, rate: profile.serverRate, holdLimit: holdLimit)
            let trace = try c.trace.map { (t) throws(AudioPipelineError) in
                try ArrivalTrace.readPackets(path: t, sampleRate: profile.serverRate)
            }
            agent = SessionAgent.fromSignal(audio.signal, rate: audio.rate, configuration: c, trace: trace)
            warnings += audio.warnings
        }
        let user = try c.user.map { (u) throws(AudioPipelineError) in
            let loaded = try SessionSignal.file(path: u, rate: rate, holdLimit: holdLimit)
            warnings += loaded.warnings
            return loaded.signal
        }
        let duration = Double(user?.count ?? 0) / Double(rate)
        let speech: [SpeechSegment]
        if let labels = c.userLabels {
            speech = try readLabels(labels, durationS: user == nil ? nil : duration)
        } else {
            speech = user.map { UserSpeech.derive(levels: $0.frameLevels(rate: rate), rate: rate) } ?? []
        }
        var ir: [Float]?
        if let path = c.echo.impulseResponse {
            let loaded = try AudioLoader.mono(path: path, rate: rate)
            var h = loaded.samples
            warnings += loaded.warnings
            guard h.contains(where: { $0 != 0 }) else {
                throw AudioPipelineError(
                    .invalidData, "\(path): the impulse response is empty or silent (for no echo, use --no-echo)")
            }
            let most = Int(maximumImpulseResponseS * Double(rate))
            if h.count > most {
                warnings.append("\(path): impulse response cut to \(Int(maximumImpulseResponseS)) s")
                h.removeLast(h.count - most)
            }
            ir = h
        }
        var t = SessionTracks(
            deviceRate: rate, agent: agent, user: user ?? SessionSignal([]), userSpeech: speech, impulseResponse: ir)
        t.warnings = warnings
        return t
    }

    /// Recorded mode: the microphone at its own rate, the reference converted to it and padded or
    /// cut to the microphone's length.
    private static func loadRecorded(
        _ c: SessionConfiguration, recorded: String, reference: String, holdLimit: Int
    ) throws(AudioPipelineError) -> SessionTracks {
        let mic = try SessionSignal.file(path: recorded, rate: nil, holdLimit: holdLimit)
        let rate = mic.rate
        let played = try SessionSignal.file(
            path: reference, rate: rate, length: mic.signal.count, holdLimit: holdLimit)
        let speech = try readLabels(c.userLabels!, durationS: Double(mic.signal.count) / Double(rate))
        var t = SessionTracks(deviceRate: rate, user: mic.signal, reference: played.signal, userSpeech: speech)
        t.warnings = mic.warnings
        let playedRate = try AudioFileReader(path: reference).description.format.sampleRate.hz
        if playedRate != rate {
            t.warnings.append("\(reference): reference at \(playedRate) Hz converted to the microphone's \(rate) Hz")
        }
        t.warnings += played.warnings
        return t
    }

    /// Audacity labels of the user's speech, strictly: reversed, overlapping or beyond the audio
    /// (when its duration is known) is an error naming the file and line (exit 65).
    static func readLabels(_ path: String, durationS: Double?) throws(AudioPipelineError) -> [SpeechSegment] {
        let entries = try AudacityLabels.entries(path: path)
        var previous: (segment: SpeechSegment, line: Int)?
        for e in entries {
            if let d = durationS, e.segment.end > d + 0.01 {
                throw AudioPipelineError(
                    .invalidData,
                    "\(path):\(e.line): label ends at \(NumberText.seconds(e.segment.end)) s, after the audio "
                        + "(\(NumberText.seconds(d)) s)")
            }
            if let p = previous, e.segment.start < p.segment.end {
                throw AudioPipelineError(
                    .invalidData,
                    "\(path):\(e.line): label \(NumberText.seconds(e.segment.start))–"
                        + "\(NumberText.seconds(e.segment.end)) s overlaps or precedes line \(p.line)")
            }
            previous = e
        }
        return entries.map(\.segment)
    }
}

/// Where a clean track holds speech: 10 ms frames within 30 dB of the loud frames (95th percentile)
/// and above −55 dBFS, pauses under 250 ms bridged, blips under 80 ms dropped.
public enum UserSpeech {
    /// The speech segments of a clean track `x` at `rate`.
    public static func derive(_ x: [Float], rate: Int) -> [SpeechSegment] {
        derive(levels: FrameLevels.of(x, rate: rate), rate: rate)
    }

    /// The same from the track's frame levels (`FrameLevels`).
    static func derive(levels measured: FrameLevels.Measured, rate: Int) -> [SpeechSegment] {
        let frame = measured.frame
        let levels = measured.dbfs
        guard !levels.isEmpty else { return [] }
        let loud = levels.sorted()[min(levels.count - 1, Int(0.95 * Double(levels.count)))]
        let threshold = max(-55, loud - 30)
        var segments: [SpeechSegment] = []
        for (i, l) in levels.enumerated() where l > threshold {
            let s = Double(i * frame) / Double(rate)
            let e = Double((i + 1) * frame) / Double(rate)
            if let last = segments.last, s - last.end < 0.25 {
                segments[segments.count - 1].end = e
            } else {
                segments.append(SpeechSegment(start: s, end: e))
            }
        }
        return segments.filter { $0.end - $0.start >= 0.08 }
    }
}
