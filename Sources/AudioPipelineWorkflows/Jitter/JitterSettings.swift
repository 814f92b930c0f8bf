import AudioPipelineCore

/// The jitter buffer's settings in the units people give them (milliseconds, seconds), independent
/// of the sample rate; `configuration(sampleRate:)` makes the buffer's sample-based configuration.
/// Unset values keep the buffer's defaults (see `JitterBuffer.Configuration`).
public struct JitterSettings: Codable, Sendable, Hashable {
    /// Output tick (one pull), ms: 1…100.
    public var tickMs: Double = 10
    /// `adaptive`, or `fixed:MS` (each utterance plays MS after its first arrival, no stretching).
    public var policy: String = "adaptive"
    /// Fraction of packets the adaptive jitter margin covers, in (0, 1).
    public var quantile: Double = 0.95
    /// Most audio held, seconds (a longer TTS burst overflows, counted): (0, 3600].
    public var capacityS: Double = 120
    /// Adaptive: wait for a hole until the delay reaches target + this, ms (nil: the buffer's default).
    public var holeWaitMs: Double?
    /// Adaptive: added to the jitter quantile, ms (nil: the default).
    public var marginMs: Double?
    /// Adaptive: longest stall above the recent delay before playing on, ms (nil: the default).
    public var maxStallMs: Double?
    /// Adaptive: window of the jitter statistics, s (nil: the default).
    public var historyS: Double?
    /// Adaptive: window of the baseline delay, s (nil: the default).
    public var baselineS: Double?
    /// Adaptive: accelerate above target + this, ms (nil: the default).
    public var accelerateMs: Double?
    /// Adaptive: decelerate below target − this, ms (nil: the default).
    public var decelerateMs: Double?

    /// Settings with the given values; nil keeps the buffer's default.
    public init(
        tickMs: Double = 10, policy: String = "adaptive", quantile: Double = 0.95, capacityS: Double = 120,
        holeWaitMs: Double? = nil, marginMs: Double? = nil, maxStallMs: Double? = nil, historyS: Double? = nil,
        baselineS: Double? = nil, accelerateMs: Double? = nil, decelerateMs: Double? = nil
    ) {
        self.tickMs = tickMs
        self.policy = policy
        self.quantile = quantile
        self.capacityS = capacityS
        self.holeWaitMs = holeWaitMs
        self.marginMs = marginMs
        self.maxStallMs = maxStallMs
        self.historyS = historyS
        self.baselineS = baselineS
        self.accelerateMs = accelerateMs
        self.decelerateMs = decelerateMs
    }

    /// From JSON (a session scenario's `jitter`): keys left out keep their defaults.
    public init(from decoder: any Decoder) throws {
        self.init()
        let d = try PartialDecoding(
            decoder,
            known: [
                "tickMs", "policy", "quantile", "capacityS", "holeWaitMs", "marginMs", "maxStallMs", "historyS",
                "baselineS", "accelerateMs", "decelerateMs",
            ])
        try d("tickMs", &tickMs); try d("policy", &policy); try d("quantile", &quantile)
        try d("capacityS", &capacityS); try d("holeWaitMs", &holeWaitMs); try d("marginMs", &marginMs)
        try d("maxStallMs", &maxStallMs); try d("historyS", &historyS); try d("baselineS", &baselineS)
        try d("accelerateMs", &accelerateMs); try d("decelerateMs", &decelerateMs)
    }

    /// Checks every value; the message names the option (`--hole-wait-ms`).
    public func validate() throws(AudioPipelineError) {
        func range(_ v: Double?, _ r: ClosedRange<Double>, _ option: String) throws(AudioPipelineError) {
            if let v { _ = try Checked.number(v, in: r, option, code: .invalidConfiguration) }
        }
        try range(tickMs, 1...100, "--tick-ms")
        guard quantile > 0 && quantile < 1 else {
            throw AudioPipelineError(
                .invalidConfiguration, "--quantile \(Checked.describe(quantile)) must be in (0, 1)")
        }
        guard capacityS > 0 && capacityS <= 3600 else {
            throw AudioPipelineError(
                .invalidConfiguration, "--capacity-s \(Checked.describe(capacityS)) must be in (0, 3600]")
        }
        try range(holeWaitMs, -10_000...10_000, "--hole-wait-ms")
        try range(marginMs, 0...10_000, "--margin-ms")
        try range(maxStallMs, 0...600_000, "--max-stall-ms")
        try range(historyS, 0.1...600, "--history-s")
        try range(baselineS, 0.1...600, "--baseline-s")
        try range(accelerateMs, 0...10_000, "--accelerate-ms")
        try range(decelerateMs, 0...10_000, "--decelerate-ms")
        if case .fixed = try parsedPolicy(rate: 24_000) {
            // The fixed policy neither estimates the jitter nor stretches: these would be ignored.
            let adaptive = [
                ("--hole-wait-ms", holeWaitMs), ("--margin-ms", marginMs), ("--max-stall-ms", maxStallMs),
                ("--history-s", historyS), ("--baseline-s", baselineS), ("--accelerate-ms", accelerateMs),
                ("--decelerate-ms", decelerateMs),
            ]
            if let option = adaptive.first(where: { $0.1 != nil })?.0 {
                throw AudioPipelineError(
                    .invalidConfiguration, "\(option) tunes the adaptive policy, not --policy \(policy): drop \(option)"
                )
            }
        }
    }

    func parsedPolicy(rate: Int) throws(AudioPipelineError) -> JitterBuffer.Policy {
        if policy == "adaptive" { return .adaptive }
        if policy.hasPrefix("fixed:"), let ms = Double(policy.dropFirst(6)), ms >= 0, ms <= 10_000 {
            return .fixed(delay: Int((ms * Double(rate) / 1000).rounded()))
        }
        throw AudioPipelineError(
            .invalidConfiguration, "--policy must be adaptive or fixed:MS (0…10000), not '\(policy)'")
    }

    /// The buffer configuration at `sampleRate`.
    public func configuration(sampleRate rate: Int) throws(AudioPipelineError) -> JitterBuffer.Configuration {
        try validate()
        var c = JitterBuffer.Configuration(sampleRate: rate, tickMilliseconds: tickMs, capacitySeconds: capacityS)
        c.policy = try parsedPolicy(rate: rate)
        c.quantile = quantile
        func samples(_ ms: Double) -> Int { Int((ms * Double(rate) / 1000).rounded()) }
        if let v = holeWaitMs { c.holeWait = samples(v) }
        if let v = marginMs { c.margin = samples(v) }
        if let v = maxStallMs { c.maximumStall = samples(v) }
        if let v = historyS { c.historyWindow = samples(v * 1000) }
        if let v = baselineS { c.baselineWindow = samples(v * 1000) }
        if let v = accelerateMs { c.accelerateThreshold = samples(v) }
        if let v = decelerateMs { c.decelerateThreshold = samples(v) }
        return c
    }
}
