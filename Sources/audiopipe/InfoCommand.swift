import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe audio files: container, encoding, rate, channels, length, levels, clipping, DC offset.",
        discussion: """
            Levels are in dBFS relative to a full-scale square wave (as sox reports them: a \
            full-scale sine has RMS -3.01 dBFS). A sample is counted as clipped when it is at or \
            beyond full scale (the largest code of an integer encoding, or |x| >= 1 for floats).
            """)

    @Argument(help: "Audio files ('-' for standard input).")
    var files: [String]

    @Flag(help: "Print JSON (an array, one object per file) instead of text.")
    var json = false

    @OptionGroup var raw: RawInputOptions

    func run() throws {
        let rawFormat = try raw.rawFormat()
        var reports: [InfoReport] = []
        var failed: AudioPipelineError?
        for file in files {
            // One bad file does not stop the others; the exit code reports the first failure.
            switch Result(catching: { () throws(AudioPipelineError) in try FileInspection.inspect(path: file, raw: rawFormat) }) {
            case .success(let inspection):
                let report = InfoReport(inspection)
                reports.append(report)
                if !json { print(report.text) }
            case .failure(let error):
                Terminal.error(error.message)
                failed = failed ?? error
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(reports), as: UTF8.self))
        }
        if let failed { throw FailureExit(status: ExitStatus(failed.code)) }
    }
}

/// One file's description, for text and JSON.
struct InfoReport: Encodable {
    struct Channel: Encodable {
        let peakDBFS: Double?
        let rmsDBFS: Double?
        let dcOffset: Double
    }

    let path: String
    let container: String
    let encoding: String
    let sampleRate: Int
    let channels: Int
    let frames: Int
    let durationSeconds: Double
    let peakDBFS: Double?  // nil (JSON null) for digital silence
    let rmsDBFS: Double?
    let clippedSamples: Int
    let dcOffset: Double
    let perChannel: [Channel]

    init(_ i: FileInspection) {
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
    }

    private static func finite(_ x: Double) -> Double? { x.isFinite ? (x * 100).rounded() / 100 : nil }

    var text: String {
        func db(_ v: Double?) -> String { v.map { String(format: "%.2f dBFS", $0) } ?? "-inf dBFS (silence)" }
        return """
            \(path)
              container   \(container)
              encoding    \(encoding)
              sample rate \(sampleRate) Hz
              channels    \(channels)
              frames      \(frames)
              duration    \(Units.seconds(durationSeconds))
              peak        \(db(peakDBFS))
              rms         \(db(rmsDBFS))
              clipped     \(clippedSamples) samples
              dc offset   \(String(format: "%+.6f", dcOffset))
            """
    }
}
