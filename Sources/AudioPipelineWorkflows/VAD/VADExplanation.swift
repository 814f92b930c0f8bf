import AudioPipelineCore
import Foundation

/// Why the detector opened and closed one speech segment (`vad detect --explain`): the bands that
/// stood out when it started and the rule that confirmed it; the test that failed when it ended.
/// Times are on the streaming timeline (decision times), in seconds; levels in dB.
public struct VADSegmentExplanation: Codable, Hashable, Sendable {
    /// A band and its excess over noise floor ⊕ expected echo (what the score is made of), dB.
    public struct Band: Codable, Hashable, Sendable {
        /// The band's name (`300–1000 Hz` …).
        public var band: String
        /// Its excess, dB.
        public var excessDb: Double
    }

    /// How a segment opened.
    public struct Opening: Codable, Hashable, Sendable {
        /// When speech was declared (the end of the confirming frame), and the start of the first
        /// frame of the run of `frames` frames that passed the enter test.
        public var time: Double
        /// Start of the confirming run's first frame, s.
        public var runStart: Double
        /// Frames in the run.
        public var frames: Int
        /// The score of the deciding frame and the lowest score over the run, dB.
        public var scoreDb: Double
        /// The lowest score over the run, dB.
        public var lowestScoreDb: Double
        /// The deciding frame's level and the loudest recent speech (the talker gate's reference), dBFS.
        public var levelDbfs: Double
        /// The loudest recent speech, dBFS.
        public var loudestDbfs: Double
        /// The bands at or above the enter threshold in the deciding frame, largest excess first (the
        /// largest alone when none is: a start by the held excess, `sustained_enter_db`).
        public var bands: [Band]
        /// The rule that opened it, in words with the parameters' JSON names.
        public var rule: String
        /// With a far-end reference: what the echo model had found when speech was declared.
        @NullWhenAbsent public var echo: VADEchoSummary?
    }

    /// How a segment closed.
    public struct Closing: Codable, Hashable, Sendable {
        /// When speech ended (the end of the first frame decided non-speech, or the file's end).
        public var time: Double
        /// What failed in the frame that started the hangover: `exit_threshold` (the exit score fell
        /// below exit_db), `absolute_threshold` (the level below absolute_dbfs), `talker_gate` (more
        /// than talker_gate_db below the loudest recent speech); `transient` (speech younger than
        /// transient_ms whose own score collapsed: ended at once, no hangover); `steady_noise` (every
        /// band standing out kept one level for steady_noise_ms: a noise that switched on, its
        /// floors lifted; ended at once); or `end_of_file`.
        public var reasons: [String]
        /// The start of the frame that started the hangover (absent at the end of the file).
        @NullWhenAbsent public var quietFrom: Double?
        /// That frame's exit score and level, and the loudest recent speech then, dB / dBFS.
        public var exitScoreDb: Double
        /// That frame's level, dBFS.
        public var levelDbfs: Double
        /// The loudest recent speech then, dBFS.
        public var loudestDbfs: Double
        /// The rule that ended it, in words with the parameters' JSON names.
        public var rule: String
    }

    /// How it opened.
    public var opened: Opening
    /// How it closed.
    public var closed: Closing
}

/// Explains a run's segments (`vad detect --explain`).
public enum VADExplainer {
    /// One explanation per speech run of `run` (which needs `details`), in order: the explanation of
    /// segment k of `run.segments()` is element k.
    public static func explain(_ run: VADRun) -> [VADSegmentExplanation] {
        precondition(run.details.count == run.frames.count, "VADExplainer: the run has no per-frame details")
        var stream = Stream(configuration: run.configuration, frameSeconds: run.frameSeconds)
        for (frame, detail) in zip(run.frames, run.details) { stream.add(frame, detail) }
        stream.finish(duration: run.duration)
        return stream.explanations
    }

