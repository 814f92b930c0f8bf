import AudioPipelineCore
import Foundation

/// One simulated client, tick by tick, after the loudspeaker: the room (echo and noise into the
/// microphone), the capture path (conversion, chunking, framing into the profile's messages), the
/// VAD with the far-end reference, and the barge-in policy. The caller plays the agent (jitter
/// buffer or a recorded reference) and hands over each tick's loudspeaker audio; `process` answers
/// the response to flush when the client barges in.
///
/// Buffers are sized at init for the largest block; the user's track (or the recorded microphone)
/// is read block by block as the ticks pass. Per tick it keeps only the response playing (4 bytes,
/// for the metrics) and, when writing outputs, what the timeline draws (`SessionTimelineTrace`,
/// which does not grow with the ticks): memory does not follow the session's length.
final class SessionEngine {
    let configuration: SessionConfiguration
    let profile: WireProfile
    let deviceRate: Int
    let tickS: Double
    private var room: SessionRoom
    private let capture: CapturePath
    private let micToClient: FormatConverter
    private let referenceToClient: FormatConverter
    private var vad: EnergyVAD
    private let maxBlock: Int
    private var message: [UInt8]
    private var mic: [Float], echo: [Float], micClient: [Float], referenceClient: [Float], quantised: [Int16]
    private var frames: [VADDecider.Frame]
    private var heardQuantiser: Float32ToInt16Converter
    private let user: SessionSignalReader
    private var userBlock: [Float]
    private let recorded: Bool
    private var writer: SessionWriter?

    private(set) var devicePosition = 0
    /// Per tick, the response playing (`SessionTick.playing`; −1: none).
    private(set) var tickPlaying: [Int32] = []
    /// What the timeline draws (when writing outputs).
    private(set) var timeline: SessionTimelineTrace?
    private(set) var interrupts: [SessionReport.Interrupt] = []
    private(set) var interruptMessages = 0
    private(set) var messages = 0
    private(set) var micToMessageMs: [Double] = []
    /// Last audible loudspeaker sample (−60 dBFS after quantising to PCM16) of each response, s.
    private(set) var lastAudibleS: [Int64: Double] = [:]
    private(set) var responseStartS: [Int64: Double] = [:]
    private(set) var flushed: Set<Int64> = []
    private var speechMs = 0.0
    /// Whether the VAD's last decision was speech.
    var userSpeaking: Bool { speechMs > 0 }
    private var attributed: Int64?
    private var echoEnergy = 0.0, echoFrames = 0
    /// Per response, the milliseconds of its audio the loudspeaker has played (its media clock).
    private(set) var playedMs: [Int64: Double] = [:]
    /// The conversation item of a response.
    private let item: (Int64) -> AudioItem

    init(
        configuration c: SessionConfiguration, profile: WireProfile, tracks: SessionTracks, maxBlock: Int,
        writer: SessionWriter?
    ) throws(AudioPipelineError) {
        configuration = c
        self.profile = profile
        deviceRate = tracks.deviceRate
        tickS = c.jitter.tickMs / 1000
        recorded = tracks.reference != nil
        user = try tracks.user.reader()
        item = { [agent = tracks.agent] r in agent?.item(of: r) ?? AudioItem(id: "sim_item_\(r + 1)", contentIndex: 0) }
        self.maxBlock = maxBlock
        self.writer = writer
        timeline = writer == nil ? nil : SessionTimelineTrace(tickS: tickS)
        room = SessionRoom(
            settings: recorded ? EchoSettings.off : c.echo, rate: deviceRate,
            impulseResponse: tracks.impulseResponse, noiseDbfs: recorded ? nil : c.noiseDbfs, seed: c.seed)
        let device = try StreamFormat(sampleRate: try SampleRate(deviceRate), channels: 1)
        capture = try CapturePath(
            profile: profile,
            configuration: .init(device: device, chunkMilliseconds: c.chunkMs, blockFrames: maxBlock))
        let clientRate = try SampleRate(profile.clientRate)
        micToClient = try FormatConverter(.init(input: device, outputRate: clientRate, blockFrames: maxBlock))
        referenceToClient = try FormatConverter(.init(input: device, outputRate: clientRate, blockFrames: maxBlock))
        vad = try EnergyVAD(sampleRate: profile.clientRate, configuration: c.vad)
        let clientMax = max(micToClient.maxOutputCount(forInput: maxBlock), 1)
        message = [UInt8](repeating: 0, count: capture.maximumMessageLength)
        mic = [Float](repeating: 0, count: maxBlock)
        echo = [Float](repeating: 0, count: maxBlock)
        userBlock = [Float](repeating: 0, count: maxBlock)
        micClient = [Float](repeating: 0, count: clientMax)
        referenceClient = [Float](repeating: 0, count: clientMax)
        quantised = [Int16](repeating: 0, count: maxBlock)
        heardQuantiser = try Float32ToInt16Converter()
        frames = [VADDecider.Frame](
            repeating: VADDecider.Frame(level: 0, floor: 0, echo: 0, score: 0, speech: false),
            count: vad.maxOutputCount(forInput: clientMax) + 2)
    }

