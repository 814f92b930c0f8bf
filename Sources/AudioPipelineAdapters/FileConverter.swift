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

    public init() {}
}

/// What a conversion did.
public struct ConvertReport: Sendable {
    public let input: AudioFileDescription
    public let output: StreamFormat
    public let outputEncoding: SampleEncoding
    public let outputType: OutputFileType
    public let framesIn: Int
    public let framesOut: Int
    /// Float samples outside [-1, 1] saturated when quantising to PCM16.
    public let clippedSamples: Int
    public let nanSamples: Int
    public let resampler: String?
    public let resamplerLatencyFrames: Int
}

/// Where converted audio goes: an audio file, or a framer that turns it into messages.
public protocol ConvertedAudioSink: AnyObject {
    func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioPipelineError)
    func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioPipelineError)
    func commit() throws(AudioPipelineError)
}

extension AudioFileWriter: ConvertedAudioSink {}

/// Streams one file into another: read → (PCM16 → Float32) → channels → resample → (Float32 →
/// PCM16) → write, block by block with buffers allocated once.
public enum FileConverter {
    /// - Parameter progress: called after each block with the input frames read so far.
    public static func convert(
        input inputPath: String, raw: RawFormat? = nil, output outputPath: String, options: ConvertOptions,
        progress: (Int) -> Void = { _ in }
    ) throws(AudioPipelineError) -> ConvertReport {
        try refuseSamePath(inputPath, outputPath)
        return try convert(input: inputPath, raw: raw, options: options, progress: progress) { (format) throws(AudioPipelineError) in
            try AudioFileWriter(path: outputPath, type: options.type, encoding: options.encoding, format: format)
        }
    }

