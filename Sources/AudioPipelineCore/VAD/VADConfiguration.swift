/// The parameters of the voice-activity detector (`EnergyVAD`, whose documentation describes the
/// method they steer), with the defaults that suit a 16 kHz phone microphone.
///
/// Each parameter also has a JSON name (`frame_ms`, `enter_db` …): the keys of the file `vad tune`
/// writes (`Codable`, VADConfiguration+Codable.swift), of `--param NAME=VALUE` and of tuning grids,
/// all through one table (VADConfiguration+Parameters.swift). `validate()` checks the ranges.
public struct VADConfiguration: Sendable, Hashable {
    /// Frame length, ms: 10, 20 or 30.
    public var frameMilliseconds: Double = 10
    /// Quantile of recent band energies taken as the noise floor.
    public var floorQuantile: Double = 0.2
    /// Window of the noise-floor quantile, s.
    public var floorWindowSeconds: Double = 5
    /// Start speech at this score (dB above noise ⊕ echo).
    public var enterThreshold: Double = 10
    /// Without a far-end reference, speech also starts where the frame's score and the exit test's
    /// averaged score (the mean of the last `exitAverageFrames`), each less what the noise alone
    /// shows, reach this (dB): a voice in loud noise may never lift one frame `enterThreshold` over
    /// the floor, yet holds a smaller excess frame after frame, which the noise does not. With a
    /// reference the echo model's own error holds such an excess (false barge-ins). 0 disables.
    public var sustainedEnterThreshold: Double = 5.5
    /// Keep speech while the score is at least this, dB.
    public var exitThreshold: Double = 1.5
    /// Frames below this band-limited level (dBFS) are never speech.
    public var absoluteThreshold: Double = -65
    /// Speech must hold this long (ms) before it is declared; also the onset's confirmation delay
    /// (with the onset check, `onsetDrop`, at least two frames).
    public var minimumSpeechMilliseconds: Double = 10
    /// Speech is held this long (ms) after the score drops below the exit threshold.
    public var hangoverMilliseconds: Double = 100
    /// With `--align`: onsets are moved back by the confirmation delay plus this, ms.
    public var preRollMilliseconds: Double = 0
    /// Speech starts and continues only within this many dB of the loudest recent speech (the 95th
    /// percentile of frame levels over `talkerWindowSeconds`): a voice far below the talker —
    /// babble, the agent's echo without a reference, a TV — is not speech. 0 disables.
    public var talkerGate: Double = 20
    /// Window of the loudest-speech estimate behind `talkerGate`, s.
    public var talkerWindowSeconds: Double = 10
    /// Without a far-end reference, speech *starts* only within this many dB of the loudest recent
    /// speech (it continues within `talkerGate`): the gate's own hysteresis, so a voice or an echo
    /// hovering near the gate's edge does not open a segment on every peak. At most `talkerGate`;
    /// 0 uses `talkerGate`. With a reference the loudest level includes the agent's echo, and a
    /// user talking over it must not need more: there `talkerGate` applies, wider by the frame's
    /// score over `enterThreshold` (a frame that stands out over the expected echo).
    public var talkerOnsetGate: Double = 17
    /// Speech continues while the mean score of the last this-many frames is at least the exit
    /// threshold (1: the frame's own score); averaging keeps noise flicker from holding speech on.
    public var exitAverageFrames: Double = 5
    /// Speech younger than this (ms from the frame that started it) ends at the first frame whose
    /// own score (less the noise's) falls below the exit threshold — no averaging, no hangover: a
    /// click or a knock is over within a frame or two, a word's first frames are not. 0 disables.
    public var transientMilliseconds: Double = 20
    /// … and whose score has fallen at least this far (dB) below the highest score since the onset.
    public var transientDrop: Double = 10
    /// A noise that switches on and stays (a fan, a hum, a tap): speech that has lasted this long
    /// (ms) and whose every band standing out has kept one level since its first frames (within
    /// `VADDecider.steadySpread`) ends, and those bands' noise floors are lifted to it — else such a
    /// noise reads as speech until it fills (1 − `floorQuantile`) of `floorWindowSeconds` (4 s). A
    /// voice moves by 10 dB and more within a few hundred milliseconds. A held tone (a test signal, a
    /// sung note) counts as noise too. 0 disables.
    public var steadyNoiseMilliseconds: Double = 600
    /// The onset check: speech is declared only after a run has held two frames (or
    /// `minimumSpeechMilliseconds`): a first frame that passes the start test, then frames whose
    /// score stays within this (dB) of the run's highest (below `enterThreshold` too) — a lower
    /// frame starts the run again. A click, a tap or a clatter spends its energy in a few
    /// milliseconds and falls 5–30 dB by the next frame; a voice holds. 0 turns the check off (one
    /// frame can declare speech), and with it the rules that read a run's shape (a click's attack
    /// holding a frame more, a knock's or a ring's decay opening nothing: `VADDecider+Onset.swift`).
    public var onsetDrop: Double = 3
    /// … and a run whose first frame got its energy in its last quarter, at least this much (dB)
    /// above the quarter before (a sound that began at the frame's very end: the next frame cannot
    /// yet show it fading), holds one frame more. 0 turns this off.
    public var onsetJump: Double = 8
    /// Reference: the range the echo delay is searched in (ms after the reference sample was
    /// played; `VADEchoModel`): phones put 50–250 ms between the audio handed to the speaker and its
    /// echo in the microphone, Bluetooth up to 500. Before the delay is found, echo is expected
    /// anywhere in it.
    public var echoDelayMinMilliseconds: Double = 0
    /// The end of the echo-delay search range, ms (see `echoDelayMinMilliseconds`).
    public var echoDelayMaxMilliseconds: Double = 500
    /// Reference: expected echo raised by this much, dB — at most: once the echo gain has learnt,
    /// each band's margin is the echo model's own error there (a robust standard deviation of
    /// mic − reference over the gain's frames: 1.4826 × (75th percentile − median)), kept within
    /// [`echoMarginMinimum`, `echoMargin`]. A linear echo path earns a small margin, so the user
    /// shows through a louder echo; a distorting speaker or a changing room keeps the full one.
    public var echoMargin: Double = 6
    /// Reference: the least margin a band's learnt echo error may bring the margin down to, dB (at
    /// most `echoMargin`; equal to it, the margin is fixed).
    public var echoMarginMinimum: Double = 3
    /// Reference: window of the echo gain's quantiles, s, and the worst plausible echo gain, dB
    /// (echo over reference per band): what is expected until the gain has learnt
    /// (`VADEchoModel.learnSeconds` of playing reference — at the session's start, after the delay
    /// moved). A speakerphone at full volume brings the echo up to ~6 dB over the reference, a
    /// small speaker's resonance a few dB more in its band.
    public var echoGainWindowSeconds: Double = 4
    /// Reference: the worst plausible echo gain per band, dB (echo over reference): expected until the
    /// gain has learnt (see `echoGainWindowSeconds`). In the reference's first 3 s the model lowers
    /// it per lag to what the microphone has shown (`VADEchoModel+Bound.swift`).
    public var initialEchoGain: Double = 10
    /// Reference: a reference frame counts as playing above this level, dBFS.
    public var referenceActiveThreshold: Double = -55
    /// Reference: the echo's assumed reverberation time (RT60), ms. Once the echo delay has been
    /// estimated, the expected echo follows the reference from that delay on and decays 60 dB over
    /// this time after it stops. 0 turns the delay tracking off: the flat maximum over the whole
    /// delay window. 450 ms is at the slow end of living rooms and offices (0.2–0.5 s), so the
    /// expected echo does not decay ahead of the real one (nor of a soft-clipping speaker's tail).
    /// The fastest decay the model assumes: a room that rings longer is measured in the
    /// reference's pauses and followed (`VADEchoModel+Reverb.swift`).
    public var echoReverbMilliseconds: Double = 450
    /// Reference: time constant of the echo-delay estimate (a running cross-correlation of mic and
    /// reference level changes), s; the estimate is used after this long of reference in the search
    /// window, once its peak stands out (`VADEchoModel`).
    public var echoDelaySmoothingSeconds: Double = 0.5
    /// Reference: from two frames before the echo of an utterance that follows a pause is due at
    /// the estimated delay until this long after, speech does not start, ms: the first frames of an
    /// echo are what the model fits worst; from the utterance's onset while the found delay no longer
    /// stands out in the correlation (`VADEchoModel`). (None before the delay is found: the flat
    /// window expects the echo anywhere then.) 0 turns it off.
    public var echoOnsetGuardMilliseconds: Double = 80

