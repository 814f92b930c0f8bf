/// The capture chain as one streaming stage: interleaved `Float` or `Int16` in, at any rate and
/// channel count; interleaved `Float` or `Int16` out, at another rate and channel plan.
///
/// ```
/// Int16 ─ widen (compatibility) ─┐
/// Float ─────────────────────────┴─ channels (keep / downmix / pick) ─ resample ─ duplicate ─┬─ Float
///                                                                                            └─ quantise ─ Int16
/// ```
///
/// It is what a file conversion, a framer, a VAD loader and a phone's microphone path each wired
/// by hand (`Int16ToFloat32Converter`, `ChannelMixer`, a `Resampler`, a duplication loop,
/// `Float32ToInt16Converter`), with the same stages in the same order, so its output is the same
/// sample for sample: `Int16` input is widened with the chosen `PCMCompatibility` and `Int16`
/// output quantised with it (so `ios` stays byte-exact), dither included; clipped and NaN samples
/// are counted (`clippedCount`, `nanCount`). The resampler comes from a factory, so a caller that
/// links libsamplerate can inject it; the default is `PolyphaseResampler` `high`.
///
/// The streaming contract (DESIGN.md): caller-owned buffers; `consumed`/`produced` count frames
/// (`inputStride` and `outputStride` samples); `process` never drops input — it consumes less
/// when `output` is full; `maxOutputCount(forInput:)` sizes an output so that one call consumes
/// everything; `finish` releases what the resampler holds (call until it returns 0); `reset()`;
/// `latency` in output frames. Every buffer is allocated at init, sized for `blockFrames`:
/// `process` and `finish` do not allocate, and the output is the same whatever block sizes the
/// input comes in (tested with random sizes, 1 included).
///
/// The sample types are chosen per call, so one converter serves a file of either encoding; it is
/// not a `StreamingStage`, whose input and output types are fixed. A class, as it owns a resampler
/// (a reference) and raw buffers; single-threaded, like every stage.
public final class FormatConverter {
    /// The formats and conventions this converter was made with.
    public let configuration: Configuration
    /// Rate and channel count of the output.
    public let outputFormat: StreamFormat

    let inChannels: Int
    /// Channels between the channel plan's mixing and its duplication (what the resampler sees).
    let stageChannels: Int
    let outChannels: Int
    let block: Int
    /// Frames the resampler may write per step: enough for a whole block, and for `finish`.
    let resamplerCapacity: Int
    /// Whether the rates differ (tested per block instead of the optional existential, whose test
    /// costs a copy of it).
    let resamples: Bool
    @exclusivity(unchecked) var widener: Int16ToFloat32Converter
    @exclusivity(unchecked) var mixer: ChannelMixer?
    @exclusivity(unchecked) var resampler: (any Resampler)?
    @exclusivity(unchecked) var quantiser: Float32ToInt16Converter
    /// Buffers, allocated at init: Int16 input widened (block × input channels), mixed (block),
    /// resampled (resamplerCapacity × stage channels), duplicated (output frames × output channels).
    let widened: UnsafeMutablePointer<Float>
    let mixed: UnsafeMutablePointer<Float>
    let resampled: UnsafeMutablePointer<Float>
    let duplicated: UnsafeMutablePointer<Float>

    /// - Throws: `invalidConfiguration` for a channel that does not exist, duplication of a
    ///   non-mono input, dither with `ios`, `blockFrames` < 1, or what the resampler factory throws.
    public init(
        _ configuration: Configuration, resampler makeResampler: ResamplerFactory = FormatConverter.polyphase()
    ) throws(AudioPipelineError) {
        let c = configuration
        guard c.blockFrames >= 1 else {
            throw AudioPipelineError(.invalidConfiguration, "format converter: block of \(c.blockFrames) frames")
        }
        let inCh = c.input.channels
        switch c.channels {
        case .keep:
            outChannels = inCh
        case .downmix:
            outChannels = 1
            mixer = inCh > 1 ? try ChannelMixer(channels: inCh, mode: .mean) : nil
        case .pick(let k):
            outChannels = 1
            let picker = try ChannelMixer(channels: inCh, mode: .channel(k))  // checks that k exists
            mixer = inCh > 1 ? picker : nil
        case .duplicate(let n):
            guard inCh == 1 else {
                throw AudioPipelineError(
                    .invalidConfiguration,
                    "format converter: duplicating to \(n) channels needs a mono input, not \(inCh) channels")
            }
            outChannels = n
        }
        outputFormat = try StreamFormat(sampleRate: c.outputRate, channels: outChannels)
        self.configuration = c
        inChannels = inCh
        stageChannels = mixer != nil ? 1 : inCh
        block = c.blockFrames
        widener = Int16ToFloat32Converter(compatibility: c.compatibility)
        quantiser = try Float32ToInt16Converter(.init(compatibility: c.compatibility, dither: c.dither))
        if c.outputRate != c.input.sampleRate {
            let format = try ResamplingFormat(from: c.input.sampleRate, to: c.outputRate, channels: stageChannels)
            let r = try makeResampler(format)
            resampler = r
            resamplerCapacity = Swift.max(r.maxOutputCount(forInput: block), r.maxOutputCount(forInput: 0))
        } else {
            resamplerCapacity = 0
        }
        resamples = resampler != nil
        widened = .allocate(capacity: block * inCh)
        mixed = .allocate(capacity: mixer != nil ? block : 1)
        resampled = .allocate(capacity: Swift.max(1, resamplerCapacity * stageChannels))
        let duplicatedFrames = outChannels > stageChannels ? Swift.max(block, resamplerCapacity) : 0
        duplicated = .allocate(capacity: Swift.max(1, duplicatedFrames * outChannels))
    }

    deinit {
        widened.deallocate()
        mixed.deallocate()
        resampled.deallocate()
        duplicated.deallocate()
    }

    /// Input samples per frame.
    public var inputStride: Int { inChannels }
    /// Output samples per frame.
    public var outputStride: Int { outChannels }
    /// Output frames by which output lags input while streaming (the resampler's), released by `finish`.
    public var latency: Int { resampler?.latency ?? 0 }
    /// The resampler's name (`native-high`, `src-best` …), nil when the rates are the same.
    public var resamplerName: String? { resampler?.name }
    /// Output frames the resampler holds back for speed (`PolyphaseResampler`'s throughput mode;
    /// 0 otherwise), included in `latency`.
    public var resamplerHoldBack: Int {
        if let cascade = resampler as? HalfBandCascadeResampler { return cascade.holdBack }
        return (resampler as? PolyphaseResampler)?.holdBack ?? 0
    }
    /// Whether the resampler is the whole-file half-band cascade (`PolyphaseResampler.Mode.multiStage`).
    public var resamplerIsMultiStage: Bool { resampler is HalfBandCascadeResampler }
    /// `Int16` output samples outside [-1, 1] before quantising (saturated), since init or `reset()`.
    public var clippedCount: Int { quantiser.clippedCount }
    /// `Int16` output samples that were NaN (written as the compatibility mode says).
    public var nanCount: Int { quantiser.nanCount }

    /// Output frames `frames` more input frames can produce; with 0, what `finish` can write.
    public func maxOutputCount(forInput frames: Int) -> Int {
        resampler?.maxOutputCount(forInput: frames) ?? frames
    }

    /// Prepares for a new, unrelated stream (the resampler's history, the dither generator and
    /// the counts).
    public func reset() {
        resampler?.reset()
        quantiser.reset()
    }
}
