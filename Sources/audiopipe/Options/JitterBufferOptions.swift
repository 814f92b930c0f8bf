import ArgumentParser
import AudioPipelineWorkflows

/// Jitter-buffer options shared by `jitter simulate` and `jitter play` (`JitterSettings`).
struct JitterBufferOptions: ParsableArguments {
    @Option(parsing: .number, help: "Output tick, ms (one pull of audio).") var tickMs: Double = 10
    @Option(help: "adaptive, or fixed:MS (play MS after an utterance's first arrival).") var policy: String = "adaptive"
    @Option(parsing: .number, help: "Fraction of packets the adaptive jitter margin covers.") var quantile: Double =
        0.95
    @Option(parsing: .number, help: "Most audio the buffer holds, s (more overflows, counted).") var capacityS: Double =
        120
    @Option(parsing: .number, help: "Adaptive: wait for a hole until delay ≥ target + this, ms.") var holeWaitMs:
        Double?
    @Option(parsing: .number, help: "Adaptive: added to the jitter quantile, ms.") var marginMs: Double?
    @Option(parsing: .number, help: "Adaptive: longest stall above the recent delay before playing on, ms.")
    var maxStallMs: Double?
    @Option(parsing: .number, help: "Adaptive: window of the jitter statistics, s.") var historyS: Double?
    @Option(parsing: .number, help: "Adaptive: window of the baseline (sliding minimum delay), s.") var baselineS:
        Double?
    @Option(parsing: .number, help: "Adaptive: accelerate above target + this, ms.") var accelerateMs: Double?
    @Option(parsing: .number, help: "Adaptive: decelerate below target − this, ms.") var decelerateMs: Double?

    var settings: JitterSettings {
        JitterSettings(
            tickMs: tickMs, policy: policy, quantile: quantile, capacityS: capacityS, holeWaitMs: holeWaitMs,
            marginMs: marginMs, maxStallMs: maxStallMs, historyS: historyS, baselineS: baselineS,
            accelerateMs: accelerateMs, decelerateMs: decelerateMs)
    }

    func validate() throws {
        do { try settings.validate() } catch { throw ValidationError(error.message) }
    }
}
