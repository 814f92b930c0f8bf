import AudioPipelineCore
import Foundation

/// What a simulated session measured (`report.json`, `--json`). Times are seconds on the device
/// timeline (sample 0 of the microphone and the loudspeaker is time 0); durations ms.
public struct SessionReport: WorkflowReport, Codable, Hashable {
    /// One user onset during agent playout.
    public struct BargeIn: Codable, Sendable, Hashable {
        /// When the user started talking, s.
        public var userOnsetS: Double
        /// When the client flushed the agent (nil: missed).
        @NullWhenAbsent public var detectedS: Double?
        /// From the onset to the flush, ms (nil: missed).
        @NullWhenAbsent public var latencyMs: Double?
        /// Agent audio still audible after the user's onset (what heard.wav shows), ms.
        public var talkOverMs: Double
        /// The response that was playing.
        public var response: Int64
    }

    /// Every barge-in the client made, true or false.
    public struct Interrupt: Codable, Sendable, Hashable {
        /// When the client flushed the agent, s.
        public var timeS: Double
        /// The response it stopped.
        public var response: Int64
        /// Index into `bargeIns` of the user onset it answers (nil: none).
        @NullWhenAbsent public var userOnset: Int?
        /// No user speech at the time (from its onset to `SessionMetrics.graceS` after its end): the
        /// agent stopped for nothing (echo, noise).
        public var falseBargeIn: Bool
        /// The conversation item of the response (a captured session's `item_id`, else made up) and
        /// the milliseconds of it the loudspeaker had played when the client stopped it (what the
        /// truncate message says: played, not received or queued).
        public var itemId: String
        /// Milliseconds of the response played when it stopped.
        public var audioEndMs: Int
    }

    /// `synthetic` or `recorded`.
    public var mode: String
    /// The wire profile's name.
    public var profile: String
    /// The session's length, s.
    public var durationS: Double
    /// Every user onset during agent playout, found or missed.
    public var bargeIns: [BargeIn]
    /// Median barge-in latency over the onsets found, ms (nil: none found).
    @NullWhenAbsent public var latencyMsP50: Double?
    /// 90th percentile of the barge-in latency over the onsets found, ms (missed ones are not in it:
    /// see `missedBargeIns`).
    @NullWhenAbsent public var latencyMsP90: Double?
    /// User onsets during agent playout the client never answered.
    public var missedBargeIns: Int
    /// Barge-ins with no user speech (the agent stopped for its echo or noise).
    public var falseBargeIns: Int
    /// Agent playout without user speech, minutes (what false barge-ins are counted against).
    public var agentOnlyMinutes: Double
    /// All agent playout (a response in progress), minutes, user speech or not.
    public var agentPlayoutMinutes: Double
    /// False barge-ins per minute of agent-only playout (nil: no such playout).
    @NullWhenAbsent public var falseBargeInsPerMinute: Double?
    /// Median talk-over over all onsets, ms.
    @NullWhenAbsent public var talkOverMsP50: Double?
    /// Every barge-in the client made, in time order.
    public var interrupts: [Interrupt]
    /// Interrupt messages sent (profiles that have one).
    public var interruptMessagesSent: Int
    /// Client messages sent (audio and control).
    public var messagesSent: Int
    /// From a chunk's last microphone sample to its message being sent, ms.
    public var micToMessageMsP50: Double
    /// The longest of those, ms.
    public var micToMessageMsMax: Double
    /// The jitter buffer's accounting (synthetic mode): late loss, concealment, delay, flushes.
    @NullWhenAbsent public var playout: JitterMetrics?
    /// Responses of the agent, user speech segments in the labels.
    public var responses: Int
    /// User speech segments (labelled or derived).
    public var userSegments: Int
    /// Mean level of the echo at the microphone and of the user's speech there, dBFS (synthetic).
    @NullWhenAbsent public var echoLevelDbfs: Double?
    /// What the VAD's echo model had found at the session's end: the echo delay (the direct path's,
    /// to the client's 10 ms frames; nil: not found), the echo return loss per band and its basis.
    @NullWhenAbsent public var echoEstimate: VADEchoSummary?
    /// The configuration the session ran with.
    public var configuration: SessionConfiguration
    /// The output directory (nil when run without outputs).
    @NullWhenAbsent public var output: String?
    public var warnings: [String]

