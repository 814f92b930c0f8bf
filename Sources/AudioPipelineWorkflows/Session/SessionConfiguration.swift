import AudioPipelineCore
import Foundation

/// Everything a simulated barge-in conversation is made of (`SessionSimulator`), Codable so a
/// scenario can live in a JSON file and an app's tests can build one in code.
///
/// Two modes:
/// - **synthetic** (`agent` set): the agent's audio (a WAV, or a captured session) arrives per
///   `trace` or `network`, plays through the jitter buffer to the loudspeaker; its echo (`echo`)
///   plus the user's track (`user`) plus a noise floor is the microphone;
/// - **recorded** (`recorded` and `reference` set): a microphone recording that already holds the
///   agent's real echo, with what was played (`reference`) on the same timeline.
public struct SessionConfiguration: Codable, Sendable, Hashable {
    /// Synthetic mode: the agent's audio, a WAV (any format libsndfile reads) or a captured session
    /// (JSON Lines or HAR; its server audio and arrival times).
    public var agent: String?
    /// Synthetic mode: the user's clean microphone track; nil: no user speech.
    public var user: String?
    /// The user's speech as Audacity labels; nil: derived from the clean user track (synthetic).
    public var userLabels: String?
    /// Recorded mode: the microphone recording (with real echo) and the audio that was played.
    public var recorded: String?
    /// Recorded mode: the audio that was played, on the microphone's timeline.
    public var reference: String?
    /// Arrival trace (the jitter kit's CSV) for the agent's packets; else `network`.
    public var trace: String?
    /// The simulated network the agent's packets cross (synthetic mode, without `trace`).
    public var network = NetworkConditions()
    /// The acoustic path from the loudspeaker to the microphone (synthetic mode).
    public var echo = EchoSettings()
    /// RMS of the microphone's own noise floor, dBFS (white); nil: none.
    public var noiseDbfs: Double? = -70
    /// Wire profile: a built-in name or `custom:FILE` (`ProfileLoader`).
    public var profile = "openai-realtime"
    /// The audio device's rate (loudspeaker and microphone), Hz.
    public var deviceRate = 48_000
    /// Client audio per message, ms.
    public var chunkMs = 20.0
    /// The client's voice activity detector.
    public var vad = VADConfiguration()
    /// The client's jitter buffer.
    public var jitter = JitterSettings()
    /// When the client stops the agent.
    public var policy = BargeInPolicy()
    /// The agent's audio is split into responses at silences at least this long, ms (a WAV or the
    /// played reference); a captured session has its own utterances.
    public var responseGapMs = 1_500.0
    /// Seed of the noise floor and of the synthetic network.
    public var seed: UInt64 = 1

    /// The defaults: OpenAI Realtime, 48 kHz, 20 ms chunks, a 40 ms network, a small speaker's echo
    /// at −10 dB, the default VAD and jitter buffer; set `agent` (or `recorded`) before running.
    public init() {}

    /// Which mode the inputs select.
    public var isRecorded: Bool { recorded != nil }

    /// Checks values and that the inputs make one mode; messages name the option.
    public func validate() throws(AudioPipelineError) {
        func usage(_ s: String) -> AudioPipelineError { AudioPipelineError(.invalidConfiguration, s) }
        if recorded != nil || reference != nil {
            guard recorded != nil, reference != nil else {
                throw usage("--recorded and --reference go together (the microphone and what was played)")
            }
            guard agent == nil, user == nil, trace == nil else {
                throw usage("--recorded takes no --agent, --user or --trace (the recording already holds them)")
            }
            guard userLabels != nil else {
                throw usage("--recorded needs --user-labels (where the user speaks in the recording)")
            }
        } else if agent == nil {
            throw usage("give --agent (synthetic mode) or --recorded with --reference (recorded mode)")
        }
        // A trace replays recorded arrivals and would silently win over simulated ones (a scenario
        // file, or `--trace` with `--network`).
        if trace != nil && network != NetworkConditions() {
            throw usage("--trace replays recorded arrivals, --network simulates them: give one")
        }
        _ = try Checked.number(Double(deviceRate), in: 8_000...192_000, "--device-rate", code: .invalidConfiguration)
        _ = try Checked.number(chunkMs, in: 1...1_000, "--chunk-ms", code: .invalidConfiguration)
        _ = try Checked.number(responseGapMs, in: 10...600_000, "--response-gap-ms", code: .invalidConfiguration)
        if let n = noiseDbfs { _ = try Checked.number(n, in: -200...0, "--noise-dbfs", code: .invalidConfiguration) }
        try network.validate()
        try echo.validate()
        try policy.validate()
        try vad.validate()
        try jitter.validate()
        guard jitter.tickMs == 10 || jitter.tickMs == 20 || jitter.tickMs == 5 else {
            throw usage("--tick-ms: the session simulator runs 5, 10 or 20 ms ticks, not \(jitter.tickMs)")
        }
    }
}

