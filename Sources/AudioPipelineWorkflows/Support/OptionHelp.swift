import AudioPipelineCore

/// Help of the CLI's options whose value, when left out, comes from a configuration (the VAD's
/// parameters, the jitter buffer's), with that default taken from the code — "(default: 10 dB)" —
/// so help and code cannot disagree.
public enum OptionHelp {
    /// `VADParameterOptions` (vad detect, vad tune, bench, session simulate).
    public enum VAD {
        /// `--frame-ms`.
        public static let frameMs = "Frame length: 10, 20 or 30 ms \(vad("frame_ms"))."
        /// `--enter-db`.
        public static let enterDb =
            "Speech starts this many dB above noise floor (+ expected echo) \(vad("enter_db", "dB"))."
        /// `--exit-db`.
        public static let exitDb = "Speech continues while at least this many dB above \(vad("exit_db", "dB"))."
        /// `--hangover-ms`.
        public static let hangoverMs = "Hold speech this long after the level drops, ms \(vad("hangover_ms"))."
        /// `--min-speech-ms`.
        public static let minSpeechMs = "Speech must last this long before it is declared, ms \(vad("min_speech_ms"))."
        /// `--absolute-dbfs`.
        public static let absoluteDbfs = "Never speech below this band-limited level, dBFS \(vad("absolute_dbfs"))."
        /// `--floor-quantile`.
        public static let floorQuantile =
            "Noise floor = this quantile of recent frame energies \(vad("floor_quantile"))."
        /// `--floor-window-s`.
        public static let floorWindowS = "Window of the noise floor, s \(vad("floor_window_s"))."
        /// `--echo-margin-db`.
        public static let echoMarginDb =
            "With --reference: expected echo raised by at most this much, dB \(vad("echo_margin_db"))."
        /// `--preroll-ms`.
        public static let prerollMs = "With --align: move onsets this much earlier, ms \(vad("preroll_ms"))."
        /// `--talker-gate-db`.
        public static let talkerGateDb =
            "Speech only within this many dB of the loudest recent, 0: off \(vad("talker_gate_db"))."
    }

    /// `vad tune`: what it does, its objective and its limits (whose defaults, `VADConstraints()`'s,
    /// the CLI shows).
    public enum VADTune {
        /// The command's discussion: how recordings pair with labels and references, what is swept,
        /// how the choice is made and checked, what the report holds, the exit codes and the framework
        /// emulation (`--emulate`, `--compare`), with an example.
        public static let discussion = """
            Pairs each recording NAME.wav in --audio with an Audacity label file NAME.txt (in --labels, \
            default: next to it; without any, the error says how to make them; exit code 66) and a \
            far-end reference NAME<suffix> if present; sweeps every combination of --grid FILE and --set \
            NAME=V1,V2,… (default: enter_db, exit_db, hangover_ms, min_speech_ms) with the VAD kit's \
            metrics. The choice: the best by --objective among the settings that meet the limits \
            (false alarm ≤ 15 %, false triggers ≤ 3 per minute, fresh-onset latency p90 ≤ 200 ms by \
            default), made again fold by fold (leave one file out up to 10 files, or one --group-by \
            group) and scored on files it was not made on; the baseline (the defaults, or --config) is \
            kept unless the cross-validated gain beats the folds' spread. With far-end references \
            (NAME.ref.wav), barge-ins are scored as `session simulate --recorded` counts them, the \
            client's min_barge_in_ms and ignore_first_ms are swept too (unless --grid), and the \
            objective is barge-in, under false barge-ins ≤ 0.5 per minute of agent-only playout, \
            missed barge-ins ≤ 10 % and barge-in latency p90 ≤ 300 ms by default (which replaces the \
            fresh-onset latency limit unless --max-onset-latency-ms is given). --report DIR gets \
            summary.json, best.json (for `vad detect --config`; its barge_in policy for `session \
            simulate --config`), sweep.csv/json, per-file.csv, per-condition.csv (with a manifest.csv), \
            one plot per file and index.html. Exit code 1 when no setting meets the limits (no \
            best.json; --best-effort writes the closest, marked). --emulate pipecat|livekit --scores DIR \
            tunes a framework's silero VAD instead, over per-window confidences from \
            scripts/vad-scores.py (best.json: the framework's options, and the snippet to paste); \
            --compare FRAMEWORK=SCORES_DIR tunes it alike beside the energy VAD.
              audiopipe vad tune --audio recordings --labels labels --report tuned
            """
        /// `--objective`: the objectives, and which is the default.
        public static let objective =
            "Maximise: f1, precision, recall, fa (lowest), f1-latency, or barge-in (least missed + false + late; "
            + "the default with references, else f1)."
        /// `--max-false-alarm`.
        public static let maxFalseAlarm = "Limit: false-alarm rate, 0…1."
        /// `--max-false-triggers-per-min`.
        public static let maxFalseTriggersPerMin = "Limit: false triggers per minute."
        /// `--max-onset-latency-ms`: its default, and what replaces it on recordings with references.
        public static let maxOnsetLatencyMs =
            "Limit: fresh-onset latency p90, ms (default: 200; with references, barge-in latency instead)."
        /// `--max-false-barge-ins-per-min`.
        public static let maxFalseBargeInsPerMin =
            "Limit with references: false barge-ins per minute of agent-only playout."
        /// `--max-missed-barge-ins`.
        public static let maxMissedBargeIns = "Limit with references: missed barge-ins, 0…1."
        /// `--max-barge-in-latency-ms`.
        public static let maxBargeInLatencyMs = "Limit with references: barge-in latency p90, ms."
    }

