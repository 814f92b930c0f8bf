import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// What `convert` should produce.
public struct ConvertOptions: Sendable {
    /// Output rate; `nil` keeps the input rate.
    public var sampleRate: SampleRate?
    /// Output channels; `nil` keeps the input's (or 1 when `channel` is set). 1 downmixes (mean);
    /// a mono input can be duplicated to N channels; other changes are refused.
    public var channels: Int?
    /// Take this input channel (0-based) instead of the mean when producing mono.
    public var channel: Int?
    public var encoding: SampleEncoding = .pcm16
    public var type: OutputFileType = .wav
    public var dither: Dither = .none
    public var compatibility: PCMCompatibility = .standard
    public var resampler: ResamplerChoice = .default
    /// Frames per block read from the input; memory use is proportional to this, not to the file.
    public var blockFrames = 4096
    /// A truncated input is an error instead of a warning.
    public var strict = false

    public init() {}

    /// Checks the options against each other (the input's channels are checked when it is opened);
    /// messages name the `convert` options.
    public func validate() throws(AudioPipelineError) {
        func refuse(_ message: String) throws(AudioPipelineError) {
            throw AudioPipelineError(.invalidConfiguration, message)
        }
        if let channels, channels < 1 { try refuse("--channels must be at least 1 (got \(channels))") }
        if let channel, channel < 0 { try refuse("--channel counts from 1 (got \(channel + 1))") }
        if let channel, let channels, channels != 1 {
            try refuse("--channel \(channel + 1) selects one channel; it cannot make \(channels) channels")
        }
        if compatibility == .ios, case .tpdf = dither {
            try refuse("--dither cannot be used with --compat ios (the iOS code truncates without dither)")
        }
        if encoding != .pcm16, case .tpdf = dither {
            try refuse("--dither applies when quantising to pcm16; the output is \(encoding)")
        }
    }

    /// The output type: `type` if given, else from the path's extension.
    public static func outputType(path: String, type: OutputFileType?) throws(AudioPipelineError) -> OutputFileType {
        if let type = type ?? OutputFileType(pathExtension: path) { return type }
        throw AudioPipelineError(
            .invalidConfiguration,
            path == "-"
                ? "writing to stdout needs --type (wav, flac or raw)"
                : "cannot tell the output type from '\(path)': use a .wav, .flac or .raw name, or --type")
    }
}

/// Streams one file into another: read → (PCM16 → Float32) → channels → resample → (Float32 →
/// PCM16) → write, block by block with buffers allocated once; constant memory on any length.
public enum FileConverter {
    /// Converts `input` into `output` (written atomically; `-` is standard input/output).
    /// - Parameter progress: called after each block with the input frames read so far and the
    ///   total the header declares (none on a pipe).
    public static func convert(
        input: String, raw: RawFormat? = nil, output: String, options: ConvertOptions,
        progress: ProgressHandler = { _ in }
    ) throws(AudioPipelineError) -> ConvertReport {
        try options.validate()
        try SamePathGuard.refuse(input: input, output: output)
        let started = DispatchTime.now().uptimeNanoseconds
        let reader = try AudioFileReader(path: input, raw: raw)
        let chain = try ConversionChain(input: reader.description, name: reader.displayName, options: options)
        let writer = try AudioOutput(
            path: output, type: options.type, encoding: options.encoding, format: chain.outputFormat)
        let frames = try chain.run(reader: reader, blockFrames: options.blockFrames, progress: progress) {
            (samples) throws(AudioPipelineError) in
            switch samples {
            case .pcm16(let p): try writer.write(p)
            case .float32(let p): try writer.write(p)
            }
        }
        try writer.commit()
        let warnings = [try InputCheck.truncation(reader, strict: options.strict)].compactMap { $0 }
        let d = reader.description
        return ConvertReport(
            input: input, output: output,
            inputFormat: .init(
                container: d.container, encoding: d.encoding, sampleRate: d.format.sampleRate.hz,
                channels: d.format.channels),
            outputFormat: .init(
                type: options.type.rawValue, encoding: options.encoding.rawValue,
                sampleRate: chain.outputFormat.sampleRate.hz, channels: chain.outputFormat.channels),
            framesIn: frames.in, framesOut: frames.out, clippedSamples: chain.clippedSamples,
            nanSamples: chain.nanSamples,
            resampler: chain.resamplerName, resamplerLatencyFrames: chain.resamplerLatency,
            elapsedSeconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9, warnings: warnings)
    }
}