    /// `explain` one decision at a time, in constant memory (but the explanations): it keeps the
    /// open segment's opening, the last `confirmFrames` scores and the frame that started the hangover.
    public struct Stream: Sendable {
        /// The detector's parameters (the rules name them).
        public let configuration: VADConfiguration
        /// Length of one frame, s.
        public let frameSeconds: Double
        /// The segments explained so far, in order.
        public private(set) var explanations: [VADSegmentExplanation] = []
        /// The last scores (a run longer than this shows its lowest among them).
        private var recentScores = [Double](repeating: 0, count: 16)
        private var index = 0
        private var opening: VADSegmentExplanation.Opening?
        /// The frame (its index, decision and detail) that started the current failing streak.
        private var quiet: (k: Int, frame: VADDecider.Frame, detail: VADDecider.Detail)?
        private var last: (frame: VADDecider.Frame, detail: VADDecider.Detail)?
        private var speaking = false

        /// A stream for decisions of `frameSeconds` made with `configuration`.
        public init(configuration: VADConfiguration, frameSeconds: Double) {
            self.configuration = configuration
            self.frameSeconds = frameSeconds
        }

        /// The next frame's decision and what it was made of.
        public mutating func add(_ frame: VADDecider.Frame, _ d: VADDecider.Detail) {
            let k = index
            recentScores[k % recentScores.count] = frame.score
            if speaking {
                // The decider's hold test; the frame that starts a failing streak starts the hangover.
                if d.exitTest { quiet = nil } else if quiet == nil { quiet = (k, frame, d) }
                if !frame.speech, let o = opening {
                    let q = quiet ?? (k, frame, d)
                    let closed: VADSegmentExplanation.Closing
                    if d.burstOver {
                        closed = VADExplainer.transientClosing(configuration, frameSeconds, frame, d, at: k)
                    } else if d.steadyNoise {
                        closed = VADExplainer.steadyClosing(configuration, frameSeconds, frame, d, at: k)
                    } else {
                        closed = VADExplainer.closing(
                            configuration, frameSeconds, q.frame, q.detail, quietAt: q.k, endAt: k)
                    }
                    explanations.append(.init(opened: o, closed: closed))
                }
            } else if frame.speech {
                // The run as the decider counted it: its frames (a lead-in counts, but passed no test).
                let count = max(1, min(d.runFrames, k + 1))
                let scored = min(count - (d.leadIn ? 1 : 0), recentScores.count, k + 1)
                let lowest =
                    (k + 1 - max(1, scored)...k).map { recentScores[$0 % recentScores.count] }.min() ?? frame.score
                opening = VADExplainer.opening(configuration, frameSeconds, frame, d, at: k, run: count, lowest: lowest)
                quiet = nil
            }
            speaking = frame.speech
            last = (frame, d)
            index += 1
        }

        /// The end of the input (`duration` seconds): a segment still open ends with it.
        public mutating func finish(duration: Double) {
            // A segment closed by the last, incomplete frame ends with the input, not with that frame.
            if let i = explanations.indices.last {
                explanations[i].closed.time = min(explanations[i].closed.time, t(duration))
            }
            if speaking, let o = opening, let last {
                explanations.append(.init(opened: o, closed: VADExplainer.endOfFile(last.frame, last.detail, duration)))
            }
            speaking = false
        }
    }