    /// The defaults: what `vad detect` uses without options.
    public init() {}

    /// Frames of score ≥ enter threshold needed to declare speech (`minimumSpeechMilliseconds` in
    /// whole frames, at least one).
    public var confirmFrames: Int {
        max(1, Int((minimumSpeechMilliseconds / frameMilliseconds).rounded(.up)))
    }

    /// Frames a fresh onset holds before speech is declared: `confirmFrames`, at least two with the
    /// onset check on (`onsetDrop` > 0) — one more when the sound began late in its first frame.
    public var onsetFrames: Int {
        max(confirmFrames, onsetDrop > 0 ? 2 : 1)
    }

    /// Checks ranges; the message names the parameter.
    public func validate() throws(AudioPipelineError) {
        func check(_ ok: Bool, _ what: String) throws(AudioPipelineError) {
            if !ok { throw AudioPipelineError(.invalidConfiguration, "VAD: \(what)") }
        }
        for (name, keyPath) in Self.parameters where !self[keyPath: keyPath].isFinite {
            try check(false, "\(name) must be a finite number (is \(self[keyPath: keyPath]))")
        }
        try check(
            [10.0, 20, 30].contains(frameMilliseconds), "frame_ms must be 10, 20 or 30 (is \(frameMilliseconds))")
        try check(floorQuantile > 0 && floorQuantile < 1, "floor_quantile must be in (0, 1)")
        try check(floorWindowSeconds >= 0.2 && floorWindowSeconds <= 60, "floor_window_s must be in [0.2, 60]")
        try check(
            exitThreshold <= enterThreshold, "exit_db (\(exitThreshold)) must not exceed enter_db (\(enterThreshold))")
        try check(enterThreshold > -20 && enterThreshold < 60, "enter_db must be in (-20, 60)")
        try check(exitThreshold > -60, "exit_db must be in (-60, 60)")
        try check(
            sustainedEnterThreshold >= 0 && sustainedEnterThreshold < 60, "sustained_enter_db must be in [0, 60)")
        try check(absoluteThreshold > -150 && absoluteThreshold <= 0, "absolute_dbfs must be in (-150, 0]")
        try check(
            minimumSpeechMilliseconds >= 0 && minimumSpeechMilliseconds <= 1000, "min_speech_ms must be in [0, 1000]")
        try check(hangoverMilliseconds >= 0 && hangoverMilliseconds <= 5000, "hangover_ms must be in [0, 5000]")
        try check(preRollMilliseconds >= 0 && preRollMilliseconds <= 2000, "preroll_ms must be in [0, 2000]")
        try check(
            echoDelayMinMilliseconds >= 0 && echoDelayMaxMilliseconds >= echoDelayMinMilliseconds
                && echoDelayMaxMilliseconds <= 1000,
            "echo_delay_min_ms and echo_delay_max_ms must satisfy 0 ≤ min ≤ max ≤ 1000")
        try check(talkerGate >= 0 && talkerGate <= 100, "talker_gate_db must be in [0, 100]")
        try check(
            exitAverageFrames >= 1 && exitAverageFrames <= 8 && exitAverageFrames == exitAverageFrames.rounded(),
            "exit_average_frames must be a whole number in [1, 8]")
        try check(
            transientMilliseconds >= 0 && transientMilliseconds <= 1000, "transient_ms must be in [0, 1000]")
        try check(transientDrop >= 0 && transientDrop <= 100, "transient_drop_db must be in [0, 100]")
        try check(
            steadyNoiseMilliseconds == 0
                || (steadyNoiseMilliseconds >= VADDecider.steadySettle && steadyNoiseMilliseconds <= 60_000),
            "steady_noise_ms must be 0 or in [\(Int(VADDecider.steadySettle)), 60000]")
        try check(onsetDrop >= 0 && onsetDrop <= 60, "onset_drop_db must be in [0, 60]")
        try check(onsetJump >= 0 && onsetJump <= 60, "onset_jump_db must be in [0, 60]")
        try check(
            echoOnsetGuardMilliseconds >= 0 && echoOnsetGuardMilliseconds <= 2000,
            "echo_onset_guard_ms must be in [0, 2000]")
        try check(talkerOnsetGate >= 0 && talkerOnsetGate <= 100, "talker_onset_gate_db must be in [0, 100]")
        try check(talkerWindowSeconds >= 0.5 && talkerWindowSeconds <= 120, "talker_window_s must be in [0.5, 120]")
        try check(
            echoGainWindowSeconds >= 0.2 && echoGainWindowSeconds <= 60, "echo_gain_window_s must be in [0.2, 60]")
        try check(echoMargin >= -40 && echoMargin <= 60, "echo_margin_db must be in [-40, 60]")
        try check(
            echoMarginMinimum >= -40 && echoMarginMinimum <= 60, "echo_margin_min_db must be in [-40, 60]")
        try check(initialEchoGain >= -100 && initialEchoGain <= 40, "initial_echo_gain_db must be in [-100, 40]")
        try check(
            referenceActiveThreshold > -150 && referenceActiveThreshold <= 0,
            "reference_active_dbfs must be in (-150, 0]")
        try check(echoReverbMilliseconds >= 0 && echoReverbMilliseconds <= 10_000, "echo_rt60_ms must be in [0, 10000]")
        try check(
            echoDelaySmoothingSeconds >= 0.05 && echoDelaySmoothingSeconds <= 60,
            "echo_delay_tau_s must be in [0.05, 60]")
    }
}
