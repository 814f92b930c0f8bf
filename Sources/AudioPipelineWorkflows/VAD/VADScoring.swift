import AudioPipelineCore
import Foundation

/// The VAD kit's metrics (../shared/eval/vad/score.py), with the same definitions: 10 ms frames, a
/// frame is speech when its centre lies inside an interval; onsets after ≥ 200 ms of non-speech,
/// detected within 500 ms (cut at the next reference segment); latencies over detected onsets, fresh
/// ones only where the hypothesis was off; false triggers = hypothesis segments touching no
/// reference speech. Counts are additive, so pooling = adding `Counts`.
public enum VADScoring {
    static let hop = 0.01
    static let minimumGap = 0.2
    static let onsetWindow = 0.5

    /// Additive counts of one file (or pooled files) against its labels.
    public struct Counts: Sendable, Hashable {
        /// 10 ms frames: true and false positives, false and true negatives.
        public var tp = 0, fp = 0, fn = 0, tn = 0
        /// Length scored, s.
        public var duration = 0.0
        /// Labelled onsets, those detected, those already on before them, and false triggers.
        public var onsets = 0, detected = 0, pre = 0, falseTriggers = 0
        /// Onset latencies of the detected onsets, s.
        public var latencies: [Double] = []
        /// Latencies of the fresh onsets (the hypothesis was off before them), s.
        public var freshLatencies: [Double] = []
        /// The barge-ins of the files with a far-end reference (`VADBargeInReplay`).
        public var bargeIn = VADBargeInCounts()
        /// All zero.
        public init() {}

        /// The counts of both (pooling).
        public static func + (a: Counts, b: Counts) -> Counts {
            var c = a
            c.tp += b.tp; c.fp += b.fp; c.fn += b.fn; c.tn += b.tn
            c.duration += b.duration
            c.onsets += b.onsets; c.detected += b.detected; c.pre += b.pre; c.falseTriggers += b.falseTriggers
            c.latencies += b.latencies
            c.freshLatencies += b.freshLatencies
            c.bargeIn = c.bargeIn + b.bargeIn
            return c
        }
    }

    /// The kit's metrics of some `Counts` (NaN where undefined: no speech, no onsets).
    public struct Metrics: Sendable, Hashable {
        /// Frame precision, recall and F1; false-alarm rate and miss rate.
        public var precision, recall, f1, falseAlarm, miss: Double
        /// Onsets detected (fraction); latency p50 and p90, all and fresh, ms.
        public var onsetDetection, latencyP50, latencyP90, freshLatencyP50, freshLatencyP90: Double
        /// Onsets the hypothesis was already on for (fraction); false triggers per minute.
        public var preOn, falseTriggersPerMinute: Double
        /// Labelled onsets.
        public var onsets: Int
        /// With far-end references, the session simulator's barge-in figures (NaN without):
        /// missed barge-ins (a fraction of the user onsets during agent playout), false barge-ins
        /// per minute of agent-only playout, barge-in latency p50 and p90 (nearest rank, ms).
        public var missedBargeIns = Double.nan
        /// False barge-ins per minute of agent-only playout (NaN without agent-only playout).
        public var falseBargeInsPerMinute = Double.nan
        /// Barge-in latency p50 over the answered onsets, nearest rank, ms (NaN: none answered).
        public var bargeInLatencyP50 = Double.nan
        /// Barge-in latency p90 over the answered onsets, nearest rank, ms (NaN: none answered).
        public var bargeInLatencyP90 = Double.nan
        /// User onsets during agent playout, which the barge-in figures are over (0 without
        /// references).
        public var bargeInOnsets = 0

        /// The metrics' names in reports, in the order of `values`.
        public static let names = [
            "f1", "precision", "recall", "false_alarm", "miss", "onset_detect", "lat_p50_ms", "lat_p90_ms",
            "fresh_lat_p50_ms", "fresh_lat_p90_ms", "pre_on", "ft_per_min", "missed_barge_in",
            "false_barge_in_per_min", "barge_in_lat_p50_ms", "barge_in_lat_p90_ms",
        ]
        /// The metrics in the order of `names`.
        public var values: [Double] {
            [
                f1, precision, recall, falseAlarm, miss, onsetDetection, latencyP50, latencyP90, freshLatencyP50,
                freshLatencyP90, preOn, falseTriggersPerMinute, missedBargeIns, falseBargeInsPerMinute,
                bargeInLatencyP50, bargeInLatencyP90,
            ]
        }
    }

    static func frames(_ segments: [SpeechSegment], count n: Int) -> [Bool] {
        var m = [Bool](repeating: false, count: n)
        for s in segments {
            let a = max(0, Int((s.start / hop - 0.5).rounded(.up)))
            let b = min(n, Int((s.end / hop - 0.5).rounded(.up)))
            if b > a { for i in a..<b { m[i] = true } }
        }
        return m
    }

