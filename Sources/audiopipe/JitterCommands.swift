import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

struct Jitter: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Jitter buffer: replay arrival traces and captured sessions through it.",
        subcommands: [JitterSimulate.self, JitterPlay.self])
}

/// Buffer options shared by `simulate` and `play`.
struct JitterBufferOptions: ParsableArguments {
    @Option(help: "Output tick, ms (one pull of audio).") var tickMs: Double = 10
    @Option(help: "adaptive, or fixed:MS (each utterance plays MS after its first arrival, no stretching).") var policy: String = "adaptive"
    @Option(help: "Fraction of packets the adaptive jitter margin covers.") var quantile: Double = 0.95
    @Option(help: "Most audio the buffer holds, seconds (a longer TTS burst overflows, counted).") var capacityS: Double = 120
    @Option(help: "Adaptive: wait for a hole until delay ≥ target + this, ms (negative: jump earlier).") var holeWaitMs: Double?
    @Option(help: "Adaptive: added to the jitter quantile, ms.") var marginMs: Double?
    @Option(help: "Adaptive: longest stall above the recent delay before playout runs on (late loss instead of delay), ms.") var maxStallMs: Double?
    @Option(help: "Adaptive: window of the jitter statistics, s.") var historyS: Double?
    @Option(help: "Adaptive: window of the baseline (sliding minimum delay), s.") var baselineS: Double?
    @Option(help: "Adaptive: accelerate above target + this, ms.") var accelerateMs: Double?
    @Option(help: "Adaptive: decelerate below target − this, ms.") var decelerateMs: Double?

    func validate() throws {
        guard tickMs >= 1, tickMs <= 100 else { throw ValidationError("--tick-ms must be in [1, 100]") }
        guard quantile > 0, quantile < 1 else { throw ValidationError("--quantile must be in (0, 1)") }
        guard capacityS > 0, capacityS <= 3600 else { throw ValidationError("--capacity-s must be in (0, 3600]") }
        _ = try parsedPolicy(rate: 24_000)
    }

    func parsedPolicy(rate: Int) throws -> JitterBuffer.Policy {
        if policy == "adaptive" { return .adaptive }
        if policy.hasPrefix("fixed:"), let ms = Double(policy.dropFirst(6)), ms >= 0, ms <= 10_000 {
            return .fixed(delay: Int((ms * Double(rate) / 1000).rounded()))
        }
        throw ValidationError("--policy must be adaptive or fixed:MS (0…10000), not '\(policy)'")
    }