    static func opening(
        _ c: VADConfiguration, _ f: Double, _ frame: VADDecider.Frame, _ d: VADDecider.Detail, at k: Int,
        run count: Int,
        lowest: Double
    ) -> VADSegmentExplanation.Opening {
        var bands = (0..<d.bandCount).filter { d.excess[$0] >= c.enterThreshold }
        if bands.isEmpty { bands = [(0..<d.bandCount).max { d.excess[$0] < d.excess[$1] }!] }
        let names = VADDecider.Detail.bandNames(count: d.bandCount)
        bands.sort { d.excess[$0] > d.excess[$1] }
        var rule =
            d.sustainedStart
            ? "score less the noise's own \(db(frame.score - d.noiseScore)) dB and the mean of the last"
                + " \(Int(c.exitAverageFrames)) frames' \(db(d.exitScore)) dB ≥ sustained_enter_db"
                + " \(n(c.sustainedEnterThreshold)) (a held excess, below enter_db \(n(c.enterThreshold)))"
            : "score ≥ enter_db \(n(c.enterThreshold))"
        rule += ", level ≥ absolute_dbfs \(n(c.absoluteThreshold))"
        if c.talkerGate > 0 {
            var gate = "talker_gate_db \(n(c.talkerGate))"
            if d.startGate < c.talkerGate {
                gate = "talker_onset_gate_db \(n(d.startGate))"
            } else if d.startGate > c.talkerGate {
                // With a reference the gate widens by the score's excess over enter_db.
                gate += " + \(db(d.startGate - c.talkerGate)) dB (the score over enter_db)"
            }
            rule += " and within \(gate) of the loudest recent speech"
        }
        let withReference = d.echoStage != nil
        rule += ", for \(count == 1 ? "1 frame" : "\(count) frames in a row")"
        var held = ["min_speech_ms \(n(c.minimumSpeechMilliseconds))"]
        if c.onsetDrop > 0 && count > 1 {
            held.append(
                "the onset check: after the first, a frame within onset_drop_db \(n(c.onsetDrop)) of the run's highest"
                    + " counts even below enter_db"
                    + (withReference ? " (or, over enter_db, where the bands that stood out held their level)" : "")
                    + ", and none fell further")
        }
        if d.leadIn {
            let rising = withReference ? "rising over exit_db in this frame's two largest bands" : "rising over exit_db"
            held.append("the frame before, \(rising), counted as the onset's lead-in")
        }
        if d.lateOnset {
            held.append(
                "one frame more: the sound began in the first frame's second half (onset_jump_db \(n(c.onsetJump)))")
        }
        if d.attackWaited {
            let rise = withReference ? VADDecider.leadInRiseMax : VADDecider.attackWithoutReference
            held.append(
                "one frame more: the run began with a click's attack (a frame more than"
                    + " \(n(rise)) dB over the frame before), or started again from one")
        }
        if d.highOnlyWaited {
            held.append(
                "one frame more: no band under 1 kHz stood \(n(VADDecider.voiceUnder1k)) dB over noise ⊕ echo"
                    + " in any of the run's frames (a knock's, a click's, or a word's hiss)")
        }
        held += waits(c, d, withReference: withReference)
        rule += " (" + held.joined(separator: "; ") + ")"
        return .init(
            time: t(Double(k + 1) * f), runStart: t(Double(k + 1 - count) * f), frames: count,
            scoreDb: round1(frame.score), lowestScoreDb: round1(lowest), levelDbfs: round1(frame.level),
            loudestDbfs: round1(d.loudest),
            bands: bands.map { .init(band: names[$0], excessDb: round1(d.excess[$0])) },
            rule: rule, echo: d.echoStage.map { VADEchoSummary(d, stage: $0, configuration: c) })
    }

