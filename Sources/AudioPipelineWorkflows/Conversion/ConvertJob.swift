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
    /// The output's sample encoding (`pcm16` or `float32`).
    public var encoding: SampleEncoding = .pcm16
    /// The output's file type (from its name unless given).
    public var type: OutputFileType = .wav
    /// Dither before quantising to PCM16.
    public var dither: Dither = .none
    /// PCM conventions (`ios` reproduces the common iOS client code).
    public var compatibility: PCMCompatibility = .standard
    /// The resampler, when the rate changes.
    public var resampler: ResamplerChoice = .default
    /// The native resampler's mode: `.multiStage` (the default, `convert`'s file path: throughput
    /// mode, and a half-band first stage on large downsampling ratios) or `.throughput` (the single
    /// polyphase stage, the streaming path's output bit for bit: the whole-file loaders of `vad` and
    /// `analyze` keep it, so their results match the live path's).
    public var resamplerMode: PolyphaseResampler.Mode = .multiStage
    /// Most frames per block read from the input; memory use is proportional to this, not to the
    /// file. A file of known length reads blocks of a sixteenth of it, from 4096 up to this (see
    /// `FileConversion.blockFrames`).
    public var blockFrames = 65536
    /// A truncated input is an error instead of a warning.
    public var strict = false

    /// Keep the input's rate and channels; write PCM16 WAV.
    public init() {}

    /// The lowest output rate `convert` writes: no voice API or audio device runs below it, and a
    /// smaller number is most often kHz typed for Hz (`-r 16`).
    public static let minimumRateHz = 1000

    /// The output rate from an outside number (nil: the input's), refused outside 1 kHz…768 kHz.
    public static func rate(_ hz: Int?) throws(AudioPipelineError) -> SampleRate? {
        if let hz, (1..<minimumRateHz).contains(hz) {
            throw AudioPipelineError(
                .invalidConfiguration,
                "--rate: \(hz) Hz is below \(minimumRateHz) Hz; the rate is in Hz (for \(hz) kHz, give \(hz * 1000))")
        }
        do { return try hz.map { h throws(AudioPipelineError) in try SampleRate(h) } } catch {
            throw AudioPipelineError(.invalidConfiguration, "--rate: \(error.message)")
        }
    }

    /// Checks the options against each other (the input's channels are checked when it is opened);
    /// messages name the `convert` options.
    /// - Throws: `invalidConfiguration` naming the options that contradict each other.
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
            StandardOutput.isStandardOutput(path)
                ? "writing to stdout needs --type (wav, flac or raw)"
                : "cannot tell the output type from '\(path)': use a .wav, .flac or .raw name, or --type")
    }
}

/// Streams one file into another: read → (PCM16 → Float32) → channels → resample → (Float32 →
/// PCM16) → write, block by block with buffers allocated once; constant memory on any length.
public enum FileConverter {
    /// Converts `input` into `output` (written atomically; `-` is standard input/output).
    /// - Parameters:
    ///   - input: the audio file to read (`-`: standard input).
    ///   - raw: the format of headerless input (rate, channels, encoding); nil: read the header.
    ///   - output: the file to write (`-`: standard output); its type from its extension or
    ///     `options`.
    ///   - options: the target format, resampler, dither and output type.
    ///   - progress: called after each block with the input frames read so far and the
    ///     total the header declares (none on a pipe).
    /// - Returns: what was read, written and clipped.
    public static func convert(
        input: String, raw: RawFormat? = nil, output: String, options: ConvertOptions,
        progress: ProgressHandler = { _ in }
    ) throws(AudioPipelineError) -> ConvertReport {
        try options.validate()
        try SamePathGuard.refuse(input: input, output: output)
        let started = DispatchTime.now().uptimeNanoseconds
        let reader = try AudioFileReader(path: input, raw: raw)
        let chain = try FileConversion(reader: reader, options: options)
        let writer = try AudioOutput(
            path: output, type: options.type, encoding: options.encoding, format: chain.outputFormat)
        let frames = try chain.run(progress: progress) { (samples) throws(AudioPipelineError) in
            switch samples {
            case .pcm16(let p): try writer.write(p)
            case .float32(let p): try writer.write(p)
            }
        }
        // (Checked before the output is put in place: with --strict a truncated input leaves nothing.)
        let warnings = try InputCheck.all(reader, strict: options.strict)
        try writer.commit()
        let d = reader.description
        return ConvertReport(
            input: input, output: output,
            inputFormat: .init(
                container: d.container, encoding: d.encoding, sampleRate: d.format.sampleRate.hz,
                channels: d.format.channels),
            outputFormat: .init(
                type: options.type.rawValue, encoding: options.encoding.rawValue,
                sampleRate: chain.outputFormat.sampleRate.hz, channels: chain.outputFormat.channels),
            framesIn: frames.in, framesOut: frames.out, clippedSamples: chain.converter.clippedCount,
            nanSamples: chain.converter.nanCount + reader.nonFiniteSamples,
            resampler: chain.converter.resamplerName, resamplerLatencyFrames: chain.converter.latency,
            resamplerHeldBackFrames: chain.converter.resamplerHoldBack,
            resamplerStages: chain.converter.resamplerName == nil ? 0 : chain.converter.resamplerIsMultiStage ? 2 : 1,
            elapsedSeconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9, warnings: warnings)
    }
}