    /// The headline a person reads.
    public var text: String {
        func ms(_ v: Double?) -> String { v.map { String(format: "%.0f ms", $0) } ?? "n/a" }
        let detected = bargeIns.count - missedBargeIns
        var lines = [
            String(
                format: "%@ session, %.1f s, profile %@: %d user onset(s) during agent playout, %d detected, %d missed",
                mode, durationS, profile, bargeIns.count, detected, missedBargeIns),
            "  barge-in latency p50 \(ms(latencyMsP50)), p90 \(ms(latencyMsP90)); talk-over p50 \(ms(talkOverMsP50))",
            String(
                format: "  false barge-ins %d in %.2f min of agent-only playout (%@ per min)", falseBargeIns,
                agentOnlyMinutes, falseBargeInsPerMinute.map { String(format: "%.2f", $0) } ?? "n/a"),
            String(
                format: "  %d messages sent (%d interrupt), mic to message p50 %.1f ms, max %.1f ms", messagesSent,
                interruptMessagesSent, micToMessageMsP50, micToMessageMsMax),
        ]
        if let e = echoEstimate { lines.append("  " + e.text) }
        if let p = playout {
            lines.append(
                String(
                    format: "  playout: late %.2f %%, concealed %.2f %%, mean delay %.0f ms, %d flush(es)",
                    p.lateLossPct, p.concealPct, p.meanDelayMs, p.flushes))
        }
        if let output { lines.append("  -> \(output)/report.html") }
        return lines.joined(separator: "\n")
    }
}

/// The measurements of one tick (the events.jsonl row, and what the metrics and the timeline use).
public struct SessionTick: Sendable, Hashable {
    /// End of the tick on the device timeline, s.
    public var timeS: Double
    /// The response the agent is playing (nil: none).
    public var playing: Int64?
    /// Largest VAD score of the tick's frames and the decision of its last frame.
    public var vadScore: Double
    /// The last frame's decision was speech.
    public var vadSpeech: Bool
    /// Audio queued in the jitter buffer, ms.
    public var bufferMs: Double
    /// RMS levels of the tick, dBFS: loudspeaker, echo at the microphone, microphone.
    public var heardDbfs: Double
    /// The echo at the microphone, dBFS.
    public var echoDbfs: Double
    /// The microphone (echo, user and noise), dBFS.
    public var micDbfs: Double
    /// Concealed (silence inside a response) and late audio so far, ms.
    public var concealedMs: Double
    /// Late audio so far, ms.
    public var lateMs: Double
    /// The client barged in during the tick.
    public var bargeIn: Bool
}

enum SessionMetrics {
    /// Nearest-rank percentile of `values` (nil when empty).
    static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        return s[min(s.count - 1, max(0, Int((p * Double(s.count)).rounded(.up)) - 1))]
    }

    /// Seconds after a user segment's end in which a barge-in still answers it.
    static let graceS = 0.5

    /// The barge-in metrics from the user's speech, the response playing in each tick (−1: none;
    /// `SessionEngine.tickPlaying`), the client's interrupts and the last audible loudspeaker sample
    /// of each response.
    static func bargeIns(
        user: [SpeechSegment], playing: [Int32], tickS: Double, interrupts: inout [SessionReport.Interrupt],
        lastAudibleS: [Int64: Double]
    ) -> (bargeIns: [SessionReport.BargeIn], agentOnlyMinutes: Double) {
        func tickIndex(_ t: Double) -> Int { min(playing.count - 1, max(0, Int((t / tickS).rounded(.down)))) }
        var out: [SessionReport.BargeIn] = []
        for segment in user where !playing.isEmpty {
            let p = playing[tickIndex(segment.start)]
            guard p >= 0 else { continue }
            let response = Int64(p)
            let answer = interrupts.indices.first {
                interrupts[$0].userOnset == nil && interrupts[$0].response == response
                    && interrupts[$0].timeS >= segment.start && interrupts[$0].timeS <= segment.end + graceS
            }
            if let answer { interrupts[answer].userOnset = out.count }
            let detected = answer.map { interrupts[$0].timeS }
            let audibleUntil = lastAudibleS[response] ?? segment.start
            out.append(
                SessionReport.BargeIn(
                    userOnsetS: segment.start, detectedS: detected,
                    latencyMs: detected.map { ($0 - segment.start) * 1000 },
                    talkOverMs: max(0, audibleUntil - segment.start) * 1000, response: response))
        }
        // A barge-in while the user speaks is not false, also when the speech did not start in
        // agent playout (the user was already talking when a response began).
        for k in interrupts.indices {
            let t = interrupts[k].timeS
            interrupts[k].falseBargeIn = !user.contains { t >= $0.start && t <= $0.end + graceS }
        }
        var agentOnly = 0
        var s = 0
        for (k, p) in playing.enumerated() where p >= 0 {
            let start = Double(k) * tickS
            while s < user.count && user[s].end + graceS <= start { s += 1 }
            if !(s < user.count && user[s].start <= start + tickS) { agentOnly += 1 }
        }
        return (out, Double(agentOnly) * tickS / 60)
    }
}