    /// What a run that had held its frames waited on (`Detail.decayWaited`, `declineWaited`,
    /// `ringWaited`): a click's decay, or a ringing sound's.
    static func waits(_ c: VADConfiguration, _ d: VADDecider.Detail, withReference: Bool) -> [String] {
        var waits: [String] = []
        if d.decayWaited {
            let fall =
                withReference
                ? "fell onset_jump_db \(n(c.onsetJump)) from its first quarter to its last over noise ⊕ the"
                    + " expected echo"
                : "fell \(n(VADDecider.decayFallWithoutReference)) dB from its first quarter to its last over the noise"
                    + " floor, \(n(VADDecider.decayUnderHighest)) dB or more under the run's highest"
            waits.append(
                "later than that: a frame whose sound \(fall) (a click's decay) opened no speech, and the run went on")
        }
        if d.fallWaited {
            waits.append(
                "later than that: a frame whose power over noise ⊕ echo and whose level both lay"
                    + " \(n(VADDecider.runFallUnderHighest)) dB under the run's highest (a thump's fall) opened no"
                    + " speech, and the run went on")
        }
        if d.declineWaited {
            let fallen =
                withReference
                ? "whose level in the bands it began in had only fallen since its highest (or the frame before's)"
                : "that had only fallen since its highest"
            let rise = withReference ? VADDecider.ringRiseOverEcho : VADDecider.declineRise
            let what =
                withReference
                ? "a ringing sound's decay over the echo, nothing under 300 Hz standing out" : "a ringing sound's decay"
            waits.append(
                "later than that: a frame of a run \(fallen), \(n(VADDecider.declineSlope)) dB a frame or more,"
                    + " no frame rising more than \(n(rise)) dB (\(what)), opened no speech, and the run went on")
        }
        if d.ringWaited {
            let standing =
                withReference
                ? "its excess over noise ⊕ the expected echo standing \(n(VADDecider.ringMarginOverEcho)) dB more"
                    + " above 1 kHz than under it"
                : "standing out more above 1 kHz than under it"
            waits.append(
                "later than that: a frame whose sound above 1 kHz its own samples 2 ms earlier predicted"
                    + " (ring gain \(n(VADDecider.ringGainMinimum)) dB or more over the noise: a few lasting partials,"
                    + " a clink's ring), \(standing), opened no speech, and the run went on")
        }
        return waits
    }

    /// Speech ended at frame `k` by the hangover that frame `q` (`frame`, `d`) started.
    static func closing(
        _ c: VADConfiguration, _ f: Double, _ frame: VADDecider.Frame, _ d: VADDecider.Detail, quietAt q: Int,
        endAt k: Int
    ) -> VADSegmentExplanation.Closing {
        let level = frame.level
        var reasons: [String] = [], words: [String] = [], levelWords: [String] = []
        if d.exitScore < c.exitThreshold {
            reasons.append("exit_threshold")
            words.append(
                "the exit score (mean score of the last \(Int(c.exitAverageFrames)) frames less the noise's own "
                    + "\(db(d.noiseScore)) dB) fell to \(db(d.exitScore)) dB < exit_db \(n(c.exitThreshold))")
        }
        if !d.loud {
            reasons.append("absolute_threshold")
            levelWords.append("below absolute_dbfs \(n(c.absoluteThreshold))")
        }
        if !d.dominant {
            reasons.append("talker_gate")
            levelWords.append(
                "more than talker_gate_db \(n(c.talkerGate)) below the loudest recent speech (\(db(d.loudest)) dBFS)")
        }
        if !levelWords.isEmpty {
            words.append("the level fell to \(db(level)) dBFS, " + levelWords.joined(separator: " and "))
        }
        let rule =
            "at \(NumberText.seconds(Double(q) * f)) s " + words.joined(separator: "; ")
            + ", and the hold test did not pass again within hangover_ms \(n(c.hangoverMilliseconds))"
        return .init(
            time: t(Double(k + 1) * f), reasons: reasons, quietFrom: t(Double(q) * f),
            exitScoreDb: round1(d.exitScore), levelDbfs: round1(level), loudestDbfs: round1(d.loudest), rule: rule)
    }

    /// Speech younger than `transient_ms` ended by the transient rule (see `VADConfiguration`).
    static func transientClosing(
        _ c: VADConfiguration, _ f: Double, _ frame: VADDecider.Frame, _ d: VADDecider.Detail, at k: Int
    ) -> VADSegmentExplanation.Closing {
        let own = frame.score - d.noiseScore
        let at = NumberText.seconds(Double(k) * f)
        let rule =
            "at \(at) s, within transient_ms \(n(c.transientMilliseconds)) of the onset,"
            + " the frame's own score (less the noise's) fell to \(db(own)) dB < exit_db"
            + " \(n(c.exitThreshold)), at least transient_drop_db \(n(c.transientDrop)) below the onset's highest:"
            + " a transient (click, knock), ended without hangover"
        return endedAt(k, f, reason: "transient", rule: rule, frame, d)
    }

