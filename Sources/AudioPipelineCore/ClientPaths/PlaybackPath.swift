/// A voice-agent client's speaker path as one object: the server's messages in, one tick of
/// device audio out per `pull`.
///
/// ```
/// server message bytes
///   → WireProfile.decodeServerAudio (scan, no JSON tree; else JSON.parse + interpret)
///   → PCM16 → Float32 (compatibility) → JitterBuffer.push
/// pull: JitterBuffer.pull (one tick at the server rate) → FormatConverter (to the device rate and
///   channels) → the caller's buffer
/// ```
///
/// `receive` numbers the audio messages (the packet sequence) and keeps each utterance's media
/// time (the samples received before in the same utterance), which is what a WebSocket client
/// knows; the caller says which utterance a message belongs to (a new response, a new turn) and
/// decides what an event means (`.interrupted` → `jitterBuffer.flush`). An audio message of up to
/// `maximumPacketSamples` on the fast path allocates nothing, nor does `pull`; the fallback (an
/// escaped string, an unusual shape) and events parse the message, which allocates.
public final class PlaybackPath {
    /// What `receive` did with a message.
    public enum Received: Sendable, Hashable {
        /// Audio: `samples` samples pushed to the jitter buffer, with its answer.
        case audio(samples: Int, result: JitterBuffer.PushResult)
        /// Not audio: what the message means to the profile.
        case event(WireEvent)
        /// Not a message the profile can read (not JSON, invalid base64 audio), with the reason.
        case invalid(String)
    }

    /// The API whose server messages this path plays (its server rate and audio messages).
    public let profile: WireProfile
    /// The playout buffer, at the profile's server rate (statistics, clock, `flush` on barge-in).
    public let jitterBuffer: JitterBuffer
    /// The conversion from a tick at the server rate to the device's rate and channels.
    public let converter: FormatConverter
    /// Samples of one packet the fast path takes without allocating.
    public let maximumPacketSamples: Int
    /// Device frames one `pull` (or `finish`) can write at most: the size of its output buffer.
    public let maxOutputCount: Int

    @exclusivity(unchecked) var widener: Int16ToFloat32Converter
    @exclusivity(unchecked) var nextSequence: Int64 = 0
    @exclusivity(unchecked) var utterance: Int64 = .min
    @exclusivity(unchecked) var media: Int64 = 0
    let bytes: UnsafeMutableRawBufferPointer
    let samples: UnsafeMutablePointer<Float>
    let tick: UnsafeMutablePointer<Float>