    /// What the jitter buffer (or the recording) says about the tick.
    struct Playout {
        /// The response whose audio this tick played, if any.
        var sounding: Int64?
        /// The response in progress (started, not finished, not flushed), if any.
        var playing: Int64?
        var bufferMs = 0.0
        var concealedMs = 0.0
        var lateMs = 0.0
        /// How far into the response `sounding` the loudspeaker has played by the end of this tick,
        /// ms of its audio (nil: unknown).
        var playedMs: Double?
    }

    /// One tick: `heard` is the loudspeaker's audio (device rate), `reference` what the VAD gets as
    /// the far end (nil: `heard`). Returns the response to flush when the client barges in.
    func process(
        heard: UnsafeBufferPointer<Float>, reference: UnsafeBufferPointer<Float>?, playout p: Playout
    ) throws(AudioPipelineError) -> Int64? {
        let n = heard.count
        precondition(n <= maxBlock, "session: block of \(n) frames over \(maxBlock)")
        if let s = p.sounding {
            attributed = s
            if let ms = p.playedMs { playedMs[s] = max(playedMs[s] ?? 0, ms) }
        }
        if let r = p.playing, responseStartS[r] == nil {
            responseStartS[r] = Double(devicePosition) / Double(deviceRate)
        }
        let levels = try makeMicrophone(heard)
        let endS = Double(devicePosition + n) / Double(deviceRate)
        try send(n, endS)
        let detected = try detect(n, reference: reference ?? heard, playing: p.playing, endS: endS)
        var flush: Int64?
        if let r = detected.bargeIn {
            flushed.insert(r)
            let it = item(r)
            let heardMs = Int((playedMs[r] ?? 0).rounded(.down))
            interrupts.append(
                SessionReport.Interrupt(
                    timeS: endS, response: r, userOnset: nil, falseBargeIn: true, itemId: it.id, audioEndMs: heardMs))
            // The profile's messages: cancel the response, then say how much of it was heard.
            let messages = [
                profile.interruptMessage,
                profile.truncation(itemId: it.id, contentIndex: it.contentIndex, audioEndMs: heardMs),
            ]
            for text in messages.compactMap({ $0 }) {
                interruptMessages += 1
                try writer?.sent(Array(text.utf8), timeS: endS, binary: false)
            }
            flush = r
        }
        let tick = SessionTick(
            timeS: endS, playing: p.playing, vadScore: detected.score, vadSpeech: detected.speech,
            bufferMs: p.bufferMs, heardDbfs: levels.heard, echoDbfs: levels.echo, micDbfs: levels.mic,
            concealedMs: p.concealedMs, lateMs: p.lateMs, bargeIn: detected.bargeIn != nil)
        tickPlaying.append(p.playing.map { Int32(clamping: $0) } ?? -1)
        timeline?.add(tick)
        try writer?.event(tick)
        devicePosition += n
        return flush
    }

    /// The microphone block: the recording, or the user's track plus the echo of `heard` plus the
    /// noise floor; writes heard.wav and mic.wav and tracks the last audible loudspeaker sample.
    /// (vad-mic.wav and vad-reference.wav are written in `detect`, at the client rate.)
    private func makeMicrophone(
        _ heard: UnsafeBufferPointer<Float>
    ) throws(AudioPipelineError) -> (heard: Double, echo: Double, mic: Double) {
        let n = heard.count
        let start = devicePosition
        try userBlock.withUnsafeMutableBufferPointer { (u) throws(AudioPipelineError) in
            try user.read(into: UnsafeMutableBufferPointer(rebasing: u[0..<n]))
        }
        let echoLevel: Double = mic.withUnsafeMutableBufferPointer { m in
            echo.withUnsafeMutableBufferPointer { e in
                userBlock.withUnsafeBufferPointer { u in
                    let e = UnsafeMutableBufferPointer(rebasing: e[0..<n])
                    let m = UnsafeMutableBufferPointer(rebasing: m[0..<n])
                    room.echo(heard, into: e)
                    for i in 0..<n { m[i] = u[i] + (recorded ? 0 : e[i]) }
                    if !recorded { room.addNoise(m) }
                    return Self.dbfs(UnsafeBufferPointer(e))
                }
            }
        }
        if !recorded, echoLevel > -120 {
            echoEnergy += pow(10, echoLevel / 10)
            echoFrames += 1
        }
        // heard.wav, and the last audible sample (|x| ≥ 33 LSB, −60 dBFS) in PCM16 as written.
        let lastAudible: Int? = quantised.withUnsafeMutableBufferPointer { q in
            let q = UnsafeMutableBufferPointer(rebasing: q[0..<n])
            _ = heardQuantiser.process(heard, into: q)
            return q.lastIndex { abs(Int($0)) >= Self.audibleLSB }
        }
        if let k = lastAudible, let r = attributed {
            lastAudibleS[r] = Double(start + k + 1) / Double(deviceRate)
        }
        try writer?.heard(quantised, count: n)
        try writer?.mic(mic, count: n)
        let micLevel = mic.withUnsafeBufferPointer { Self.dbfs(UnsafeBufferPointer(rebasing: $0[0..<n])) }
        return (Self.dbfs(heard), echoLevel, micLevel)
    }

