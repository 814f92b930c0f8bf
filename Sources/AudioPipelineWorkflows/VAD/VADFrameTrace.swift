import AudioPipelineCore
import Foundation

/// `vad detect --frames FILE`: one CSV row per frame of what the decision was made of
/// (`VADDecider.Detail`) — for finding why the detector did, or did not, start speech at a moment
/// (a user heard late under the agent's echo, a false start on a click). `--explain` says it per
/// segment; this says it for every frame, the frames that opened nothing included.
///
/// Columns: `time_s` (the frame's end, the streaming decision time), `speech` (the decision, 0/1),
/// `score_db` (the mean of the two largest band excesses), `level_dbfs`, `floor_dbfs`, `echo_dbfs`
/// (the frame's level, noise floor and expected echo), `loudest_dbfs` (the talker gate's loudest
/// recent speech), `loud`, `dominant`, `start_test`, `hold_test` (the gates and tests, 0/1) and
/// `run_frames` (frames in the run passing the start test); with a reference also `echo_stage`
/// (`worst-case`, `window`, `tracked`), `echo_delay_ms` (empty until found) and `onset_guard`.
/// Then per band (`lt150`, `150_300` … `gt5000` with a reference, `lt300` … `gt3000` without):
/// `level_B`, `floor_B`, `excess_B` and, with a reference, `echo_B` (the expected echo before its
/// margin), `margin_B` and `gain_B` (the echo gain in use; its negative is the echo return loss).
/// Levels in dB with one decimal; `-inf` where there is none (no expected echo yet).
///
/// Rows are written as the frames pass (about 0.3 KB a frame with a reference: 110 MB an hour),
/// through an atomic output: the file appears with the labels, or not at all.
public final class VADFrameTrace {
    private let output: ByteOutput
    private let reference: Bool
    private var headerWritten = false
    private var line: [UInt8] = []
    /// The first write error: the frames keep coming from a caller that cannot throw, so the error
    /// is kept and thrown by `commit()`.
    private var failure: AudioPipelineError?

    /// A trace to `path` (`-`: standard output) of a run with or without a far-end reference.
    /// - Throws: `AudioPipelineError` naming the path when it cannot be created.
    public init(path: String, reference: Bool) throws(AudioPipelineError) {
        output = try ByteOutput(path: path)
        self.reference = reference
        line.reserveCapacity(1024)
    }

    /// The header for frames of `bandCount` bands.
    public static func header(bandCount: Int, reference: Bool) -> String {
        var columns = [
            "time_s", "speech", "score_db", "level_dbfs", "floor_dbfs", "echo_dbfs", "loudest_dbfs", "loud",
            "dominant", "start_test", "hold_test", "run_frames",
        ]
        if reference { columns += ["echo_stage", "echo_delay_ms", "onset_guard"] }
        for band in bandSlugs(count: bandCount) {
            columns += ["level_\(band)", "floor_\(band)", "excess_\(band)"]
            if reference { columns += ["echo_\(band)", "margin_\(band)", "gain_\(band)"] }
        }
        return columns.joined(separator: ",") + "\n"
    }

    /// Band names for column headers: `lt150`, `150_300` … `gt5000` (eight bands) or `lt300` …
    /// `gt3000` (four).
    static func bandSlugs(count: Int) -> [String] {
        let splits = (count == 4 ? VADBandAnalyzer.splitsHz : VADBandPairAnalyzer.splitsHz).map { String(Int($0)) }
        return ["lt\(splits[0])"] + (1..<splits.count).map { "\(splits[$0 - 1])_\(splits[$0])" }
            + ["gt\(splits[splits.count - 1])"]
    }

    /// One frame's row: `index` counts frames from 0, each `frameSeconds` long.
    public func add(_ frame: VADDecider.Frame, _ d: VADDecider.Detail, index: Int, frameSeconds: Double) {
        guard failure == nil else { return }
        if !headerWritten { writeHeader(bandCount: d.bandCount) }
        line.removeAll(keepingCapacity: true)
        append(fixed: Double(index + 1) * frameSeconds, decimals: 3, comma: false)
        append(flag: frame.speech)
        append(dB: frame.score)
        append(dB: frame.level)
        append(dB: frame.floor)
        append(dB: frame.echo)
        append(dB: d.loudest)
        append(flag: d.loud)
        append(flag: d.dominant)
        append(flag: d.enterTest)
        append(flag: d.exitTest)
        append(int: d.runFrames)
        if reference {
            comma()
            line.append(contentsOf: (d.echoStage?.rawValue ?? "").utf8)
            comma()
            if let delay = d.echoDelayFrames {
                append(fixed: Double(delay) * frameSeconds * 1000, decimals: 0, comma: false)
            }
            append(flag: d.onsetGuard)
        }
        for b in 0..<d.bandCount {
            append(dB: d.bands[b])
            append(dB: d.floors[b])
            append(dB: d.excess[b])
            if reference {
                append(dB: d.echoes[b])
                append(dB: d.echoMargins[b])
                append(dB: d.echoGains[b])
            }
        }
        line.append(UInt8(ascii: "\n"))
        line.withUnsafeBytes { write($0) }
    }

    /// Writes what is left and makes the file final; throws the first write error instead (the file
    /// discarded).
    public func commit() throws(AudioPipelineError) {
        if failure == nil && !headerWritten {
            writeHeader(bandCount: reference ? VADBandPairAnalyzer.splitsHz.count + 1 : 4)
        }
        if let failure {
            output.output.discard()
            throw failure
        }
        try output.commit()
    }

    /// Removes the unfinished file.
    public func discard() { output.output.discard() }

    private func writeHeader(bandCount: Int) {
        headerWritten = true
        do { try output.write(Self.header(bandCount: bandCount, reference: reference)) } catch { failure = error }
    }

    private func write(_ bytes: UnsafeRawBufferPointer) {
        do { try output.write(bytes) } catch { failure = error }
    }

    private func comma() { line.append(UInt8(ascii: ",")) }

    private func append(flag: Bool) {
        comma()
        line.append(UInt8(ascii: flag ? "1" : "0"))
    }

    private func append(int v: Int) {
        comma()
        line.append(contentsOf: String(v).utf8)
    }

    /// A level in dB, one decimal; `-inf`/`inf`/`nan` as such.
    private func append(dB v: Double) {
        comma()
        guard v.isFinite else {
            line.append(contentsOf: (v.isNaN ? "nan" : v < 0 ? "-inf" : "inf").utf8)
            return
        }
        append(fixed: v, decimals: 1, comma: false)
    }

    /// `v` with `decimals` digits after the point (0, 1 or 3), without `String(format:)`'s cost per
    /// field (an hour is 360,000 rows of ~60 fields).
    private func append(fixed v: Double, decimals: Int, comma withComma: Bool = true) {
        if withComma { comma() }
        let scale = decimals == 0 ? 1.0 : decimals == 1 ? 10.0 : 1000.0
        // Levels and times are far inside Int's range; clamp anyway so no value converts unchecked.
        let scaled = (abs(v) * scale).rounded()
        let n = Int(min(scaled, 1e15))
        if v < 0 && n != 0 { line.append(UInt8(ascii: "-")) }
        let whole = n / Int(scale)
        line.append(contentsOf: String(whole).utf8)
        guard decimals > 0 else { return }
        line.append(UInt8(ascii: "."))
        let fraction = String(n % Int(scale))
        for _ in fraction.count..<decimals { line.append(UInt8(ascii: "0")) }
        line.append(contentsOf: fraction.utf8)
    }
}