    /// - Parameters:
    ///   - profile: the API's wire profile: which server messages carry audio, at what rate.
    ///   - device: the device's rate and channels (a mono stream is duplicated to more channels).
    ///   - jitter: the buffer's configuration, at the profile's server rate; default 20 ms ticks.
    ///   - compatibility: how PCM16 becomes Float32 (`.standard`, or what common iOS code does).
    ///   - maximumPacketSamples: default one second at the server rate.
    ///   - resampler: makes the server-rate-to-device-rate resampler (default the native polyphase one).
    /// - Throws: `invalidConfiguration` for a jitter configuration at another rate than the
    ///   server's, or what `JitterBuffer` and `FormatConverter` throw.
    public init(
        profile: WireProfile, device: StreamFormat, jitter: JitterBuffer.Configuration? = nil,
        compatibility: PCMCompatibility = .standard, maximumPacketSamples: Int? = nil,
        resampler: FormatConverter.ResamplerFactory = FormatConverter.polyphase()
    ) throws(AudioPipelineError) {
        let serverRate = try SampleRate(profile.serverRate)
        let j = jitter ?? JitterBuffer.Configuration(sampleRate: serverRate.hz, tickMilliseconds: 20)
        guard j.sampleRate == serverRate.hz else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "playback path: the jitter buffer runs at \(j.sampleRate) Hz, the server sends \(serverRate.hz) Hz")
        }
        jitterBuffer = try JitterBuffer(configuration: j)
        converter = try FormatConverter(
            .init(
                input: try StreamFormat(sampleRate: serverRate, channels: 1), outputRate: device.sampleRate,
                channels: device.channels == 1 ? .keep : .duplicate(device.channels), compatibility: compatibility,
                blockFrames: j.tick),
            resampler: resampler)
        self.profile = profile
        maxOutputCount = Swift.max(converter.maxOutputCount(forInput: j.tick), converter.maxOutputCount(forInput: 0))
        self.maximumPacketSamples = Swift.max(1, maximumPacketSamples ?? serverRate.hz)
        widener = Int16ToFloat32Converter(compatibility: compatibility)
        bytes = .allocate(byteCount: 2 * self.maximumPacketSamples + 4, alignment: 16)
        samples = .allocate(capacity: self.maximumPacketSamples)
        tick = .allocate(capacity: j.tick)
    }

    deinit {
        bytes.deallocate()
        samples.deallocate()
        tick.deallocate()
    }

    /// Takes one server message. Audio goes to the jitter buffer as the next packet of `utterance`,
    /// arriving at `arrival` (default: the buffer's clock).
    public func receive(_ message: UnsafeRawBufferPointer, utterance: Int64, arrival: Int64? = nil) -> Received {
        if case .audio(let n) = profile.decodeServerAudio(message, into: bytes) {
            return push(UnsafeRawBufferPointer(start: bytes.baseAddress, count: n), utterance, arrival)
        }
        let value: JSONValue
        do {
            value = try JSON.parse(message)
        } catch {
            return .invalid("\(error)")
        }
        // Every audio part of the message (a Gemini message may carry several), with the base64
        // variants the profile's schema allows.
        let events = profile.interpretAll(value, direction: .server)
        var pushed: Received?
        for case .audio(let text, _, _) in events {
            do {
                let pcm = try profile.decodeAudio(text)
                pushed = pcm.withUnsafeBytes { push($0, utterance, arrival) }
            } catch {
                return .invalid("invalid base64 audio: \(error)")
            }
        }
        return pushed ?? .event(events[0])
    }

    /// Plays one tick: pulls it from the jitter buffer and converts it to the device format into
    /// `output` (at least `maxOutputCount` frames); returns the device frames written (fewer than a
    /// tick's worth at first, by the resampler's latency).
    public func pull(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        precondition(
            output.count >= maxOutputCount * converter.outputStride, "playback path: output buffer too small")
        let n = jitterBuffer.configuration.tick
        jitterBuffer.pull(into: UnsafeMutableBufferPointer(start: tick, count: n))
        return converter.process(UnsafeBufferPointer(start: tick, count: n), into: output).produced
    }

    /// Ends the stream: what the resampler still holds, into `output`; call until it returns 0.
    public func finish(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        converter.finish(into: output)
    }

    /// Empties the jitter buffer and the resampler, and restarts the packet numbering.
    public func reset() {
        jitterBuffer.reset()
        converter.reset()
        nextSequence = 0
        utterance = .min
        media = 0
    }

    /// Pushes little-endian PCM16 `pcm` as the next packet of `utterance`.
    private func push(_ pcm: UnsafeRawBufferPointer, _ utterance: Int64, _ arrival: Int64?) -> Received {
        let count = pcm.count / 2
        if utterance != self.utterance {
            self.utterance = utterance
            media = 0
        }
        let large = count > maximumPacketSamples
        let floats = large ? UnsafeMutablePointer<Float>.allocate(capacity: count) : samples
        defer { if large { floats.deallocate() } }
        // Base64 output starts at the beginning of an allocation: aligned for Int16.
        UnsafeRawBufferPointer(rebasing: pcm[0..<(count * 2)]).withMemoryRebound(to: Int16.self) {
            _ = widener.process($0, into: UnsafeMutableBufferPointer(start: floats, count: count))
        }
        let result = jitterBuffer.push(
            UnsafeBufferPointer(start: floats, count: count), sequence: nextSequence, utterance: utterance,
            media: media, arrival: arrival)
        nextSequence += 1
        media += Int64(count)
        return .audio(samples: count, result: result)
    }
}