/// Synthetic network conditions for the agent's packets: `delay=MS,jitter=MS,loss=PCT,burst=X,
/// packet=MS` (the form `--network` takes).
///
/// Each packet of `packetMs` is sent when the server has it — in real time, or `burst` times
/// faster (a TTS that renders ahead) — and arrives `delayMs` plus an exponentially distributed
/// extra delay of mean `jitterMs` later, unless lost (`lossPercent`, independently per packet).
/// Packets may overtake each other (a datagram transport; a WebSocket's TCP would hold them in
/// order instead, which `burst` and the jitter buffer's margin cover the same way).
public struct NetworkConditions: Codable, Sendable, Hashable {
    /// Fixed one-way delay, ms.
    public var delayMs = 40.0
    /// Mean of the exponentially distributed extra delay, ms.
    public var jitterMs = 0.0
    /// Packets lost, % (each independently).
    public var lossPercent = 0.0
    /// How much faster than real time the server sends (1: real time).
    public var burst = 1.0
    /// Audio per packet, ms.
    public var packetMs = 20.0

    /// Conditions with the given figures (a 40 ms delay and nothing else by default).
    public init(
        delayMs: Double = 40, jitterMs: Double = 0, lossPercent: Double = 0, burst: Double = 1,
        packetMs: Double = 20
    ) {
        self.delayMs = delayMs
        self.jitterMs = jitterMs
        self.lossPercent = lossPercent
        self.burst = burst
        self.packetMs = packetMs
    }

    /// Parses `delay=MS,jitter=MS,loss=PCT,burst=X,packet=MS` (any subset, any order).
    public static func parse(_ text: String) throws(AudioPipelineError) -> NetworkConditions {
        var n = NetworkConditions()
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {  // '' and 'a,,b' are errors
            let kv = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard kv.count == 2, let v = Double(kv[1]), v.isFinite else {
                throw AudioPipelineError(
                    .invalidConfiguration,
                    "--network: expected NAME=NUMBER (delay, jitter, loss, burst, packet), got '\(item)'")
            }
            switch kv[0] {
            case "delay": n.delayMs = v
            case "jitter": n.jitterMs = v
            case "loss": n.lossPercent = v
            case "burst": n.burst = v
            case "packet": n.packetMs = v
            default:
                throw AudioPipelineError(
                    .invalidConfiguration, "--network: unknown name '\(kv[0])' (delay, jitter, loss, burst, packet)")
            }
        }
        try n.validate()
        return n
    }

    /// - Throws: `invalidConfiguration` naming the `--network` field out of range.
    public func validate() throws(AudioPipelineError) {
        _ = try Checked.number(delayMs, in: 0...60_000, "--network delay", code: .invalidConfiguration)
        _ = try Checked.number(jitterMs, in: 0...60_000, "--network jitter", code: .invalidConfiguration)
        _ = try Checked.number(lossPercent, in: 0...100, "--network loss", code: .invalidConfiguration)
        _ = try Checked.number(burst, in: 0.1...1_000, "--network burst", code: .invalidConfiguration)
        _ = try Checked.number(packetMs, in: 2...2_000, "--network packet", code: .invalidConfiguration)
    }
}