    /// Speech ended by the steady-noise rule (see `VADConfiguration.steadyNoiseMilliseconds`).
    static func steadyClosing(
        _ c: VADConfiguration, _ f: Double, _ frame: VADDecider.Frame, _ d: VADDecider.Detail, at k: Int
    ) -> VADSegmentExplanation.Closing {
        let at = NumberText.seconds(Double(k) * f)
        let names = VADDecider.Detail.bandNames(count: d.bandCount)
        let steady = (0..<d.bandCount).filter { d.excess[$0] >= VADDecider.steadyExcess }.map { names[$0] }
        let rule =
            "at \(at) s, after steady_noise_ms \(n(c.steadyNoiseMilliseconds)), every band standing"
            + " \(n(VADDecider.steadyExcess)) dB or more over its floor (\(steady.joined(separator: ", ")))"
            + " had kept within \(n(VADDecider.steadySpread)) dB of one level since the onset:"
            + " a noise that switched on, not a voice; those bands' floors lifted to it, ended without hangover"
        return endedAt(k, f, reason: "steady_noise", rule: rule, frame, d)
    }

    /// A closing at frame `k` itself, without hangover (the transient and steady-noise rules).
    private static func endedAt(
        _ k: Int, _ f: Double, reason: String, rule: String, _ frame: VADDecider.Frame, _ d: VADDecider.Detail
    ) -> VADSegmentExplanation.Closing {
        .init(
            time: t(Double(k + 1) * f), reasons: [reason], quietFrom: t(Double(k) * f),
            exitScoreDb: round1(d.exitScore), levelDbfs: round1(frame.level), loudestDbfs: round1(d.loudest),
            rule: rule)
    }

    static func endOfFile(_ frame: VADDecider.Frame, _ d: VADDecider.Detail, _ duration: Double)
        -> VADSegmentExplanation.Closing
    {
        .init(
            time: t(duration), reasons: ["end_of_file"], quietFrom: nil, exitScoreDb: round1(d.exitScore),
            levelDbfs: round1(frame.level), loudestDbfs: round1(d.loudest), rule: "the file ended during speech")
    }

    static func n(_ v: Double) -> String { NumberText.plain(v) }
    /// A time to the microsecond (frame ends computed as k × frame length print as 2.01, not 2.0100000000000002).
    static func t(_ v: Double) -> Double { (v * 1e6).rounded() / 1e6 }
    static func db(_ v: Double) -> String { String(format: "%.1f", round1(v)) }
    /// One decimal, as the explanation shows it; never −0, and JSON-safe: a level of nothing (−inf, or
    /// NaN from a corrupt frame) is −999.
    static func round1(_ v: Double) -> Double { v.isFinite ? (v * 10).rounded() / 10 + 0 : (v > 0 ? 999 : -999) }
}

extension VADSegmentExplanation {
    /// Indented lines under the segment's times (`vad detect --explain`).
    public var text: String {
        let o = opened, c = closed
        let bands = o.bands.map { "\($0.band) \(String(format: "%+.1f", $0.excessDb)) dB" }.joined(separator: ", ")
        var s = String(format: "  opened at %.3f s, from %.3f s: ", o.time, o.runStart) + o.rule + "\n"
        s += String(
            format: "    score %.1f dB (lowest in the run %.1f); level %.1f dBFS; loudest recent speech %.1f dBFS\n",
            o.scoreDb, o.lowestScoreDb, o.levelDbfs, o.loudestDbfs)
        s += "    bands at or over enter_db, else the largest (excess over noise floor ⊕ echo): \(bands)\n"
        if let e = o.echo { s += "    " + e.text + "\n" }
        s += String(format: "  closed at %.3f s: ", c.time) + c.rule + "\n"
        return s
    }
}

/// What the echo model (`VADEchoModel`) had found at a moment: the echo delay (once found), the echo
/// return loss per band (the reference's level over its echo's at the microphone, dB: the negative
/// of the gain in use) and what the expectation rested on. `vad detect --explain` and the session
/// report say it.
public struct VADEchoSummary: Codable, Hashable, Sendable {
    /// One band's echo return loss.
    public struct Band: Codable, Hashable, Sendable {
        /// The band's name.
        public var band: String
        /// The reference's level over its echo's, dB.
        public var returnLossDb: Double
    }

