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
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.Jitter.holeWaitMs)) var holeWaitMs: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.Jitter.marginMs)) var marginMs: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.Jitter.maxStallMs)) var maxStallMs: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.Jitter.historyS)) var historyS: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.Jitter.baselineS)) var baselineS: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.Jitter.accelerateMs)) var accelerateMs: Double?
    @Option(parsing: .number, help: ArgumentHelp(OptionHelp.Jitter.decelerateMs)) var decelerateMs: Double?

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