/// The figures one row of a table of sessions shows (a sweep's value, a scenario).
public struct SessionHeadline: Codable, Sendable, Hashable {
    /// User onsets during agent playout.
    public var bargeIns = 0
    /// Of them, never answered.
    public var missedBargeIns = 0
    /// Barge-ins with no user speech.
    public var falseBargeIns = 0
    /// Agent playout without user speech, minutes.
    public var agentOnlyMinutes = 0.0
    /// False barge-ins per minute of agent-only playout.
    @NullWhenAbsent public var falseBargeInsPerMinute: Double?
    /// Median barge-in latency over the onsets found, ms.
    @NullWhenAbsent public var latencyMsP50: Double?
    /// 90th percentile of the barge-in latency over the onsets found, ms.
    @NullWhenAbsent public var latencyMsP90: Double?
    /// Median talk-over, ms.
    @NullWhenAbsent public var talkOverMsP50: Double?

    /// All zero and nil (a row that did not run).
    public init() {}

    /// The headline figures of `r`.
    public init(_ r: SessionReport) {
        (bargeIns, missedBargeIns, falseBargeIns) = (r.bargeIns.count, r.missedBargeIns, r.falseBargeIns)
        (agentOnlyMinutes, falseBargeInsPerMinute) = (r.agentOnlyMinutes, r.falseBargeInsPerMinute)
        (latencyMsP50, latencyMsP90, talkOverMsP50) = (r.latencyMsP50, r.latencyMsP90, r.talkOverMsP50)
    }

    /// The text table's columns after the row's name.
    public static let header = "onsets  missed  false  false/min  latency p50  p90  talk-over p50"

    /// The text table's columns after the row's name (see `header`).
    public var columns: String {
        func f(_ v: Double?, _ format: String) -> String { v.map { String(format: format, $0) } ?? "n/a" }
        return "\(bargeIns)  \(missedBargeIns)  \(falseBargeIns)  \(f(falseBargeInsPerMinute, "%.2f"))  "
            + "\(f(latencyMsP50, "%.0f ms"))  \(f(latencyMsP90, "%.0f ms"))  \(f(talkOverMsP50, "%.0f ms"))"
    }

    /// The CSV columns after the row's name, and their values.
    public static let csvHeader = [
        "user_onsets", "missed", "false_barge_ins", "agent_only_min", "false_per_min", "latency_p50_ms",
        "latency_p90_ms", "talk_over_p50_ms",
    ]

    /// The CSV fields after the row's name (see `csvHeader`); empty where a figure is nil.
    public var csvFields: [String] {
        func f(_ v: Double?) -> String { v.map { NumberText.plain($0) } ?? "" }
        return [String(bargeIns), String(missedBargeIns), String(falseBargeIns), NumberText.plain(agentOnlyMinutes)]
            + [f(falseBargeInsPerMinute), f(latencyMsP50), f(latencyMsP90), f(talkOverMsP50)]
    }
}