    func configuration(rate: Int) throws -> JitterBuffer.Configuration {
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

/// The buffer's own accounting as a summary (score.py is the reference for the kit's metrics).
func jitterSummary(_ s: JitterBuffer.Statistics, rate: Int, tickMs: Double) -> [String: Any] {
    let ms = 1000 / Double(rate)
    let counted = max(1, s.samplesReceived - s.samplesFlushed)
    let window = Double(s.samplesPlayed - s.samplesRemoved + s.samplesInserted + s.samplesConcealed) * ms
    return [
        "packets": s.packetsReceived, "latePackets": s.packetsLate, "stalePackets": s.packetsStale,
        "duplicatePackets": s.packetsDuplicate, "overflowPackets": s.packetsOverflow, "overflowMs": Double(s.samplesOverflow) * ms,
        "lateLossPct": 100 * Double(s.samplesLate) / Double(counted),
        "concealPct": window > 0 ? 100 * Double(s.samplesConcealed) * ms / window : 0,
        "meanDelayMs": s.meanDelay * ms, "underruns": s.underruns,
        "underrunsPerMin": window > 0 ? Double(s.underruns) / (window / 60_000) : 0,
        "stretchPct": window > 0 ? 100 * Double(s.ticksAccelerated + s.ticksDecelerated) * tickMs / window : 0,
        "flushes": s.flushes, "flushedMs": Double(s.samplesFlushed) * ms, "maxQueuedMs": Double(s.maximumQueued) * ms,
        "playedMs": Double(s.samplesPlayed) * ms,
    ]
}

func printJitterSummary(_ o: [String: Any], json: Bool, header: String) throws {
    if json {
        print(String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self))
        return
    }
    func d(_ k: String) -> Double { (o[k] as? Double) ?? Double((o[k] as? Int) ?? 0) }
    var s = header + "\n"
    s += String(format: "  late loss %.3f %%, concealment %.3f %%, mean delay %.1f ms, underruns %d (%.2f/min), stretch %.2f %%\n",
                d("lateLossPct"), d("concealPct"), d("meanDelayMs"), Int(d("underruns")), d("underrunsPerMin"), d("stretchPct"))
    s += String(format: "  packets %d: late %d, stale %d, duplicate %d, overflow %d (%.0f ms); flushes %d (%.0f ms dropped); most queued %.0f ms\n",
                Int(d("packets")), Int(d("latePackets")), Int(d("stalePackets")), Int(d("duplicatePackets")), Int(d("overflowPackets")),
                d("overflowMs"), Int(d("flushes")), d("flushedMs"), d("maxQueuedMs"))
    Terminal.stderr(s)
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
            the run is causal. The log (seq,play_ms,offset_ms,len_ms,out_ms) is what score.py \
            scores. Errors (malformed rows, duplicate seq, durations ≤ 0, arrival before send, a \
            flush naming an unknown utterance, a packet over a minute) name the file and line; rows out of seq order are \
            accepted.

            As the scorer's plug-in: scripts/jitter-plugin.sh {trace} {flush} {out} {tick}.
            """)

    @Argument(help: "Arrival trace (CSV).") var trace: String
    @Option(help: "Barge-in events (CSV).") var flush: String?
    @Option(name: .shortAndLong, help: "Playout log to write (CSV).") var output: String
    @OptionGroup var buffer: JitterBufferOptions
    @Flag(help: "Print the summary as JSON on standard output.") var json = false

    func run() throws {
        let packets = try JitterTrace.readPackets(path: trace)
        var flushPath = flush
        if flushPath == nil, trace.hasSuffix(".csv") {
            let sibling = String(trace.dropLast(4)) + ".flush.csv"
            if FileManager.default.fileExists(atPath: sibling) { flushPath = sibling }
        }
        let flushes = try flushPath.map { try JitterTrace.readFlushes(path: $0, packets: packets, tracePath: trace) } ?? []
        let rate = 24_000
        let result = try JitterSimulation(configuration: try buffer.configuration(rate: rate)).run(packets: packets, flushes: flushes)
        try JitterSimulation.writeLog(result.rows, to: output)
        var summary = jitterSummary(result.statistics, rate: rate, tickMs: buffer.tickMs)
        summary["trace"] = trace
        summary["flushFile"] = flushPath ?? ""
        try printJitterSummary(summary, json: json, header: "\(trace): \(packets.count) packets, \(flushes.count) flushes -> \(output)")
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
    @Option(name: .shortAndLong, help: "Output WAV.") var output: String
    @Option(help: ArgumentHelp(ProfileArgument.help + " Default: detected.")) var profile: String?
    @OptionGroup var buffer: JitterBufferOptions
    @Flag(help: "Skip and count bad messages instead of stopping at the first.") var lenient = false
    @Flag(help: "Print the summary as JSON on standard output.") var json = false

    func run() throws {
        var options = DeframeOptions()
        options.profile = try profile.map { try ProfileArgument.load($0, rate: nil) }
        options.lenient = lenient
        let r = try JitterPlayback.play(input: session, output: output, options: options) { try buffer.configuration(rate: $0) }
        var summary = jitterSummary(r.statistics, rate: r.rate, tickMs: buffer.tickMs)
        summary["session"] = session
        summary["profile"] = r.session.profile
        summary["interruptions"] = r.session.interruptions
        summary["outputSeconds"] = r.outputSeconds
        try printJitterSummary(
            summary, json: json,
            header: String(format: "%@ (%@): %d audio messages, %d interruptions -> %@ (%.3f s at %d Hz)",
                           session, r.session.profile, r.session.audioMessages, r.session.interruptions, output, r.outputSeconds, r.rate))
    }
}
