import ArgumentParser
import AudioPipelineCore
import AudioPipelineWorkflows

struct Jitter: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Jitter buffer: replay arrival traces and captured sessions through it.",
        subcommands: [JitterSimulate.self, JitterPlay.self])

    func run() throws { throw ValidationError("choose a subcommand: jitter simulate or jitter play") }
}

struct JitterSimulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Replay an arrival trace causally through the jitter buffer and write the playout log.",
        discussion: """
            TRACE is the jitter kit's trace (seq,send_ms,arrival_ms,duration_ms[,media_ms][,utt]); \
            FLUSH its barge-in events (flush_ms,through_utt); without --flush, NAME.flush.csv next \
            to NAME.csv is used if it exists. Ticks run at k·tick: each tick delivers the packets \
            that have arrived, applies the flushes that have happened, then plays one tick — so \
            the run is causal. The buffer runs at 24 kHz (traces carry no audio; results in ms do \
            not depend on it beyond sample rounding). The log (seq,play_ms,offset_ms,len_ms,out_ms) \
            is what score.py scores. Errors (malformed rows, duplicate seq, durations ≤ 0, arrival \
            before send, a flush naming an unknown utterance, a packet over a minute) name the file \
            and line; rows out of seq order are accepted.

            As the scorer's plug-in: scripts/jitter-plugin.sh {trace} {flush} {out} {tick}.
            """)

    @Argument(help: "Arrival trace (CSV).") var trace: String
    @Option(help: "Barge-in events (CSV).") var flush: String?
    @Option(name: dataOutput, help: help("Playout log to write (CSV)."))
    var outputPath: String
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
            SESSION is a capture with arrival times: a HAR file, or JSON Lines of HAR-style entries \
            (see deframe). The server's audio messages go into the buffer at their arrival times; \
            interruption events (barge-in) flush the responses received so far. The output WAV is \
            the buffer's output tick by tick at the session's rate: delays, stretching, \
            concealment (silence with fades) and the silence between responses included.

            Example:
              audiopipe jitter play session.har -o heard.wav
            """)

    @Argument(help: "Captured session.") var session: String
    @Option(name: dataOutput, help: help("Output WAV."))
    var outputPath: String
    @OptionGroup var capture: CaptureOptions
    @OptionGroup var buffer: JitterBufferOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let r = try JitterPlayback.play(
            input: session, output: outputPath, options: try capture.deframeOptions(), settings: buffer.settings)
        try ReportPrinter(output, dataOutputs: [outputPath]).print(r, text: r.text)
    }
}
