import ArgumentParser
import AudioPipelineCore
import AudioPipelineWorkflows

struct Jitter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jitter", abstract: "Jitter buffer: replay arrival traces and captured sessions through it.",
        subcommands: [JitterSimulate.self, JitterPlay.self])

    func run() throws { throw UsageError(missingSubcommandOf: Self.self) }
}

struct JitterSimulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Replay an arrival trace causally through the jitter buffer and write the playout log.",
        discussion: """
            TRACE: the jitter kit's trace (seq,send_ms,arrival_ms,duration_ms[,media_ms][,utt]); \
            --flush: its barge-in events (flush_ms,through_utt; default NAME.flush.csv beside it). \
            Causal: each tick delivers what has arrived, applies the flushes, plays one tick. Writes \
            the playout log (seq,play_ms,offset_ms,len_ms,out_ms) that score.py scores; as its \
            plug-in: scripts/jitter-plugin.sh {trace} {flush} {out} {tick}.
            """)

    @Argument(help: "Arrival trace (CSV).") var trace: String
    @Option(help: "Barge-in events (CSV).") var flush: String?
    @Option(name: dataOutput, help: help("Playout log to write (CSV).")) var outputPath: String
    @OptionGroup var buffer: JitterBufferOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let r = try JitterSimulation.simulate(trace: trace, flush: flush, output: outputPath, settings: buffer.settings)
        try ReportPrinter(output, dataOutputs: [outputPath]).print(r, text: r.text)
    }
}

struct JitterPlay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a captured session through the jitter buffer and write what the user would have heard.",
        discussion: """
            SESSION: a HAR file or timed JSON Lines (see deframe). Server audio enters the buffer at \
            its arrival times, barge-ins flush it; the WAV is what the user heard, tick by tick.
              audiopipe jitter play session.har -o heard.wav
            """)

    @Argument(help: "Captured session.") var session: String
    @Option(name: dataOutput, help: help("Output WAV.")) var outputPath: String
    @OptionGroup var capture: CaptureOptions
    @OptionGroup var buffer: JitterBufferOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let r = try JitterPlayback.play(
            input: session, output: outputPath, options: try capture.deframeOptions(), settings: buffer.settings)
        try ReportPrinter(output, dataOutputs: [outputPath]).print(r, text: r.text)
    }
}