/// One file through a `FormatConverter`: read block by block (PCM16 files as integers, so the
/// chosen PCM convention applies exactly), convert, hand each converted block on — pushed (`run`)
/// or pulled (`next`, for a job that reads a second file in step). Buffers are allocated once;
/// memory does not depend on the file's length.
final class FileConversion {
    typealias Samples = FileBlocks.Block

    let reader: AudioFileReader
    let converter: FormatConverter
    let encoding: SampleEncoding
    var outputFormat: StreamFormat { converter.outputFormat }
    /// Input read but not yet converted (frames from `pendingStart`), in `inPCM` or `inFloat`.
    private var inPCM: UnsafeMutableBufferPointer<Int16>, inFloat: UnsafeMutableBufferPointer<Float>
    private var pending = 0, pendingStart = 0
    private var outPCM: UnsafeMutableBufferPointer<Int16>, outFloat: UnsafeMutableBufferPointer<Float>
    private var inputEnded = false, finished = false
    /// Frames handed on so far.
    private(set) var framesOut = 0

    /// The channel plan of `channels`/`channel` (0-based) for the reader's input, or why there is none.
    static func plan(input: StreamFormat, name: String, channels: Int?, channel: Int?) throws(AudioPipelineError)
        -> FormatConverter.ChannelPlan
    {
        let inCh = input.channels
        if let k = channel {
            guard (0..<inCh).contains(k) else {
                throw AudioPipelineError(
                    .invalidConfiguration, "\(name): has \(inCh) channel(s); channel \(k + 1) does not exist")
            }
            return .pick(k)
        }
        let outCh = channels ?? inCh
        if outCh == inCh { return .keep }
        if outCh == 1 { return .downmix }
        if inCh == 1 { return .duplicate(outCh) }
        throw AudioPipelineError(
            .invalidConfiguration,
            "\(name): cannot map \(inCh) channels to \(outCh); choose 1 (downmix), \(inCh) (keep), or start from mono")
    }

    /// Frames per block: a sixteenth of the file (whole 1024s), at least 4096 (or `most`, if less)
    /// and at most `most`; `most` when the length is unknown (a pipe). Big blocks spare a long file
    /// per-block work (at 4096 frames it was a tenth of a 10-minute conversion); small files keep
    /// small buffers (a batch of 1-second files would otherwise clear megabytes per file).
    static func blockFrames(most: Int, fileFrames: Int?) -> Int {
        guard let n = fileFrames, n >= 0 else { return most }
        return min(most, max(4096, n / 16 / 1024 * 1024))
    }

