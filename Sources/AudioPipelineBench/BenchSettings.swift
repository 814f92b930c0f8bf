import AudioPipelineCore

/// What `BenchRun` measures: the client's device, API profile, chunk, resampler, conversion, VAD
/// and jitter buffer, as the app runs them; and how long it measures.
public struct BenchSettings {
    /// The device's rate, Hz.
    public var deviceRate = 48_000
    /// The device's interleaved channels.
    public var deviceChannels = 1
    /// The API profile (it sets the client and server rates and the messages) and its name.
    public var profile: WireProfile
    /// The profile's name, for the report.
    public var profileName: String
    /// Audio per chunk, ms.
    public var chunkMilliseconds = 20.0
    /// The resampler both paths use, and its name for the report.
    public var resampler: FormatConverter.ResamplerFactory = FormatConverter.polyphase(.high)
    /// The resampler's name, for the report.
    public var resamplerName = "native-high"
    /// The vector kernels asked for (`portable` forces the resampler's Swift code; the wire
    /// profile's base64 and the PCM conversion always take the best the CPU has).
    public var kernel: VectorKernel = .best
    /// PCM conventions of both paths' conversions.
    public var compatibility: PCMCompatibility = .standard
    /// Dither of the mic path's quantisation.
    public var dither: Dither = .none
    /// The VAD the mic path runs beside it.
    public var vad = VADConfiguration()
    /// The VAD also gets the far-end reference (the agent's audio), as in barge-in.
    public var withReference = false
    /// The jitter buffer, at the profile's server rate; nil: ticks of one chunk, 120 s capacity.
    public var jitter: JitterBuffer.Configuration?
    /// Builds a server audio message around base64 audio, for a profile the bench has no message
    /// for (a custom template); nil: the built-in profiles' messages.
    public var serverMessage: ((String) -> [UInt8])?
    /// Where `serverMessage` keeps its base64 audio (dotted path, numbers index arrays).
    public var serverAudioPath: String?
    /// A resampler to stand beside ours as a peer (libsamplerate where present), by name.
    public var peerResampler: (name: String, make: FormatConverter.ResamplerFactory)?
    /// Measuring time over all rows, s (`iterations`, when set, fixes the chunks per row instead).
    public var seconds = 12.0
    /// Chunks per row (fixed), instead of `seconds`.
    public var iterations: Int?
    /// Chunks run before timing each row.
    public var warmup = 200
    /// Blocks each row's samples are taken in (their p50s give the run's spread).
    public var repeats = 5
    /// Run the peers (the common client code) beside ours.
    public var peers = true

    /// Settings for `profile`, every other setting at its default (48 kHz mono, 20 ms chunks).
    public init(profile: WireProfile, profileName: String) {
        self.profile = profile
        self.profileName = profileName
    }

    /// The settings as the report shows them.
    public var summary: [String: String] {
        [
            "deviceRate": "\(deviceRate)", "deviceChannels": "\(deviceChannels)", "profile": profileName,
            "clientRate": "\(profile.clientRate)", "serverRate": "\(profile.serverRate)",
            "chunkMilliseconds": "\(chunkMilliseconds)", "resampler": resamplerName,
            "kernels": kernel == .best ? "best" : "portable", "compat": "\(compatibility)",
            "dither": dither == .none ? "none" : "tpdf", "withReference": "\(withReference)",
            "vadFrameMilliseconds": "\(vad.frameMilliseconds)",
            "jitterTickMilliseconds": "\(Double(jitterConfiguration.tick) * 1000 / Double(profile.serverRate))",
            "jitterPolicy": "\(jitterConfiguration.policy)",
        ]
    }

    var jitterConfiguration: JitterBuffer.Configuration {
        jitter
            ?? JitterBuffer.Configuration(
                sampleRate: profile.serverRate, tickMilliseconds: chunkMilliseconds, capacitySeconds: 120)
    }

    /// Refuses settings no client could run: zero or negative rates, channels, chunks, durations.
    public func validate() throws(AudioPipelineError) {
        func bad(_ what: String) -> AudioPipelineError { AudioPipelineError(.invalidConfiguration, what) }
        // (The device rates audio hardware runs at; session simulate takes the same.)
        guard (8_000...192_000).contains(deviceRate) else {
            throw bad("--device-rate must be in 8000…192000 Hz, not \(deviceRate)")
        }
        guard (1...64).contains(deviceChannels) else { throw bad("--device-channels must be in 1…64") }
        let chunks = CapturePath.Configuration.chunkMillisecondsRange
        guard chunks.contains(chunkMilliseconds) else {
            throw bad(
                "--chunk-ms must be in \(Int(chunks.lowerBound))…\(Int(chunks.upperBound)) ms, not \(chunkMilliseconds)"
            )
        }
        guard seconds.isFinite, seconds > 0, seconds <= 3600 else { throw bad("--duration must be in (0, 3600] s") }
        if let iterations, !(1...10_000_000).contains(iterations) {
            throw bad("--iterations must be in 1…10000000")
        }
        guard (0...10_000_000).contains(warmup) else { throw bad("--warmup must be in 0…10000000 chunks") }
        guard (1...100).contains(repeats) else { throw bad("repeats must be in 1…100") }
    }
}