/// The acoustic path from the loudspeaker to the microphone: the loudspeaker (soft clipping, a
/// small speaker's band and resonance), the delay and gain of the direct path, and the room's
/// reverberant tail — or a measured impulse response instead of the speaker and the room.
public struct EchoSettings: Codable, Sendable, Hashable {
    /// false: no echo at all (`--no-echo`).
    public var enabled = true
    /// Delay of the direct path, ms (device buffers plus distance).
    public var delayMs = 40.0
    /// Level of the direct path's echo relative to the loudspeaker signal, dB (above 0 dB: louder
    /// than played, allowed and reported). The reverberant tail adds to it (`drrDb`).
    public var gainDb = -10.0
    /// A small loudspeaker's response: a 4th-order high-pass at `speakerHighPassHz`, a resonance of
    /// `speakerPeakDb` at `speakerPeakHz` (Q 1.4), a low-pass at `speakerLowPassHz`; false: flat.
    public var smallSpeaker = true
    /// The small speaker's high-pass, Hz.
    public var speakerHighPassHz = 300.0
    /// The small speaker's low-pass, Hz.
    public var speakerLowPassHz = 5_000.0
    /// The small speaker's resonance frequency, Hz.
    public var speakerPeakHz = 1_000.0
    /// The small speaker's resonance gain, dB.
    public var speakerPeakDb = 5.0
    /// The room's reverberation time, ms (0: the direct path alone), and its direct-to-reverberant
    /// energy ratio, dB: a tail of decaying noise after the direct path.
    public var rt60Ms = 0.0
    /// The room's direct-to-reverberant energy ratio, dB.
    public var drrDb = 10.0
    /// The loudspeaker's soft clipping: the played signal goes through tanh(d·x)/d (0: none; 3
    /// flattens a −6 dBFS peak by about 2 dB).
    public var softClip = 0.0
    /// An impulse response (WAV) convolved after the delay and gain instead of the loudspeaker's
    /// response and the room's tail: a measured room and device.
    public var impulseResponse: String?
    /// The loudspeaker's volume changes by `volumeChangeDb` at this time of the session, s (nil:
    /// never): the user turns it up, or the call moves from the earpiece to the speaker.
    public var volumeChangeS: Double?
    /// The volume change, dB (what plays from `volumeChangeS` on, before the soft clipping).
    public var volumeChangeDb = 0.0

    /// A small speaker at −10 dB, 40 ms away, no room tail, no soft clipping.
    public init() {}

    /// - Throws: `invalidConfiguration` naming the setting out of range, or `--echo-ir` with `--no-echo`.
    public func validate() throws(AudioPipelineError) {
        func check(_ v: Double, _ range: ClosedRange<Double>, _ name: String) throws(AudioPipelineError) {
            _ = try Checked.number(v, in: range, name, code: .invalidConfiguration)
        }
        try check(delayMs, 0...2_000, "--echo-delay-ms")
        try check(gainDb, -120...40, "--echo-gain-db")
        try check(speakerHighPassHz, 20...4_000, "speaker_highpass_hz")
        try check(speakerLowPassHz, 500...24_000, "speaker_lowpass_hz")
        try check(speakerPeakHz, 100...10_000, "speaker_peak_hz")
        try check(speakerPeakDb, -20...20, "speaker_peak_db")
        try check(rt60Ms, 0...3_000, "rt60_ms")
        try check(drrDb, -20...40, "drr_db")
        try check(softClip, 0...20, "softclip")
        if let volumeChangeS { try check(volumeChangeS, 0...86_400, "volumeChangeS") }
        try check(volumeChangeDb, -60...60, "volumeChangeDb")
        if !enabled, impulseResponse != nil {
            throw AudioPipelineError(.invalidConfiguration, "--echo-ir and --no-echo contradict each other: give one")
        }
    }
}

/// When the client stops the agent.
public struct BargeInPolicy: Codable, Sendable, Hashable {
    /// The VAD must have said speech this long, ms, before the client barges in (0: at the VAD's
    /// own confirmation).
    public var minimumSpeechMs = 0.0
    /// Barge-ins in the first this-many ms of a response are ignored (the echo canceller of a real
    /// device, or a policy against cutting the agent off at once).
    public var ignoreFirstMs = 0.0

    /// A policy with the given figures (barge in at the VAD's confirmation, from a response's start).
    public init(minimumSpeechMs: Double = 0, ignoreFirstMs: Double = 0) {
        self.minimumSpeechMs = minimumSpeechMs
        self.ignoreFirstMs = ignoreFirstMs
    }

    /// - Throws: `invalidConfiguration` naming the option out of range (`names`: the two figures'
    /// names where they came from, the options by default; a file's keys for a file).
    public func validate(names: (minimum: String, ignore: String) = ("--min-barge-in-ms", "--ignore-first-ms"))
        throws(AudioPipelineError)
    {
        _ = try Checked.number(minimumSpeechMs, in: 0...10_000, names.minimum, code: .invalidConfiguration)
        _ = try Checked.number(ignoreFirstMs, in: 0...600_000, names.ignore, code: .invalidConfiguration)
    }
}

/// Decoding that starts from a value's defaults: every key may be left out; an unknown key is an
/// error that names it (a typo in a scenario file is not silently ignored).
struct PartialDecoding {
    let container: KeyedDecodingContainer<JSONKey>

