import AudioPipelineCore

/// What barge-in lives by, added up over files with a far-end reference: user onsets during agent
/// playout, those missed, the barge-in latencies (ms), false barge-ins and the minutes of
/// agent-only playout they are counted against. Additive, as `VADScoring.Counts`.
public struct VADBargeInCounts: Sendable, Hashable {
    /// User onsets during agent playout: labelled user segments that start while a response plays.
    public var onsets = 0
    /// Of `onsets`, those no barge-in answered (during the segment or within 0.5 s of its end).
    public var missed = 0
    /// Barge-ins with no user speech (none within a user segment or 0.5 s after its end).
    public var falseBargeIns = 0
    /// Agent playout without user speech, minutes: what false barge-ins are counted per.
    public var agentOnlyMinutes = 0.0
    /// The latency of each answered onset, from the user's onset to the barge-in, ms.
    public var latenciesMs: [Double] = []
    /// All zero (no files).
    public init() {}

    /// The counts of both (pooling files).
    /// - Parameters:
    ///   - a: one file's (or pool's) counts.
    ///   - b: another's.
    public static func + (a: Self, b: Self) -> Self {
        var c = a
        c.onsets += b.onsets
        c.missed += b.missed
        c.falseBargeIns += b.falseBargeIns
        c.agentOnlyMinutes += b.agentOnlyMinutes
        c.latenciesMs += b.latenciesMs
        return c
    }
}

/// `vad tune`'s barge-in figures for one recording and one setting, by the session simulator's
/// recorded mode (`session simulate --recorded MIC --reference REF --user-labels LABELS`) without
/// running it: the detector's decisions (already made, over the corpus's band features) are
/// replayed tick by tick against the reference's responses (`RecordedResponses`, the simulator's
/// own), the barge-in policy applied as `SessionEngine` applies it, and the barge-ins counted by
/// `SessionMetrics.bargeIns`. So a policy costs no detector run: every `min_barge_in_ms` and
/// `ignore_first_ms` of a grid reuses one run of the detector.
///
/// The one difference from the simulator: it runs the detector at the wire profile's rate (the
/// microphone converted), this at the recording's own — the figures are the simulator's exactly
/// when the two are equal (a 16 kHz recording and a 16 kHz profile; a test holds them equal).
enum VADBargeInReplay {
    /// The reference's responses, measured once per file (device samples at the recording's rate).
    struct Playout: Sendable {
        var levels: FrameLevels.Measured
        var samples: Int
        var rate: Int
    }

    static let tickMs = 10.0
    static let responseGapMs = SessionConfiguration().responseGapMs

    /// Replays `frames` (the detector's decisions, `frameSeconds` apart from time 0, each counted as
    /// `frameMilliseconds` of speech as the simulator counts them) against the reference's responses
    /// under `policy`, scoring against the user's speech `user`.
    static func counts(
        frames: [VADDecider.Frame], frameSeconds frameS: Double, frameMilliseconds: Double, playout: Playout,
        user: [SpeechSegment], policy: BargeInPolicy
    ) -> VADBargeInCounts {
        let rate = Double(playout.rate)
        let tickS = tickMs / 1000
        let tickFrames = rate * tickS
        var tracker = RecordedResponses(
            levels: playout.levels, count: playout.samples, responseGapMs: responseGapMs)
        var playing: [Int32] = []
        playing.reserveCapacity(Int((Double(playout.samples) / tickFrames).rounded(.up)) + 1)
        var interrupts: [SessionReport.Interrupt] = []
        var responseStartS: [Int64: Double] = [:]
        var flushed: Set<Int64> = []
        var speechMs = 0.0
        var next = 0  // the next frame to decide on
        var k = 0
        var position = 0
        while position < playout.samples {
            k += 1
            let end = min(playout.samples, Int((Double(k) * tickFrames).rounded()))
            let r = tracker.advance(position..<end, userSpeaking: speechMs > 0)
            let current = tracker.playing(r)
            if let p = current, responseStartS[p] == nil { responseStartS[p] = Double(position) / rate }
            let endS = Double(end) / rate
            var bargeIn: Int64?
            // The frames complete by the tick's end, as the simulator's detector hands them over.
            while next < frames.count && Double(next + 1) * frameS <= endS + 1e-9 {
                let f = frames[next]
                next += 1
                speechMs = f.speech ? speechMs + frameMilliseconds : 0
                guard bargeIn == nil, f.speech, speechMs >= policy.minimumSpeechMs, let p = current,
                    !flushed.contains(p)
                else { continue }
                let age = (endS - (responseStartS[p] ?? endS)) * 1000
                if age >= policy.ignoreFirstMs { bargeIn = p }
            }
            if let p = bargeIn {
                flushed.insert(p)
                interrupts.append(
                    SessionReport.Interrupt(
                        timeS: endS, response: p, userOnset: nil, falseBargeIn: true, itemId: "", audioEndMs: 0))
                tracker.flush(at: end)
            }
            playing.append(current.map { Int32(clamping: $0) } ?? -1)
            position = end
        }
        let found = SessionMetrics.bargeIns(
            user: user, playing: playing, tickS: tickS, interrupts: &interrupts, lastAudibleS: [:])
        var c = VADBargeInCounts()
        c.onsets = found.bargeIns.count
        c.missed = found.bargeIns.count { $0.detectedS == nil }
        c.latenciesMs = found.bargeIns.compactMap(\.latencyMs)
        c.falseBargeIns = interrupts.count { $0.falseBargeIn }
        c.agentOnlyMinutes = found.agentOnlyMinutes
        return c
    }
}
