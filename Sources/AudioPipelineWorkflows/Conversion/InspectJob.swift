import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// Level statistics of a whole file, as `audiopipe info` reports them.
public struct FileInspection: Sendable {
    /// The path as given (`stdin` for standard input).
    public let path: String
    /// What the file is: container, encoding, format, declared length.
    public let description: AudioFileDescription
    /// Peaks, RMS, DC offset and clipped samples, per channel and overall.
    public let statistics: SignalStatistics
    /// Frames actually decoded (may differ from the header's count for a truncated file).
    public let framesDecoded: Int
    /// NaN and ±Inf samples (a float file can hold them; they are not audio) and the first one's frame.
    public let nonFiniteSamples: Int
    /// The frame of the first non-finite sample, if any.
    public let firstNonFiniteFrame: Int?
    /// What was wrong with the file but did not stop the job.
    public let warnings: [String]

    /// Reads the file once, block by block (constant memory). `strict`: a truncated file is an error.
    public static func inspect(
        path: String, raw: RawFormat? = nil, strict: Bool = false, blockFrames: Int = 8192
    ) throws(AudioPipelineError) -> FileInspection {
        let reader = try AudioFileReader(path: path, raw: raw)
        let channels = reader.format.channels
        var stats = SignalStatistics(channels: channels, positiveFullScale: reader.description.positiveFullScale)
        var buf = [Float](repeating: 0, count: blockFrames * channels)
        while true {
            // (The reader reads NaN and infinite samples as 0 and counts them: the levels leave them out.)
            let got = try buf.withUnsafeMutableBufferPointer { (p) throws(AudioPipelineError) in
                try reader.read(into: p)
            }
            if got == 0 { break }
            buf.withUnsafeBufferPointer { stats.accumulate(UnsafeBufferPointer(rebasing: $0[0..<got * channels])) }
        }
        let warnings = try InputCheck.all(reader, strict: strict)
        return FileInspection(
            path: reader.displayName, description: reader.description, statistics: stats,
            framesDecoded: reader.framesRead,
            nonFiniteSamples: reader.nonFiniteSamples, firstNonFiniteFrame: reader.firstNonFiniteFrame,
            warnings: warnings)
    }
}

/// One file's description, as `info` prints it (`--json`: an array of these).
public struct InfoReport: WorkflowReport, Codable, Hashable {
    /// One channel's levels.
    public struct Channel: Codable, Sendable, Hashable {
        /// Peak level, dBFS (nil for digital silence).
        @NullWhenAbsent public var peakDBFS: Double?
        /// RMS level, dBFS (nil for digital silence).
        @NullWhenAbsent public var rmsDBFS: Double?
        /// Mean sample value (linear).
        public var dcOffset: Double
    }

    /// The path as given.
    public var path: String
    /// The container (`wav`, `flac` …).
    public var container: String
    /// The sample encoding (`pcm16`, `float32` …).
    public var encoding: String
    /// Rate, Hz.
    public var sampleRate: Int
    /// Interleaved channels.
    public var channels: Int
    /// Frames decoded.
    public var frames: Int
    /// Length, s.
    public var durationSeconds: Double
    /// nil (JSON null) for digital silence.
    @NullWhenAbsent public var peakDBFS: Double?
    /// RMS level over all channels, dBFS (nil for digital silence).
    @NullWhenAbsent public var rmsDBFS: Double?
    /// Samples at or beyond full scale.
    public var clippedSamples: Int
    /// Mean sample value over all channels (linear).
    public var dcOffset: Double
    /// Each channel's levels.
    public var perChannel: [Channel]
    /// NaN and ±Inf samples, and where the first one is (seconds).
    public var nonFiniteSamples: Int
    /// Where the first non-finite sample is, s.
    @NullWhenAbsent public var firstNonFiniteSecond: Double?
    /// What was wrong with the file but did not stop the job (truncation, non-finite samples).
    public var warnings: [String]

    /// The report of an inspection.
    public init(_ i: FileInspection) {
        let s = i.statistics
        path = i.path
        container = i.description.container
        encoding = i.description.encoding
        sampleRate = i.description.format.sampleRate.hz
        channels = i.description.format.channels
        frames = i.framesDecoded
        durationSeconds = i.description.format.sampleRate.seconds(frames: i.framesDecoded)
        peakDBFS = Self.finite(SignalStatistics.dBFS(Double(s.peak)))
        rmsDBFS = Self.finite(SignalStatistics.dBFS(s.rms))
        clippedSamples = s.clippedSamples
        dcOffset = s.dcOffset
        perChannel = (0..<s.channels).map {
            Channel(
                peakDBFS: Self.finite(SignalStatistics.dBFS(Double(s.peak(channel: $0)))),
                rmsDBFS: Self.finite(SignalStatistics.dBFS(s.rms(channel: $0))), dcOffset: s.dcOffset(channel: $0))
        }
        nonFiniteSamples = i.nonFiniteSamples
        firstNonFiniteSecond = i.firstNonFiniteFrame.map { i.description.format.sampleRate.seconds(frames: $0) }
        warnings = i.warnings
    }

    /// Inspects one file.
    public static func inspect(path: String, raw: RawFormat? = nil, strict: Bool = false) throws(AudioPipelineError)
        -> InfoReport
    {
        InfoReport(try FileInspection.inspect(path: path, raw: raw, strict: strict))
    }

    private static func finite(_ x: Double) -> Double? { x.isFinite ? (x * 100).rounded() / 100 : nil }
}

extension InfoReport {
    /// The human summary `audiopipe` prints.
    public var text: String {
        func db(_ v: Double?) -> String { v.map { String(format: "%.2f dBFS", $0) } ?? "-inf dBFS (silence)" }
        return """
            \(path)
              container   \(container)
              encoding    \(encoding)
              sample rate \(sampleRate) Hz
              channels    \(channels)
              frames      \(frames)
              duration    \(String(format: "%.3f s", durationSeconds))
              peak        \(db(peakDBFS))
              rms         \(db(rmsDBFS))
              clipped     \(clippedSamples) samples\(nonFiniteSamples > 0 ? "\n  non-finite  \(nonFiniteSamples) "
                  + "samples (NaN/Inf)" : "")
              dc offset   \(String(format: "%+.6f", dcOffset))
            """
    }
}