/// The conversion chain of one file: channel plan, resampler and quantiser, with buffers allocated
/// once for a block size.
final class ConversionChain {
    enum Samples {
        case pcm16(UnsafeBufferPointer<Int16>)
        case float32(UnsafeBufferPointer<Float>)
    }

    let inputFormat: StreamFormat
    let outputFormat: StreamFormat
    let encoding: SampleEncoding
    private let readsPCM16: Bool
    private var mixer: ChannelMixer?
    private var resampler: (any Resampler)?
    private var toFloat: Int16ToFloat32Converter
    private var toPCM: Float32ToInt16Converter
    /// Channels between mixing and duplication.
    private let stageChannels: Int

    var clippedSamples: Int { toPCM.clippedCount }
    var nanSamples: Int { toPCM.nanCount }
    var resamplerName: String? { resampler?.name }
    var resamplerLatency: Int { resampler?.latency ?? 0 }

    init(input: AudioFileDescription, name: String, options: ConvertOptions) throws(AudioPipelineError) {
        let inCh = input.format.channels
        if let k = options.channel, !(0..<inCh).contains(k) {
            throw AudioPipelineError(
                .invalidConfiguration, "\(name): has \(inCh) channel(s); channel \(k + 1) does not exist")
        }
        let outCh = options.channels ?? (options.channel != nil ? 1 : inCh)
        guard outCh == 1 || outCh == inCh || inCh == 1 else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "\(name): cannot map \(inCh) channels to \(outCh); choose 1 (downmix), \(inCh) (keep), or start "
                    + "from mono"
            )
        }
        inputFormat = input.format
        let outRate = options.sampleRate ?? input.format.sampleRate
        outputFormat = try StreamFormat(sampleRate: outRate, channels: outCh)
        encoding = options.encoding
        readsPCM16 = input.isPCM16
        mixer =
            (outCh == 1 && inCh > 1)
            ? try ChannelMixer(channels: inCh, mode: options.channel.map { .channel($0) } ?? .mean) : nil
        stageChannels = mixer != nil ? 1 : inCh
        resampler =
            outRate == input.format.sampleRate
            ? nil
            : try options.resampler.make(
                ResamplingFormat(from: input.format.sampleRate, to: outRate, channels: stageChannels))
        toFloat = Int16ToFloat32Converter(compatibility: options.compatibility)
        toPCM = try Float32ToInt16Converter(.init(compatibility: options.compatibility, dither: options.dither))
    }

    /// Reads `reader` to its end, block by block, handing every converted block to `sink`.
    /// Returns the frames read and written.
    func run(
        reader: AudioFileReader, blockFrames block: Int, progress: ProgressHandler,
        sink: (Samples) throws(AudioPipelineError) -> Void
    ) throws(AudioPipelineError) -> (in: Int, out: Int) {
        let inCh = inputFormat.channels, outCh = outputFormat.channels
        var pcmIn = [Int16](repeating: 0, count: block * inCh)
        var floatIn = [Float](repeating: 0, count: block * inCh)
        var mixed = [Float](repeating: 0, count: mixer != nil ? block : 0)
        let resCap =
            resampler.map { Swift.max($0.maxOutputCount(forInput: block), $0.maxOutputCount(forInput: 0)) } ?? 0
        var resampled = [Float](repeating: 0, count: resCap * stageChannels)
        let outCap = Swift.max(block, resCap) * outCh
        var widened = [Float](repeating: 0, count: outCh > stageChannels ? outCap : 0)
        var pcmOut = [Int16](repeating: 0, count: encoding == .pcm16 ? outCap : 0)
        var framesIn = 0, framesOut = 0
        let total = reader.description.frames
        let rate = inputFormat.sampleRate.hz

        // Writes interleaved output-format samples, quantising to PCM16 when asked.
        func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioPipelineError) {
            guard encoding == .pcm16 else { return try sink(.float32(samples)) }
            let n = samples.count
            _ = pcmOut.withUnsafeMutableBufferPointer { toPCM.process(samples, into: $0) }
            try pcmOut.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in
                try sink(.pcm16(UnsafeBufferPointer(rebasing: p[0..<n])))
            }
        }
        // Writes `frames` frames of `stageChannels`-channel audio, duplicating mono to N channels.
        func emit(_ buf: UnsafeBufferPointer<Float>, frames: Int) throws(AudioPipelineError) {
            guard frames > 0 else { return }
            let samples = UnsafeBufferPointer(rebasing: buf[0..<frames * stageChannels])
            framesOut += frames
            guard outCh > stageChannels else { return try write(samples) }
            widened.withUnsafeMutableBufferPointer { w in
                for f in 0..<frames { for c in 0..<outCh { w[f * outCh + c] = samples[f] } }
            }
            try widened.withUnsafeBufferPointer { (w) throws(AudioPipelineError) in
                try write(UnsafeBufferPointer(rebasing: w[0..<frames * outCh]))
            }
        }
        func resampleAndEmit(_ src: UnsafeBufferPointer<Float>) throws(AudioPipelineError) {
            guard resampler != nil else { return try emit(src, frames: src.count / stageChannels) }
            var offset = 0
            while offset < src.count {
                // Mutated in place (never copied out), so a value-type resampler's buffers are not copied.
                let res = resampled.withUnsafeMutableBufferPointer {
                    resampler!.process(UnsafeBufferPointer(rebasing: src[offset...]), into: $0)
                }
                offset += res.consumed * stageChannels
                try resampled.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in
                    try emit(p, frames: res.produced)
                }
                if res.consumed == 0 && res.produced == 0 { break }
            }
        }

        while true {
            let got = try read(reader, pcm: &pcmIn, float: &floatIn)
            if got == 0 { break }
            framesIn += got
            if mixer != nil {
                _ = floatIn.withUnsafeBufferPointer { i in
                    mixed.withUnsafeMutableBufferPointer {
                        mixer!.process(UnsafeBufferPointer(rebasing: i[0..<got * inCh]), into: $0)
                    }
                }
                try mixed.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in
                    try resampleAndEmit(UnsafeBufferPointer(rebasing: p[0..<got]))
                }
            } else {
                try floatIn.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in
                    try resampleAndEmit(UnsafeBufferPointer(rebasing: p[0..<got * inCh]))
                }
            }
            progress(JobProgress(done: framesIn, total: total, unit: .frames(rate: rate)))
        }
        while resampler != nil {
            let n = resampled.withUnsafeMutableBufferPointer { resampler!.finish(into: $0) }
            if n == 0 { break }
            try resampled.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try emit(p, frames: n) }
        }
        return (framesIn, framesOut)
    }

    /// One block as Float32: PCM16 files are read as integers and widened with the chosen convention.
    private func read(_ reader: AudioFileReader, pcm: inout [Int16], float: inout [Float]) throws(AudioPipelineError)
        -> Int
    {
        guard readsPCM16 else {
            return try float.withUnsafeMutableBufferPointer { (p) throws(AudioPipelineError) in try reader.read(into: p)
            }
        }
        let got = try pcm.withUnsafeMutableBufferPointer { (p) throws(AudioPipelineError) in try reader.read(into: p) }
        let n = got * inputFormat.channels
        _ = pcm.withUnsafeBufferPointer { i in
            float.withUnsafeMutableBufferPointer { toFloat.process(UnsafeBufferPointer(rebasing: i[0..<n]), into: $0) }
        }
        return got
    }
}