    init(_ decoder: any Decoder, known: [String]) throws {
        container = try decoder.container(keyedBy: JSONKey.self)
        for key in container.allKeys where !known.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "unknown key (known: \(known.joined(separator: ", ")))")
        }
    }

    func callAsFunction<T: Decodable>(_ key: String, _ value: inout T) throws {
        if let v = try container.decodeIfPresent(T.self, forKey: JSONKey(key)) { value = v }
    }

    /// Whole numbers are read as numbers first, so `16000.5` or `1e308` is an error naming the key
    /// (an Int decode says only "The given data was not valid JSON").
    func callAsFunction(_ key: String, _ value: inout Int) throws {
        if let v = try whole(key, in: -1e15...1e15) { value = Int(v) }
    }

    func callAsFunction(_ key: String, _ value: inout UInt64) throws {
        if let v = try whole(key, in: 0...1e15) { value = UInt64(v) }
    }

    private func whole(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let v = try container.decodeIfPresent(Double.self, forKey: JSONKey(key)) else { return nil }
        guard v == v.rounded(), range.contains(v) else {
            throw DecodingError.dataCorruptedError(
                forKey: JSONKey(key), in: container,
                debugDescription: "\(v) is not a whole number"
                    + (range.lowerBound < 0 ? " (within ±1e15)" : " ≥ 0 (≤ 1e15)"))
        }
        return v
    }
}

extension SessionConfiguration {
    public init(from decoder: any Decoder) throws {
        self.init()
        let d = try PartialDecoding(
            decoder,
            known: [
                "agent", "user", "userLabels", "recorded", "reference", "trace", "network", "echo", "noiseDbfs",
                "profile", "deviceRate", "chunkMs", "vad", "jitter", "policy", "responseGapMs", "seed",
            ])
        try d("agent", &agent); try d("user", &user); try d("userLabels", &userLabels)
        try d("recorded", &recorded); try d("reference", &reference); try d("trace", &trace)
        try d("network", &network); try d("echo", &echo); try d("noiseDbfs", &noiseDbfs)
        try d("profile", &profile); try d("deviceRate", &deviceRate); try d("chunkMs", &chunkMs)
        try d("vad", &vad); try d("jitter", &jitter); try d("policy", &policy)
        try d("responseGapMs", &responseGapMs); try d("seed", &seed)
    }

    /// A scenario file: a JSON `SessionConfiguration` whose relative paths are relative to the file.
    public static func read(scenario path: String) throws(AudioPipelineError) -> SessionConfiguration {
        var c = try JSONFile.decode(SessionConfiguration.self, path, what: "session scenario")
        let directory = AtomicOutput.split(path).directory
        func resolve(_ p: inout String?) {
            if let v = p, !v.hasPrefix("/") { p = directory + "/" + v }
        }
        resolve(&c.agent); resolve(&c.user); resolve(&c.userLabels); resolve(&c.recorded)
        resolve(&c.reference); resolve(&c.trace); resolve(&c.echo.impulseResponse)
        do {
            try c.validate()
        } catch {
            throw AudioPipelineError(.invalidData, "\(path): \(error.message)")
        }
        return c
    }
}

extension NetworkConditions {
    public init(from decoder: any Decoder) throws {
        self.init()
        let d = try PartialDecoding(decoder, known: ["delayMs", "jitterMs", "lossPercent", "burst", "packetMs"])
        try d("delayMs", &delayMs); try d("jitterMs", &jitterMs); try d("lossPercent", &lossPercent)
        try d("burst", &burst); try d("packetMs", &packetMs)
    }
}

extension EchoSettings {
    public init(from decoder: any Decoder) throws {
        self.init()
        let d = try PartialDecoding(
            decoder,
            known: [
                "enabled", "delayMs", "gainDb", "smallSpeaker", "speakerHighPassHz", "speakerLowPassHz",
                "speakerPeakHz", "speakerPeakDb", "rt60Ms", "drrDb", "softClip", "impulseResponse",
                "volumeChangeS", "volumeChangeDb",
            ])
        try d("enabled", &enabled)
        try d("delayMs", &delayMs)
        try d("gainDb", &gainDb)
        try d("smallSpeaker", &smallSpeaker)
        try d("speakerHighPassHz", &speakerHighPassHz)
        try d("speakerLowPassHz", &speakerLowPassHz)
        try d("speakerPeakHz", &speakerPeakHz)
        try d("speakerPeakDb", &speakerPeakDb)
        try d("rt60Ms", &rt60Ms)
        try d("drrDb", &drrDb)
        try d("softClip", &softClip)
        try d("impulseResponse", &impulseResponse)
        try d("volumeChangeS", &volumeChangeS)
        try d("volumeChangeDb", &volumeChangeDb)
    }
}

extension BargeInPolicy {
    public init(from decoder: any Decoder) throws {
        self.init()
        let d = try PartialDecoding(decoder, known: ["minimumSpeechMs", "ignoreFirstMs"])
        try d("minimumSpeechMs", &minimumSpeechMs); try d("ignoreFirstMs", &ignoreFirstMs)
    }
}