    /// `JitterBufferOptions` (jitter simulate and play, bench, session simulate): the adaptive policy's
    /// settings.
    public enum Jitter {
        /// `--hole-wait-ms`.
        public static let holeWaitMs =
            "Adaptive: wait for a hole until delay ≥ target + this, ms \(jitter(\.holeWait))."
        /// `--margin-ms`.
        public static let marginMs = "Adaptive: added to the jitter quantile, ms \(jitter(\.margin, tick: true))."
        /// `--max-stall-ms`.
        public static let maxStallMs =
            "Adaptive: longest stall above the recent delay before playing on, ms \(jitter(\.maximumStall))."
        /// `--history-s`.
        public static let historyS =
            "Adaptive: window of the jitter statistics, s \(jitter(\.historyWindow, seconds: true))."
        /// `--baseline-s`.
        public static let baselineS =
            "Adaptive: window of the baseline (sliding minimum delay), s \(jitter(\.baselineWindow, seconds: true))."
        /// `--accelerate-ms`.
        public static let accelerateMs =
            "Adaptive: accelerate above target + this, ms \(jitter(\.accelerateThreshold, tick: true))."
        /// `--decelerate-ms`.
        public static let decelerateMs =
            "Adaptive: decelerate below target − this, ms \(jitter(\.decelerateThreshold, tick: true))."
    }

    /// `session simulate`'s echo and noise options, their defaults from `SessionConfiguration()`.
    public enum Session {
        /// `--echo-delay-ms`.
        public static let echoDelayMs = "Echo path delay, ms \(text(EchoSettings().delayMs, "ms"))."
        /// `--echo-gain-db`.
        public static let echoGainDb =
            "Echo level relative to the loudspeaker, dB \(text(EchoSettings().gainDb, "dB"))."
        /// `--noise-dbfs`.
        public static let noiseDbfs =
            "Microphone noise floor, dBFS RMS \(text(SessionConfiguration().noiseDbfs ?? .nan, "dBFS"))."
    }

    /// A VAD parameter's default, by its JSON name, from `VADConfiguration()`.
    public static func vad(_ name: String, _ unit: String = "") -> String {
        text(VADConfiguration()[name] ?? .nan, unit)
    }

    /// A jitter-buffer setting's default (`JitterBuffer.Configuration` at the default tick), in ms or
    /// (`seconds`) s; `tick`: it follows --tick-ms, and the help says so.
    public static func jitter(
        _ key: KeyPath<JitterBuffer.Configuration, Int>, seconds: Bool = false, tick: Bool = false
    ) -> String {
        let ticked = JitterSettings().tickMs
        let c = JitterBuffer.Configuration(sampleRate: 1_000_000, tickMilliseconds: ticked)  // a sample a µs
        let v = Double(c[keyPath: key]) / (seconds ? 1e6 : 1e3)
        return text(v, tick ? "at --tick-ms \(number(ticked)); it follows the tick" : "")
    }

    /// The one range of `--chunk-ms` (frame, bench, session simulate), as the help and errors give it.
    public static let chunkRange =
        "\(number(CapturePath.Configuration.chunkMillisecondsRange.lowerBound))…"
        + "\(number(CapturePath.Configuration.chunkMillisecondsRange.upperBound))"

    /// "a, b or c".
    public static func list(_ names: [String]) -> String {
        names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
    }

    static func text(_ v: Double, _ unit: String) -> String {
        "(default: \(number(v))\(unit.isEmpty ? "" : " " + unit))"
    }

    static func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(v) }
}