    /// Scores `hypothesis` against `reference` over `duration` seconds.
    public static func score(reference: [SpeechSegment], hypothesis: [SpeechSegment], duration: Double) -> Counts {
        let n = Int((duration / hop - 1e-9).rounded(.up))
        let r = frames(reference, count: n), h = frames(hypothesis, count: n)
        var c = Counts()
        for i in 0..<n {
            switch (r[i], h[i]) {
            case (true, true): c.tp += 1
            case (false, true): c.fp += 1
            case (true, false): c.fn += 1
            case (false, false): c.tn += 1
            }
        }
        c.duration = duration
        for (i, seg) in reference.enumerated() {
            let previousEnd = i > 0 ? reference[i - 1].end : 0
            if seg.start - previousEnd < minimumGap { continue }
            c.onsets += 1
            var windowEnd = seg.start + onsetWindow
            if i + 1 < reference.count { windowEnd = min(windowEnd, reference[i + 1].start) }
            let starts = hypothesis.filter { $0.end > seg.start && $0.start < windowEnd }.map(\.start)
            let pre = hypothesis.contains { $0.start <= seg.start && seg.start < $0.end }
            if pre { c.pre += 1 }
            if let first = starts.min() {
                c.detected += 1
                c.latencies.append(max(0, first - seg.start))
                if !pre { c.freshLatencies.append(first - seg.start) }
            }
        }
        for hs in hypothesis where !reference.contains(where: { hs.end > $0.start && hs.start < $0.end }) {
            c.falseTriggers += 1
        }
        return c
    }

    /// numpy's default percentile (linear interpolation).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let v = values.sorted()
        let x = Double(v.count - 1) * p / 100
        let lo = Int(x.rounded(.down)), hi = min(v.count - 1, lo + 1)
        return v[lo] + (v[hi] - v[lo]) * (x - Double(lo))
    }

    /// The metrics of `t`.
    public static func metrics(_ t: Counts) -> Metrics {
        let p = t.tp + t.fp > 0 ? Double(t.tp) / Double(t.tp + t.fp) : .nan
        let r = t.tp + t.fn > 0 ? Double(t.tp) / Double(t.tp + t.fn) : .nan
        let f1 = (t.tp + t.fp > 0 && t.tp + t.fn > 0 && p + r > 0) ? 2 * p * r / (p + r) : 0
        let b = t.bargeIn
        return Metrics(
            precision: p, recall: r, f1: f1,
            falseAlarm: t.fp + t.tn > 0 ? Double(t.fp) / Double(t.fp + t.tn) : .nan,
            miss: t.tp + t.fn > 0 ? Double(t.fn) / Double(t.tp + t.fn) : .nan,
            onsetDetection: t.onsets > 0 ? Double(t.detected) / Double(t.onsets) : .nan,
            latencyP50: percentile(t.latencies, 50) * 1000, latencyP90: percentile(t.latencies, 90) * 1000,
            freshLatencyP50: percentile(t.freshLatencies, 50) * 1000,
            freshLatencyP90: percentile(t.freshLatencies, 90) * 1000,
            preOn: t.onsets > 0 ? Double(t.pre) / Double(t.onsets) : .nan,
            falseTriggersPerMinute: t.duration > 0 ? Double(t.falseTriggers) / (t.duration / 60) : .nan,
            onsets: t.onsets,
            missedBargeIns: b.onsets > 0 ? Double(b.missed) / Double(b.onsets) : .nan,
            falseBargeInsPerMinute: b.agentOnlyMinutes > 0 ? Double(b.falseBargeIns) / b.agentOnlyMinutes : .nan,
            bargeInLatencyP50: SessionMetrics.percentile(b.latenciesMs, 0.5) ?? .nan,
            bargeInLatencyP90: SessionMetrics.percentile(b.latenciesMs, 0.9) ?? .nan,
            bargeInOnsets: b.onsets)
    }
}

extension VADScoring.Metrics: Codable {
    /// Keys are score.py's names (`f1`, `false_alarm`, `fresh_lat_p50_ms` …); a metric of nothing
    /// (NaN) is `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        for (name, v) in zip(Self.names, values) {
            if v.isFinite { try c.encode(v, forKey: JSONKey(name)) } else { try c.encodeNil(forKey: JSONKey(name)) }
        }
        try c.encode(onsets, forKey: JSONKey("onsets"))
        try c.encode(bargeInOnsets, forKey: JSONKey("barge_in_onsets"))
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        let v = try Self.names.map { try c.decodeIfPresent(Double.self, forKey: JSONKey($0)) ?? .nan }
        self.init(
            precision: v[1], recall: v[2], f1: v[0], falseAlarm: v[3], miss: v[4], onsetDetection: v[5],
            latencyP50: v[6],
            latencyP90: v[7], freshLatencyP50: v[8], freshLatencyP90: v[9], preOn: v[10], falseTriggersPerMinute: v[11],
            onsets: try c.decode(Int.self, forKey: JSONKey("onsets")), missedBargeIns: v[12],
            falseBargeInsPerMinute: v[13], bargeInLatencyP50: v[14], bargeInLatencyP90: v[15],
            bargeInOnsets: try c.decodeIfPresent(Int.self, forKey: JSONKey("barge_in_onsets")) ?? 0)
    }
}