    /// The same pipeline into any sink, made once the output format is known.
    public static func convert(
        input inputPath: String, raw: RawFormat? = nil, options: ConvertOptions, progress: (Int) -> Void = { _ in },
        sink makeSink: (StreamFormat) throws(AudioPipelineError) -> any ConvertedAudioSink
    ) throws(AudioPipelineError) -> ConvertReport {
        let reader = try AudioFileReader(path: inputPath, raw: raw)
        let inFormat = reader.format
        let inCh = inFormat.channels

        // Channel plan.
        if let k = options.channel, !(0..<inCh).contains(k) {
            throw AudioPipelineError(
                .invalidConfiguration, "\(reader.displayName): has \(inCh) channel(s); channel \(k + 1) does not exist")
        }
        let outCh = options.channels ?? (options.channel != nil ? 1 : inCh)
        guard outCh == 1 || outCh == inCh || inCh == 1 else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "\(reader.displayName): cannot map \(inCh) channels to \(outCh); choose 1 (downmix), \(inCh) (keep), or start from mono")
        }
        let outRate = options.sampleRate ?? inFormat.sampleRate
        let outFormat = try StreamFormat(sampleRate: outRate, channels: outCh)
        var mixer: ChannelMixer? =
            (outCh == 1 && inCh > 1) ? try ChannelMixer(channels: inCh, mode: options.channel.map { .channel($0) } ?? .mean) : nil
        let stageCh = mixer != nil ? 1 : inCh  // channels between mixing and duplication

        // Resampler works on `stageCh` interleaved channels.
        var resampler: (any Resampler)? =
            outRate == inFormat.sampleRate
            ? nil : try options.resampler.make(ResamplingFormat(from: inFormat.sampleRate, to: outRate, channels: stageCh))

        var toFloat = Int16ToFloat32Converter(compatibility: options.compatibility)
        var toPCM = try Float32ToInt16Converter(.init(compatibility: options.compatibility, dither: options.dither))

        let writer = try makeSink(outFormat)

        // Buffers, allocated once.
        let block = options.blockFrames
        var pcmIn = [Int16](repeating: 0, count: block * inCh)
        var floatIn = [Float](repeating: 0, count: block * inCh)
        var mixed = [Float](repeating: 0, count: mixer != nil ? block : 0)
        let resCap = resampler.map { Swift.max($0.maxOutputCount(forInput: block), $0.maxOutputCount(forInput: 0)) } ?? 0
        var resampled = [Float](repeating: 0, count: resCap * stageCh)
        let outCap = Swift.max(block, resCap) * outCh
        var widened = [Float](repeating: 0, count: (outCh > stageCh) ? outCap : 0)
        var pcmOut = [Int16](repeating: 0, count: options.encoding == .pcm16 ? outCap : 0)

        var framesIn = 0
        var framesOut = 0

        // Writes `frames` frames of `stageCh`-channel float audio to the output.
        func emit(_ buf: UnsafeBufferPointer<Float>, frames: Int) throws(AudioPipelineError) {
            guard frames > 0 else { return }
            let samples = UnsafeBufferPointer(rebasing: buf[0..<frames * stageCh])
            if outCh > stageCh {  // mono → N: duplicate, then write from inside the buffer's scope
                widened.withUnsafeMutableBufferPointer { w in
                    for f in 0..<frames { for c in 0..<outCh { w[f * outCh + c] = samples[f] } }
                }
                try widened.withUnsafeBufferPointer { (w) throws(AudioPipelineError) in
                    try write(UnsafeBufferPointer(rebasing: w[0..<frames * outCh]))
                }
            } else {
                try write(samples)
            }
            framesOut += frames
        }

        // Writes interleaved output-format samples, quantising to PCM16 when asked.
        func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioPipelineError) {
            if options.encoding == .pcm16 {
                let n = samples.count
                _ = pcmOut.withUnsafeMutableBufferPointer { toPCM.process(samples, into: $0) }
                try pcmOut.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try writer.write(UnsafeBufferPointer(rebasing: p[0..<n])) }
            } else {
                try writer.write(samples)
            }
        }

        func resampleAndEmit(_ src: UnsafeBufferPointer<Float>) throws(AudioPipelineError) {
            guard resampler != nil else {
                try emit(src, frames: src.count / stageCh)
                return
            }
            var offset = 0
            while offset < src.count {
                // Mutated in place (never copied out), so a value-type resampler's buffers are not copied.
                let res = resampled.withUnsafeMutableBufferPointer {
                    resampler!.process(UnsafeBufferPointer(rebasing: src[offset...]), into: $0)
                }
                offset += res.consumed * stageCh
                try resampled.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try emit(p, frames: res.produced) }
                if res.consumed == 0 && res.produced == 0 { break }
            }
        }

        while true {
            let got: Int
            if reader.description.isPCM16 {
                got = try pcmIn.withUnsafeMutableBufferPointer { (p) throws(AudioPipelineError) in try reader.read(into: p) }
                let n = got * inCh
                _ = pcmIn.withUnsafeBufferPointer { i in
                    floatIn.withUnsafeMutableBufferPointer { toFloat.process(UnsafeBufferPointer(rebasing: i[0..<n]), into: $0) }
                }
            } else {
                got = try floatIn.withUnsafeMutableBufferPointer { (p) throws(AudioPipelineError) in try reader.read(into: p) }
            }
            if got == 0 { break }
            framesIn += got
            if mixer != nil {
                _ = floatIn.withUnsafeBufferPointer { i in
                    mixed.withUnsafeMutableBufferPointer { mixer!.process(UnsafeBufferPointer(rebasing: i[0..<got * inCh]), into: $0) }
                }
                try mixed.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try resampleAndEmit(UnsafeBufferPointer(rebasing: p[0..<got])) }
            } else {
                try floatIn.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try resampleAndEmit(UnsafeBufferPointer(rebasing: p[0..<got * inCh])) }
            }
            progress(framesIn)
        }
        if resampler != nil {
            while true {
                let n = resampled.withUnsafeMutableBufferPointer { resampler!.finish(into: $0) }
                if n == 0 { break }
                try resampled.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try emit(p, frames: n) }
            }
        }
        try writer.commit()
        return ConvertReport(
            input: reader.description, output: outFormat, outputEncoding: options.encoding, outputType: options.type,
            framesIn: framesIn, framesOut: framesOut, clippedSamples: toPCM.clippedCount, nanSamples: toPCM.nanCount,
            resampler: resampler?.name, resamplerLatencyFrames: resampler?.latency ?? 0)
    }

    /// Refuses to write onto the input (same path, or another name for the same file).
    public static func refuseSamePath(_ input: String, _ output: String) throws(AudioPipelineError) {
        guard input != "-", output != "-" else { return }
        let a = URL(fileURLWithPath: input).standardizedFileURL.resolvingSymlinksInPath().path
        let b = URL(fileURLWithPath: output).standardizedFileURL.resolvingSymlinksInPath().path
        var sa = stat(), sb = stat()
        let sameInode = stat(input, &sa) == 0 && stat(output, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
        if a == b || sameInode {
            throw AudioPipelineError(.invalidConfiguration, "\(output): output is the input file; choose another output path")
        }
    }
}

/// Level statistics of a whole file, as `audiopipe info` reports them.
public struct FileInspection: Sendable {
    public let path: String
    public let description: AudioFileDescription
    public let statistics: SignalStatistics
    /// Frames actually decoded (may differ from the header's count for a truncated file).
    public let framesDecoded: Int

    /// Reads the file once, block by block.
    public static func inspect(path: String, raw: RawFormat? = nil, blockFrames: Int = 8192) throws(AudioPipelineError) -> FileInspection {
        let reader = try AudioFileReader(path: path, raw: raw)
        var stats = SignalStatistics(channels: reader.format.channels, positiveFullScale: reader.description.positiveFullScale)
        var buf = [Float](repeating: 0, count: blockFrames * reader.format.channels)
        while true {
            let got = try buf.withUnsafeMutableBufferPointer { (p) throws(AudioPipelineError) in try reader.read(into: p) }
            if got == 0 { break }
            buf.withUnsafeBufferPointer { stats.accumulate(UnsafeBufferPointer(rebasing: $0[0..<got * reader.format.channels])) }
        }
        return FileInspection(path: reader.displayName, description: reader.description, statistics: stats, framesDecoded: reader.framesRead)
    }
}
