import ArgumentParser
import AudioPipelineBench
import AudioPipelineCore
import AudioPipelineWorkflows

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the mic and speaker paths per chunk on this machine, with your settings.",
        discussion: """
            Latency per chunk per path and stage (indented under what it is part of; the share of the \
            path's total), × realtime at the p50, allocations (glibc; else null), beside the common \
            client code; then the verdict: each --budget met or not (exit 1 when over) and whether \
            each path keeps up with real time. `bench compare BASE NEW`: exit 1 on a regression \
            beyond both runs' noise.
              audiopipe bench --budget 'mic.p99<1ms,speaker.p99<2ms' --plot latency.svg
            """,
        subcommands: [BenchCompare.self])

    @Option(parsing: .number, help: "Device sample rate, Hz.") var deviceRate = 48_000
    @Option(parsing: .number, help: "Device channels (interleaved).") var deviceChannels = 1
    @Option(help: ArgumentHelp(ProfileLoader.help)) var profile = "openai-realtime"
    @Option(parsing: .number, help: ChunkOption.help) var chunkMs = 20.0
    @Option(help: "Resampler: \(resamplerNames).") var resampler = "native-high"
    @Option(help: "best (vector kernels where the CPU has them) or portable (Swift).") var kernels = "best"
    @Option(help: "Float32 ↔ PCM16 convention: standard or ios.") var compat: PCMCompatibility = .standard
    @Option(help: "Dither for float -> pcm16: none or tpdf (triangular, ±1 LSB).") var dither: DitherOption = .none
    @Option(parsing: .number, help: "Seed of the TPDF dither (the same seed, the same output).") var ditherSeed:
        UInt64 = 1
    @Flag(help: "The VAD also gets the far-end reference (barge-in).") var withReference = false
    @Option(parsing: .number, help: "Seconds of measuring, over all rows.") var duration = 12.0
    @Option(parsing: .number, help: "Chunks per row (instead of --duration).") var iterations: Int?
    @Option(parsing: .number, help: "Chunks run before timing each row.") var warmup = 200
    @Option(parsing: .number, help: "Pin to this CPU (Linux).") var cpu: Int?
    @Option(help: "Exit 1 when over, e.g. 'mic.p99<1ms,speaker.decode.p50<2us'.") var budget: String?
    @Flag(help: "Only ours, not the common client code beside it.") var noPeers = false
    @Option(help: "Also write the rows as CSV.") var csv: String?
    @Option(help: "Also draw the per-chunk latency distributions, per path and stage (SVG).") var plot: String?
    @Flag(help: "Every column (p90, chunks/s, CPU, core, spread, batch); by default rows fit 100 columns.")
    var wide = false
    @OptionGroup var vad: VADParameterOptions
    @OptionGroup var buffer: JitterBufferOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let o = BenchOptions(
            deviceRate: deviceRate, deviceChannels: deviceChannels, profile: profile, chunkMs: chunkMs,
            resampler: resampler, kernels: kernels, compatibility: compat,
            dither: dither == .tpdf ? .tpdf(seed: ditherSeed) : .none, vad: try vad.configuration(),
            withReference: withReference, jitter: buffer.settings, seconds: duration, iterations: iterations,
            warmup: warmup, cpu: cpu, budget: budget, peers: !noPeers, csvPath: csv, plotPath: plot)
        let bar = output.progressBar()
        let (report, failures) = try BenchJob.run(o) { p in bar.update { _ in "bench: \(p) path …" } }
        bar.finish()
        try ReportPrinter(output, dataOutputs: [csv, plot]).print(
            report, text: BenchText.render(report, warnings: false, wide: wide))
        failures.forEach { Terminal.error("budget exceeded: " + $0) }
        if !failures.isEmpty { throw FailureExit(status: .checkFailed) }
    }
}

struct BenchCompare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare", abstract: "Compare two `bench --json` reports; exit 1 on a regression.")

    @Argument(help: "The earlier report.") var base: String
    @Argument(help: "The new report.") var new: String
    @OptionGroup var output: OutputOptions

    func run() throws {
        let c = BenchComparison(base: try BenchJob.read(base), new: try BenchJob.read(new))
        if !output.quiet { try Terminal.write(c.text, to: 1) }
        if !c.regressions.isEmpty { throw FailureExit(status: .checkFailed) }
    }
}
