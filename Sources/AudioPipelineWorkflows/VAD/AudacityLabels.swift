import AudioPipelineCore
import Foundation

/// Audacity label files.
public enum AudacityLabels {
    static let nonSpeech: Set<String> = ["nonspeech", "non-speech", "silence", "noise"]

    /// Reads speech intervals (labels other than nonspeech/silence/noise), merged. Malformed lines
    /// are an error naming the file and line.
    public static func read(path: String) throws(AudioPipelineError) -> [SpeechSegment] {
        merge(try entries(path: path).map(\.segment))
    }

    /// The speech labels as written, unmerged, each with its line number (from 1).
    public static func entries(path: String) throws(AudioPipelineError) -> [(segment: SpeechSegment, line: Int)] {
        let text = try TextInput.text(path, what: "the label file")
        var segments: [(segment: SpeechSegment, line: Int)] = []
        for (k, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("\\") { continue }  // blank, or Audacity's frequency line
            let parts =
                line.contains("\t")
                ? line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                : line.split(separator: " ").map(String.init)
            guard parts.count >= 2, let s = Double(parts[0].trimmingCharacters(in: .whitespaces)),
                let e = Double(parts[1].trimmingCharacters(in: .whitespaces)),
                s.isFinite, e.isFinite
            else {
                throw AudioPipelineError(
                    .invalidData, "\(path):\(k + 1): expected 'start<TAB>end[<TAB>label]' in seconds, got '\(line)'")
            }
            guard e >= s else {
                throw AudioPipelineError(.invalidData, "\(path):\(k + 1): end \(e) is before start \(s)")
            }
            guard s >= 0, e <= 1e7 else {
                throw AudioPipelineError(
                    .invalidData, "\(path):\(k + 1): times must lie in 0…10000000 s, got \(s)…\(e)")
            }
            let label = parts.count > 2 ? parts[2].trimmingCharacters(in: .whitespaces).lowercased() : "speech"
            if nonSpeech.contains(label) || e == s { continue }
            segments.append((SpeechSegment(start: s, end: e), k + 1))
        }
        return segments
    }

    /// The segments sorted, overlapping or touching ones joined.
    public static func merge(_ segments: [SpeechSegment]) -> [SpeechSegment] {
        var out: [SpeechSegment] = []
        for s in segments.sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }) {
            if let last = out.last, s.start <= last.end + 1e-6 {
                out[out.count - 1].end = max(last.end, s.end)
            } else {
                out.append(s)
            }
        }
        return out
    }

    /// Audacity label text: `start<TAB>end<TAB>speech` per segment, seconds to 6 decimals.
    public static func format(_ segments: [SpeechSegment]) -> String {
        segments.map { String(format: "%.6f\t%.6f\tspeech\n", $0.start, $0.end) }.joined()
    }
}
