/// A labelled or detected speech interval, seconds.
public struct SpeechSegment: Sendable, Hashable, Codable {
    /// Start, s.
    public var start: Double
    /// End, s (after `start`).
    public var end: Double
    /// A segment from `start` to `end` seconds.
    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }
}

/// Turns the detector's per-frame decisions into speech segments.
///
/// Streaming (default): a segment starts at the end of the frame whose decision turned speech on
/// (when a live client learns of it) and ends at the end of the first frame decided non-speech.
/// `align`: starts move back to the first frame of the confirming run, minus the pre-roll, and
/// ends to the end of the last speech frame — what offline labelling wants.
public struct SpeechSegmenter: Sendable {
    /// Length of one decision frame, s.
    public let frameSeconds: Double
    /// The detector's configuration (its pre-roll, when aligning).
    public let configuration: VADConfiguration
    /// Offline alignment of the segments (see the type's discussion) instead of when a client learns of them.
    public let align: Bool

    /// A segmenter for decisions of `frameSeconds` each.
    public init(frameSeconds: Double, configuration: VADConfiguration, align: Bool = false) {
        self.frameSeconds = frameSeconds
        self.configuration = configuration
        self.align = align
    }

    /// The segments of `decisions` (one per frame from the stream's start) within `duration` seconds.
    public func segments(_ decisions: [Bool], duration: Double) -> [SpeechSegment] {
        let f = frameSeconds, c = configuration
        var out: [SpeechSegment] = []
        let confirm = Double(c.onsetFrames)
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
