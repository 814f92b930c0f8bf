import AudioPipelineCore
import Foundation

/// A score file of scripts/vad-scores.py: header `time_s,confidence`, one row per analysis window,
/// `time_s` the end of the window (seconds from the recording's start), the confidence in 0…1.
///
/// Checked as it is read, each problem naming the file and line: the header; two numbers per row;
/// times that step by one window (the first row's time) — a row out of order, repeated or missing
/// is an error; confidences outside 0…1 — clamped with a warning when within 0.001 of the range
/// (rounding in another tool), an error beyond it or when not a number.
public struct FrameworkScores: Sendable {
    /// The score file's path (every error and warning names it).
    public var path: String
    /// Each window's confidence, as float32 (the models' own precision; the files hold enough
    /// digits to read it back exactly).
    public var confidences: [Float]
    /// The analysis window, seconds (the first row's time).
    public var windowSeconds: Double
    /// What was off but did not stop the read: confidences just outside 0…1, clamped (one warning
    /// with their count and the first one's line).
    public var warnings: [String] = []

    /// How far outside 0…1 a confidence may lie and still be clamped (with a warning) rather than
    /// refused: rounding in another tool.
    public static let clampTolerance = 0.001
    /// How far a row's time may be from the window grid (files write microseconds).
    static let timeTolerance = 2e-6

    /// Reads and checks the score file.
    /// - Parameters:
    ///   - path: the file, as scripts/vad-scores.py writes it.
    /// - Throws: `invalidData` naming the file and line: a wrong header, no rows, a row that is not
    ///   two finite numbers, a first time outside (0, 1] s, a time off the window grid (out of order,
    ///   repeated or missing rows), a confidence beyond `clampTolerance` of 0…1; the errors of reading
    ///   the file.
    public init(path: String) throws(AudioPipelineError) {
        self.path = path
        let text = try TextInput.text(path, what: "the score file")
        // ("\r\n" is one Character in Swift: split on it as well as on "\n", or a Windows file is one line.)
        var lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.map {
            $0.hasSuffix("\r") ? $0.dropLast() : $0
        }
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard let header = lines.first, header.replacingOccurrences(of: " ", with: "") == "time_s,confidence" else {
            throw AudioPipelineError(
                .invalidData, "\(path):1: the header must be time_s,confidence (scripts/vad-scores.py writes it)")
        }
        guard lines.count > 1 else { throw AudioPipelineError(.invalidData, "\(path): no score rows after the header") }
        var values: [Float] = []
        values.reserveCapacity(lines.count - 1)
        var window = 0.0
        var clamped = 0
        var firstClamped = 0
        for (i, line) in lines.enumerated().dropFirst() {
            let number = i + 1
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 2, let t = Double(fields[0].trimmingSpaces), let c = Double(fields[1].trimmingSpaces)
            else {
                throw AudioPipelineError(.invalidData, "\(path):\(number): want time_s,confidence, not '\(line)'")
            }
            guard t.isFinite, c.isFinite else {
                throw AudioPipelineError(.invalidData, "\(path):\(number): a value is not a finite number: '\(line)'")
            }
            if i == 1 {
                guard t > 0, t <= 1 else {
                    throw AudioPipelineError(
                        .invalidData,
                        "\(path):2: the first time_s, \(t), must be the end of the first window (0 < t ≤ 1 s)")
                }
                window = t
            }
            let expected = Double(i) * window
            if abs(t - expected) > Self.timeTolerance * Double(i).squareRoot() + 1e-9 {
                let ms = String(format: "%g", window * 1000)
                let what = t <= Double(i - 1) * window + Self.timeTolerance ? "out of order or repeated, off" : "not on"
                throw AudioPipelineError(
                    .invalidData,
                    "\(path):\(number): time_s \(t) is \(what) the grid of \(ms) ms windows "
                        + "(row \(i) should end at \(String(format: "%.6f", expected)) s)")
            }
            var v = c
            if c < 0 || c > 1 {
                guard c >= -Self.clampTolerance && c <= 1 + Self.clampTolerance else {
                    throw AudioPipelineError(.invalidData, "\(path):\(number): confidence \(c) is outside 0…1")
                }
                if clamped == 0 { firstClamped = number }
                clamped += 1
                v = min(1, max(0, c))
            }
            values.append(Float(v))
        }
        if clamped > 0 {
            warnings.append(
                "\(path):\(firstClamped): \(clamped) confidence\(clamped == 1 ? "" : "s") just outside 0…1 clamped")
        }
        confidences = values
        windowSeconds = window
    }

    /// The window in samples at `rate` (the framework's analysis rate), if the file's window is a
    /// whole number of them.
    public func windowSamples(rate: Int) throws(AudioPipelineError) -> Int {
        let w = windowSeconds * Double(rate)
        guard abs(w - w.rounded()) < 0.01, w >= 1 else {
            throw AudioPipelineError(
                .invalidData,
                "\(path): windows of \(windowSeconds * 1000) ms are not a whole number of samples at \(rate) Hz")
        }
        return Int(w.rounded())
    }

    /// Refuses scores that do not cover the recording: a streaming framework scores every complete
    /// window, so there must be ⌊duration / window⌋ of them (± `slack` windows where the framework
    /// converted the rate and its resampler's delay moves the count).
    public func check(duration: Double, audioPath: String, slack: Int = 0) throws(AudioPipelineError) {
        let expected = Int((duration / windowSeconds + 1e-6).rounded(.down))
        let n = confidences.count
        if n < expected - slack {
            throw AudioPipelineError(
                .invalidData,
                "\(path):\(n + 1): the scores end at \(String(format: "%.3f", Double(n) * windowSeconds)) s, shorter "
                    + "than \(audioPath) (\(String(format: "%.3f", duration)) s: \(expected) windows); scores of "
                    + "another recording?")
        }
        if n > expected + slack {
            throw AudioPipelineError(
                .invalidData,
                "\(path):\(expected + 2): the scores go on to \(String(format: "%.3f", Double(n) * windowSeconds)) s, "
                    + "longer than \(audioPath) (\(String(format: "%.3f", duration)) s: \(expected) windows); scores "
                    + "of another recording?")
        }
    }
}