    /// nil: not found yet (echo expected anywhere in the search range).
    @NullWhenAbsent public var delayMs: Double?
    /// Whether `delayMs` was in doubt: its correlation no longer stood out (a delay found on a
    /// user's words); the onset guard then held from the agent's onsets, not from their echo's.
    public var delayInDoubt: Bool
    /// The delay range searched, ms (`echo_delay_min_ms`, `echo_delay_max_ms`).
    public var searchedMs: [Double]
    /// Per band, the echo return loss.
    public var returnLoss: [Band]
    /// `worst-case` (nothing learnt yet), `window` (no delay yet: a learnt envelope over the whole
    /// search range) or `tracked` (the delay found, the gain learnt from it).
    public var basis: String
    /// The reverberation time (RT60) the expected echo's tail falls by, ms (nil: `echo_rt60_ms` 0,
    /// no tail).
    @NullWhenAbsent public var rt60Ms: Double?
    /// Whether `rt60Ms` was measured in the agent's pauses (a room that rings longer than
    /// `echo_rt60_ms`) rather than configured.
    public var rt60Measured: Bool

    /// The summary of a frame's `Detail`, with the model's `stage`.
    public init(_ d: VADDecider.Detail, stage: VADEchoModel.Stage, configuration c: VADConfiguration) {
        self.init(
            delayFrames: d.echoDelayFrames, gains: d.echoGains, bandCount: d.bandCount, stage: stage, configuration: c)
        rt60Ms = d.echoReverbMilliseconds.map { $0.rounded() }
        rt60Measured = d.echoReverbMeasured
        delayInDoubt = d.echoDelayInDoubt
    }

    /// The summary of an `Estimate`.
    public init(_ e: VADEchoModel.Estimate, configuration c: VADConfiguration) {
        self.init(delayFrames: e.delayFrames, gains: e.gains, bandCount: e.bandCount, stage: e.stage, configuration: c)
        rt60Ms = e.reverbMilliseconds.map { $0.rounded() }
        rt60Measured = e.reverbMeasured
        delayInDoubt = e.delayInDoubt
    }

    init(
        delayFrames: Int?, gains: SIMD8<Double>, bandCount: Int, stage: VADEchoModel.Stage,
        configuration c: VADConfiguration
    ) {
        delayMs = delayFrames.map { Double($0) * c.frameMilliseconds }
        searchedMs = [c.echoDelayMinMilliseconds, c.echoDelayMaxMilliseconds]
        let names = VADDecider.Detail.bandNames(count: bandCount)
        returnLoss = (0..<bandCount).map {
            Band(band: names[$0], returnLossDb: VADExplainer.round1(-gains[$0]))
        }
        basis = stage.rawValue
        rt60Ms = nil
        rt60Measured = false
        delayInDoubt = false
    }

    /// One line: `echo: delay 110 ms (searched 0–500 ms), return loss < 150 Hz 9.4 dB, …; tracked`
    /// (`delay 110 ms, in doubt` while its correlation no longer stands out).
    public var text: String {
        let doubt = delayInDoubt ? ", in doubt" : ""
        let delay = delayMs.map { "delay \(NumberText.plain($0)) ms\(doubt)" } ?? "delay not found yet"
        let range = "searched \(NumberText.plain(searchedMs[0]))–\(NumberText.plain(searchedMs[1])) ms"
        let loss = returnLoss.map { "\($0.band) \(String(format: "%.1f", $0.returnLossDb)) dB" }
        let rt60 =
            rt60Ms.map { "; tail RT60 \(NumberText.plain($0)) ms (\(rt60Measured ? "measured" : "assumed"))" } ?? ""
        return "echo: \(delay) (\(range)); return loss \(loss.joined(separator: ", ")); expected from: \(basis)\(rt60)"
    }
}