    /// Loudspeaker samples at or above this many LSB of PCM16 (−60 dBFS) are audible.
    static let audibleLSB = 33

    /// The capture path: converts and chunks the microphone block and sends the messages.
    private func send(_ n: Int, _ endS: Double) throws(AudioPipelineError) {
        var failure: AudioPipelineError?
        let latency = Double(capture.latency) / Double(profile.clientRate)
        let clientRate = Double(profile.clientRate)
        mic.withUnsafeBufferPointer { m in
            message.withUnsafeMutableBytes { buffer in
                capture.process(UnsafeBufferPointer(rebasing: m[0..<n]), into: buffer) { msg in
                    guard failure == nil else { return }
                    messages += 1
                    let lastSampleS = Double(msg.startFrame + msg.frames) / clientRate + latency
                    micToMessageMs.append(max(0, endS - lastSampleS) * 1000)
                    do throws(AudioPipelineError) {
                        try writer?.sent(Array(msg.bytes), timeS: endS, binary: msg.opcode == .binary)
                    } catch {
                        failure = error
                    }
                }
            }
        }
        if let failure { throw failure }
    }

    /// The VAD on the block at the client rate, with the reference; the policy on its decisions.
    private func detect(
        _ n: Int, reference: UnsafeBufferPointer<Float>, playing: Int64?, endS: Double
    ) throws(AudioPipelineError) -> (score: Double, speech: Bool, bargeIn: Int64?) {
        let produced = mic.withUnsafeBufferPointer { m in
            micClient.withUnsafeMutableBufferPointer {
                micToClient.process(UnsafeBufferPointer(rebasing: m[0..<n]), into: $0).produced
            }
        }
        let producedRef = referenceClient.withUnsafeMutableBufferPointer {
            referenceToClient.process(reference, into: $0).produced
        }
        let count = min(produced, producedRef)
        try writer?.detectorInput(mic: micClient, reference: referenceClient, count: count)
        let frameCount = micClient.withUnsafeBufferPointer { m in
            referenceClient.withUnsafeBufferPointer { r in
                frames.withUnsafeMutableBufferPointer { f in
                    vad.process(
                        UnsafeBufferPointer(rebasing: m[0..<count]),
                        reference: UnsafeBufferPointer(rebasing: r[0..<count]), into: f
                    ).produced
                }
            }
        }
        var score = -Double.infinity
        var speech = speechMs > 0
        var bargeIn: Int64?
        let frameMs = configuration.vad.frameMilliseconds
        for k in 0..<frameCount {
            let f = frames[k]
            score = max(score, f.score)
            speech = f.speech
            speechMs = f.speech ? speechMs + frameMs : 0
            guard bargeIn == nil, f.speech, speechMs >= configuration.policy.minimumSpeechMs, let r = playing,
                !flushed.contains(r)
            else { continue }
            let age = (endS - (responseStartS[r] ?? endS)) * 1000
            if age >= configuration.policy.ignoreFirstMs { bargeIn = r }
        }
        return (score, speech, bargeIn)
    }

    /// What the VAD's echo model expected in its last frame.
    var echoEstimate: VADEchoModel.Estimate? { vad.decider.echoEstimate }

    /// Mean level of the echo at the microphone over the ticks that had any, dBFS.
    /// nil without echo, or when it cannot be told (samples far beyond full scale overflow the sum).
    var meanEchoDbfs: Double? {
        guard echoFrames > 0 else { return nil }
        let db = 10 * log10(echoEnergy / Double(echoFrames))
        return db.isFinite ? db : nil
    }

    static func dbfs(_ x: UnsafeBufferPointer<Float>) -> Double {
        guard !x.isEmpty else { return -120 }
        var e: Float = 0
        for v in x { e += v * v }
        return max(-120, 10 * log10(Double(e) / Double(x.count) + 1e-30))
    }
}

extension EchoSettings {
    static var off: EchoSettings {
        var e = EchoSettings()
        e.enabled = false
        return e
    }
}
