extension FormatConverter {
    /// What happens to the channels, between the input's interleaved frames and the output's.
    public enum ChannelPlan: Sendable, Hashable {
        /// The input's channels, as they are.
        case keep
        /// Mono: the mean of all channels (`ChannelMixer.Mode.mean`, `(L + R) × 0.5` for stereo).
        case downmix
        /// Mono: one input channel, counted from 0.
        case pick(Int)
        /// `n` channels, each a copy of a mono input (playback to a stereo device, a stereo file).
        case duplicate(Int)
    }

    /// What a `FormatConverter` converts from and to. Sample types are not part of it: they are
    /// chosen per call (`process` takes `Float` or `Int16` input and writes `Float` or `Int16`).
    public struct Configuration: Sendable, Hashable {
        /// Rate and channel count of the input.
        public var input: StreamFormat
        /// Rate of the output (the input's: no resampling).
        public var outputRate: SampleRate
        /// How the input's channels become the output's: keep, mix to mono, pick one, or duplicate mono.
        public var channels: ChannelPlan
        /// How PCM16 maps onto Float32, both ways: `Int16` input is widened and `Int16` output
        /// quantised with it (`ios` reproduces the common iOS client code byte for byte).
        public var compatibility: PCMCompatibility
        /// Dither before quantising to `Int16` output (not with `ios`).
        public var dither: Dither
        /// Frames converted per internal step. `process` takes any number of frames, working
        /// through them this many at a time; the internal buffers are sized for it at init.
        public var blockFrames: Int

        /// A conversion of `input` to `outputRate` (nil: the input's), with the channel plan, PCM
        /// conventions, dither and block size given; validated by `FormatConverter`'s initialiser.
        public init(
            input: StreamFormat, outputRate: SampleRate? = nil, channels: ChannelPlan = .keep,
            compatibility: PCMCompatibility = .standard, dither: Dither = .none, blockFrames: Int = 4096
        ) {
            self.input = input
            self.outputRate = outputRate ?? input.sampleRate
            self.channels = channels
            self.compatibility = compatibility
            self.dither = dither
            self.blockFrames = blockFrames
        }
    }

    /// Makes the resampler for a rate change. The core's own is `PolyphaseResampler`; a caller
    /// that links libsamplerate passes its own (`ResamplerChoice.make` in the adapters fits).
    public typealias ResamplerFactory = (ResamplingFormat) throws(AudioPipelineError) -> any Resampler

    /// A factory of `PolyphaseResampler`s with `preset`, `kernel` and `mode` (`.throughput` for
    /// whole files: the same output, held back in blocks where that is faster).
    public static func polyphase(
        _ preset: PolyphaseResampler.Preset = .high, kernel: VectorKernel = .best,
        mode: PolyphaseResampler.Mode = .streaming
    ) -> ResamplerFactory {
        { (format) throws(AudioPipelineError) in
            try PolyphaseResampler.make(format: format, preset: preset, kernel: kernel, mode: mode)
        }
    }
}
