import AudioPipelineCore
import Foundation

/// A labelled or detected speech interval, seconds.
public struct SpeechSegment: Sendable, Hashable {
    public var start: Double
    public var end: Double
    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }
}

/// Reading audio for the VAD: any file, any channel count (mixed to mono), at its own rate.
public enum VADAudio {
    public static func readMono(path: String) throws(AudioPipelineError) -> (samples: [Float], rate: Int) {
        let reader = try AudioFileReader(path: path)
        let channels = reader.format.channels
        var interleaved: [Float] = []
        var block = [Float](repeating: 0, count: 8192 * channels)
        while true {
            let got = try block.withUnsafeMutableBufferPointer { (p) throws(AudioPipelineError) in try reader.read(into: p) }
            if got == 0 { break }
            interleaved.append(contentsOf: block[0..<(got * channels)])
        }
        if channels == 1 { return (interleaved, reader.format.sampleRate.hz) }
        var mixer = try ChannelMixer(channels: channels)
        return (mixer.processAll(interleaved), reader.format.sampleRate.hz)
    }

    /// The far-end reference on the mic's timeline: converted to mono at `rate`, padded with silence
    /// or cut to `length`. Returns a warning when the length had to change.
    public static func readReference(path: String, rate: Int, length: Int) throws(AudioPipelineError) -> (samples: [Float], warning: String?) {
        let (samples, refRate) = try readMono(path: path)
        var r = samples
        if refRate != rate {
            var resampler = try PolyphaseResampler(format: try ResamplingFormat(from: try SampleRate(refRate), to: try SampleRate(rate)))
            r = resampler.processAll(r)
        }
        var warning: String?
        if r.count != length {
            warning = "\(path): reference has \(r.count) samples, the microphone \(length); \(r.count < length ? "padded with silence" : "cut")"
            if r.count < length { r += [Float](repeating: 0, count: length - r.count) } else { r.removeLast(r.count - length) }
        }
        return (r, warning)
    }
}

/// Runs the streaming detector over a whole file (reference optional) and turns its per-frame
/// decisions into segments on the streaming timeline.
public struct VADRun: Sendable {
    public var frames: [VADDecider.Frame]
    public var frameSeconds: Double
    public var duration: Double
    public var configuration: VADConfiguration

    public init(samples: [Float], rate: Int, reference: [Float]?, configuration: VADConfiguration) throws(AudioPipelineError) {
        var vad = try EnergyVAD(sampleRate: rate, configuration: configuration)
        // One call takes everything when the output holds maxOutputCount decisions; then finish.
        var frames = [VADDecider.Frame](
            repeating: VADDecider.Frame(level: 0, floor: 0, echo: 0, score: 0, speech: false),
            count: vad.maxOutputCount(forInput: samples.count) + vad.maxOutputCount(forInput: 0))
        let produced = samples.withUnsafeBufferPointer { mic in
            frames.withUnsafeMutableBufferPointer { out -> Int in
                let r: ProcessResult
                if let reference {
                    r = reference.withUnsafeBufferPointer { vad.process(mic, reference: $0, into: out) }
                } else {
                    r = vad.process(mic, into: out)
                }
                return r.produced + vad.finish(into: UnsafeMutableBufferPointer(rebasing: out[r.produced...]))
            }
        }
        frames.removeLast(frames.count - produced)
        self.frames = frames
        frameSeconds = Double(vad.frameLength) / Double(rate)
        duration = Double(samples.count) / Double(rate)
        self.configuration = configuration
    }

    public init(frames: [VADDecider.Frame], frameSeconds: Double, duration: Double, configuration: VADConfiguration) {
        self.frames = frames
        self.frameSeconds = frameSeconds
        self.duration = duration
        self.configuration = configuration
    }

    /// Speech segments. Streaming (default): a segment starts at the end of the frame whose decision
    /// turned speech on and ends at the end of the first frame decided non-speech. `align`: starts
    /// are moved back to the first frame of the confirming run, minus the pre-roll; ends to the end
    /// of the last speech frame.
    public func segments(align: Bool = false) -> [SpeechSegment] {
        Self.segments(decisions: frames.map(\.speech), frameSeconds: frameSeconds, duration: duration, configuration: configuration, align: align)
    }

    public static func segments(decisions: [Bool], frameSeconds f: Double, duration: Double, configuration c: VADConfiguration, align: Bool) -> [SpeechSegment] {
        var out: [SpeechSegment] = []
        let confirm = Double(c.confirmFrames)
        var i = 0
        let n = decisions.count
        while i < n {
            guard decisions[i] else { i += 1; continue }
            var j = i
            while j + 1 < n && decisions[j + 1] { j += 1 }
            var start = Double(i + 1) * f
            var end = min(duration, Double(j + 2) * f)
            if align {
                start = max(0, Double(i + 1) * f - confirm * f - c.preRollMilliseconds / 1000)
                end = min(duration, Double(j + 1) * f)
            }
            if end > start { out.append(SpeechSegment(start: start, end: end)) }
            i = j + 1
        }
        return out
    }
}

/// Audacity label files.
public enum AudacityLabels {
    static let nonSpeech: Set<String> = ["nonspeech", "non-speech", "silence", "noise"]

    /// Reads speech intervals (labels other than nonspeech/silence/noise), merged. Malformed lines
    /// are an error naming the file and line.
    public static func read(path: String) throws(AudioPipelineError) -> [SpeechSegment] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AudioPipelineError(.inputUnavailable, "\(path): cannot read the label file")
        }
        let text = String(decoding: data, as: UTF8.self)
        var segments: [SpeechSegment] = []
        for (k, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("\\") { continue }  // blank, or Audacity's frequency line
            let parts = line.contains("\t") ? line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                                            : line.split(separator: " ").map(String.init)
            guard parts.count >= 2, let s = Double(parts[0].trimmingCharacters(in: .whitespaces)), let e = Double(parts[1].trimmingCharacters(in: .whitespaces)),
                  s.isFinite, e.isFinite else {
                throw AudioPipelineError(.invalidData, "\(path):\(k + 1): expected 'start<TAB>end[<TAB>label]' in seconds, got '\(line)'")
            }
            guard e >= s else { throw AudioPipelineError(.invalidData, "\(path):\(k + 1): end \(e) is before start \(s)") }
            let label = parts.count > 2 ? parts[2].trimmingCharacters(in: .whitespaces).lowercased() : "speech"
            if nonSpeech.contains(label) || e == s { continue }
            segments.append(SpeechSegment(start: s, end: e))
        }
        return merge(segments)
    }

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

    public static func format(_ segments: [SpeechSegment]) -> String {
        segments.map { String(format: "%.6f\t%.6f\tspeech\n", $0.start, $0.end) }.joined()
    }
}