    init(reader: AudioFileReader, options o: ConvertOptions) throws(AudioPipelineError) {
        self.reader = reader
        let input = reader.format
        let plan = try Self.plan(input: input, name: reader.displayName, channels: o.channels, channel: o.channel)
        converter = try FormatConverter(
            .init(
                input: input, outputRate: o.sampleRate, channels: plan, compatibility: o.compatibility,
                dither: o.dither,
                blockFrames: Self.blockFrames(most: o.blockFrames, fileFrames: reader.description.frames)),
            // A whole file: the native resampler's file path (throughput mode, and a half-band first
            // stage on large downsampling ratios: see PolyphaseResampler.Mode.multiStage).
            resampler: { (f) throws(AudioPipelineError) in try o.resampler.make(f, mode: o.resamplerMode) })
        encoding = o.encoding
        let c = converter, isPCM16 = reader.description.isPCM16, toPCM = o.encoding == .pcm16
        let inCount = c.configuration.blockFrames * c.inputStride
        let outCount =
            max(c.maxOutputCount(forInput: c.configuration.blockFrames), c.maxOutputCount(forInput: 0), 1)
            * c.outputStride
        inPCM = .allocate(capacity: isPCM16 ? inCount : 0)
        inFloat = .allocate(capacity: isPCM16 ? 0 : inCount)
        outPCM = .allocate(capacity: toPCM ? outCount : 0)
        outFloat = .allocate(capacity: toPCM ? 0 : outCount)
    }

    deinit {
        inPCM.deallocate(); inFloat.deallocate(); outPCM.deallocate(); outFloat.deallocate()
    }

    /// Reads the input to its end, handing every converted block to `sink`; returns the frames read
    /// and written.
    func run(progress: ProgressHandler, sink: (Samples) throws(AudioPipelineError) -> Void) throws(AudioPipelineError)
        -> (in: Int, out: Int)
    {
        while let block = try next(progress: progress) { try sink(block) }
        return (reader.framesRead, framesOut)
    }

    /// The next converted block (valid until the next call), nil at the end: converts what was read
    /// and not yet taken, else reads the next input block (`progress` after each read), and at the
    /// end of the input drains the converter.
    func next(progress: ProgressHandler = { _ in }) throws(AudioPipelineError) -> Samples? {
        let c = converter, toPCM = encoding == .pcm16
        while true {
            if pending > 0 {
                let range = pendingStart * c.inputStride..<(pendingStart + pending) * c.inputStride
                let r: ProcessResult
                switch (reader.description.isPCM16, toPCM) {
                case (true, true): r = c.process(UnsafeBufferPointer(rebasing: inPCM[range]), into: outPCM)
                case (true, false): r = c.process(UnsafeBufferPointer(rebasing: inPCM[range]), into: outFloat)
                case (false, true): r = c.process(UnsafeBufferPointer(rebasing: inFloat[range]), into: outPCM)
                case (false, false): r = c.process(UnsafeBufferPointer(rebasing: inFloat[range]), into: outFloat)
                }
                (pending, pendingStart) = (pending - r.consumed, pendingStart + r.consumed)
                if r.consumed == 0 && r.produced == 0 { pending = 0 }  // no progress: on to the next block
                if r.produced > 0 { return output(r.produced) }
            } else if !inputEnded {
                let got =
                    reader.description.isPCM16 ? try reader.read(into: inPCM) : try reader.read(into: inFloat)
                (pending, pendingStart, inputEnded) = (got, 0, got == 0)
                if got > 0 {
                    progress(
                        JobProgress(
                            done: reader.framesRead, total: reader.description.frames,
                            unit: .frames(rate: reader.format.sampleRate.hz)))
                }
            } else {
                guard !finished else { return nil }
                let n = toPCM ? c.finish(into: outPCM) : c.finish(into: outFloat)
                if n > 0 { return output(n) }
                finished = true
            }
        }
    }

    /// The first `frames` of the output buffer, counted.
    private func output(_ frames: Int) -> Samples {
        framesOut += frames
        let n = frames * converter.outputStride
        if encoding == .pcm16 { return .pcm16(UnsafeBufferPointer(rebasing: outPCM[0..<n])) }
        return .float32(UnsafeBufferPointer(rebasing: outFloat[0..<n]))
    }
}
