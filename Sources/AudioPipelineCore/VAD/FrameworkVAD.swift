/// A speech edge a framework's VAD reports: after analysis window `window` (0-based, counted from
/// the stream's start) it said speech started (`started`) or stopped.
public struct FrameworkVADEdge: Sendable, Hashable {
    /// The analysis window (0-based, counted from the stream's start) at whose end the framework
    /// reports the edge; `FrameworkVAD.segments` turns it into a time on the framework's timeline.
    public var window: Int
    /// `true`: speech started (pipecat's state became SPEAKING, LiveKit's START_OF_SPEECH);
    /// `false`: speech stopped (pipecat's QUIET after speaking, LiveKit's END_OF_SPEECH).
    public var started: Bool
    /// An edge reported after `window`.
    /// - Parameters:
    ///   - window: the analysis window, 0-based from the stream's start.
    ///   - started: whether speech started (`true`) or stopped (`false`) there.
    public init(window: Int, started: Bool) {
        self.window = window
        self.started = started
    }
}

/// Pipecat's `VADParams` (its defaults: confidence 0.7, start_secs 0.2, stop_secs 0.2, min_volume
/// 0.6), plus how the emulation frames the stream: `windowSamples` at `sampleRate` (512 at 16 kHz),
/// and `chunkSamples`, the audio per `analyze_audio` call (the transport's chunk: 20 ms).
public struct PipecatVADParameters: Sendable, Hashable {
    /// `confidence` (default 0.7): the model's speech probability, 0…1, a window needs to count as
    /// speech (compared as float32).
    public var confidence = 0.7
    /// `start_secs` (default 0.2 s): how long speech must go on before the analyser says SPEAKING,
    /// counted in whole windows (`startWindows`); 0…60 s.
    public var startSecs = 0.2
    /// `stop_secs` (default 0.2 s): how long non-speech must go on before the analyser goes back to
    /// QUIET, counted in whole windows (`stopWindows`); 0…60 s.
    public var stopSecs = 0.2
    /// `min_volume` (default 0.6): the smoothed volume, 0…1 (`PipecatVolume`: −110…−10 LUFS mapped
    /// to 0…1, so 0.6 is −50 LUFS), a window also needs to count as speech; 0 turns the gate off.
    public var minVolume = 0.6
    /// The analyser's rate, Hz: 16000 (default) or 8000, the rates pipecat's silero runs at.
    public var sampleRate = 16000
    /// Samples per `analyze_audio` call, the transport's chunk (default 320: 20 ms at 16 kHz);
    /// pipecat checks its counts only once per call. 1 sample to 1 s.
    public var chunkSamples = 320
    /// Silero's: 512 at 16 kHz (256 at 8 kHz).
    public var windowSamples = 512

    /// Pipecat's defaults, at 16 kHz with 512-sample windows and 20 ms chunks.
    public init() {}

    /// Windows of speech (silence) it waits for: seconds over the window's length, rounded half to
    /// even as Python's `round` does (0.2 s of 32 ms windows: round(6.25) = 6).
    public var startWindows: Int { Self.windows(startSecs, windowSamples, sampleRate) }
    /// Windows of non-speech it waits for before QUIET: `stopSecs` over the window's length, rounded
    /// half to even as `startWindows` is.
    public var stopWindows: Int { Self.windows(stopSecs, windowSamples, sampleRate) }

    static func windows(_ seconds: Double, _ window: Int, _ rate: Int) -> Int {
        Int((seconds / (Double(window) / Double(rate))).rounded(.toNearestOrEven))
    }

    /// Checks every parameter is in range: `confidence` and `minVolume` in 0…1, `startSecs` and
    /// `stopSecs` in 0…60 s, a rate of 16000 or 8000 Hz, a chunk and a window of 1 sample to 1 s.
    /// - Throws: `invalidConfiguration` ("pipecat: …") naming the first parameter out of range, by
    ///   pipecat's name.
    public func validate() throws(AudioPipelineError) {
        func check(_ ok: Bool, _ what: String) throws(AudioPipelineError) {
            if !ok { throw AudioPipelineError(.invalidConfiguration, "pipecat: \(what)") }
        }
        try check(confidence.isFinite && (0...1).contains(confidence), "confidence must be in 0…1, not \(confidence)")
        try check(startSecs.isFinite && (0...60).contains(startSecs), "start_secs must be in 0…60 s, not \(startSecs)")
        try check(stopSecs.isFinite && (0...60).contains(stopSecs), "stop_secs must be in 0…60 s, not \(stopSecs)")
        try check(minVolume.isFinite && (0...1).contains(minVolume), "min_volume must be in 0…1, not \(minVolume)")
        try check(sampleRate == 16000 || sampleRate == 8000, "sample rate must be 16000 or 8000, not \(sampleRate)")
        try check((1...sampleRate).contains(chunkSamples), "chunk must be 1 sample to 1 s, not \(chunkSamples)")
        try check((1...sampleRate).contains(windowSamples), "window must be 1 sample to 1 s, not \(windowSamples)")
    }
}

/// Pipecat's VAD decision (VADAnalyzer with its transport's event rule), window by window: a
/// window is speech when its confidence (compared as float32, as numpy compares the model's
/// output) reaches `confidence` and the smoothed volume reaches `min_volume`. QUIET → STARTING on
/// speech; STARTING counts speech windows and falls back to QUIET on one that is not; SPEAKING →
/// STOPPING on non-speech, which counts and returns to SPEAKING on speech. The counts are checked
/// once per call, after the chunk's last window: STARTING becomes SPEAKING at ≥ start windows,
/// STOPPING becomes QUIET at ≥ stop windows. The transport reports "started" when the state it
/// sees becomes SPEAKING and "stopped" when it becomes QUIET after speaking (STARTING and STOPPING
/// are never reported).
public struct PipecatVADDecider: Sendable {
    /// Pipecat's `VADState`: where the analyser is between silence and speech.
    public enum State: Sendable {
        /// QUIET: no speech (the start, and after a stop).
        case quiet
        /// STARTING: speech windows counted towards `startWindows`; not reported.
        case starting
        /// SPEAKING: speech confirmed (reported as "started").
        case speaking
        /// STOPPING: non-speech windows counted towards `stopWindows`; not reported.
        case stopping
    }
    /// The parameters it decides by (validated by `init`).
    public let parameters: PipecatVADParameters
    private let threshold: Float
    private let startWindows: Int
    private let stopWindows: Int
    /// The analyser's state after the last window processed (STARTING and STOPPING included:
    /// the transport reports only SPEAKING and QUIET).
    public private(set) var state = State.quiet
    private var reported = State.quiet
    private var starting = 0
    private var stopping = 0
    private var window = 0

    /// A decider at the start of a stream (QUIET, window 0).
    /// - Parameters:
    ///   - parameters: pipecat's `VADParams` and the emulation's framing.
    /// - Throws: `invalidConfiguration` when `parameters.validate()` does.
    public init(_ parameters: PipecatVADParameters) throws(AudioPipelineError) {
        try parameters.validate()
        self.parameters = parameters
        threshold = Float(parameters.confidence)
        startWindows = parameters.startWindows
        stopWindows = parameters.stopWindows
    }

    /// Whether the counts are checked after window `k`: it is the last window that the chunk
    /// holding its end completes.
    func checked(_ k: Int) -> Bool {
        let w = parameters.windowSamples
        let c = parameters.chunkSamples
        return ((k + 1) * w + c - 1) / c < ((k + 2) * w + c - 1) / c
    }

    /// Decides a run of windows: each one's confidence and smoothed volume (`PipecatVolume`).
    /// Calls `edge` with every reported start and stop.
    public mutating func process(
        confidences: UnsafeBufferPointer<Float>, volumes: UnsafeBufferPointer<Double>, edge: (FrameworkVADEdge) -> Void
    ) {
        for i in 0..<min(confidences.count, volumes.count) {
            step(speaking: confidences[i] >= threshold && volumes[i] >= parameters.minVolume)
            if checked(window) {
                if state == .starting && starting >= startWindows {
                    state = .speaking
                    starting = 0
                }
                if state == .stopping && stopping >= stopWindows {
                    state = .quiet
                    stopping = 0
                }
                if state != reported && (state == .speaking || state == .quiet) {
                    edge(FrameworkVADEdge(window: window, started: state == .speaking))
                    reported = state
                }
            }
            window += 1
        }
    }

    private mutating func step(speaking: Bool) {
        switch (speaking, state) {
        case (true, .quiet):
            state = .starting
            starting = 1
        case (true, .starting): starting += 1
        case (true, .stopping):
            state = .speaking
            stopping = 0
        case (false, .starting):
            state = .quiet
            starting = 0
        case (false, .speaking):
            state = .stopping
            stopping = 1
        case (false, .stopping): stopping += 1
        default: break
        }
    }

    /// Forgets the stream (a new recording): QUIET, no counts, windows counted from 0 again.
    public mutating func reset() {
        state = .quiet
        reported = .quiet
        starting = 0
        stopping = 0
        window = 0
    }
}

/// The options of LiveKit Agents' silero plugin (`silero.VAD.load`; its defaults). Only the first
/// four decide when speech starts and stops; `prefix_padding_duration` and `max_buffered_speech`
/// shape the audio attached to the events and are carried so best.json holds the whole call.
public struct LiveKitVADParameters: Sendable, Hashable {
    /// `activation_threshold` (default 0.5): the filtered speech probability, 0…1, at which a window
    /// counts as speech.
    public var activationThreshold = 0.5
    /// nil: the plugin's rule, max(activation − 0.15, 0.01).
    public var deactivationThreshold: Double?
    /// `min_speech_duration` (default 0.05 s): how long a run of speech windows must last before
    /// START_OF_SPEECH; 0…3600 s.
    public var minSpeechDuration = 0.05
    /// `min_silence_duration` (default 0.55 s): how long a run of non-speech windows must last
    /// while speaking before END_OF_SPEECH; 0…3600 s.
    public var minSilenceDuration = 0.55
    /// `prefix_padding_duration` (default 0.5 s): audio before the start that the plugin attaches to
    /// the speech event; it does not move the decision. 0…3600 s.
    public var prefixPaddingDuration = 0.5
    /// `max_buffered_speech` (default 60 s): the most speech audio the plugin buffers for an event;
    /// it does not move the decision. 0…3600 s.
    public var maxBufferedSpeech = 60.0
    /// `sample_rate`: the analyser's rate, Hz: 16000 (default) or 8000.
    public var sampleRate = 16000
    /// Silero's: 512 at 16 kHz (256 at 8 kHz).
    public var windowSamples = 512

    /// The plugin's defaults (the deactivation threshold following the activation threshold), at
    /// 16 kHz with 512-sample windows.
    public init() {}
    /// The deactivation threshold in force: `deactivationThreshold`, or when nil the plugin's rule,
    /// max(activation − 0.15, 0.01) (0.35 at the defaults).
    public var effectiveDeactivation: Double { deactivationThreshold ?? max(activationThreshold - 0.15, 0.01) }
    /// The plugin's smoothing of the model's output: `p = 0.35 · p + 0.65 · raw` (the first: raw).
    public static let filterAlpha = 0.35

    /// Checks every option is in range: the activation threshold in 0…1, the deactivation threshold
    /// (when given) in (0, 1], the durations in 0…3600 s, a rate of 16000 or 8000 Hz and a window of
    /// 1 sample to 1 s.
    /// - Throws: `invalidConfiguration` ("livekit: …") naming the first option out of range, by the
    ///   plugin's name.
    public func validate() throws(AudioPipelineError) {
        func check(_ ok: Bool, _ what: String) throws(AudioPipelineError) {
            if !ok { throw AudioPipelineError(.invalidConfiguration, "livekit: \(what)") }
        }
        try check(
            activationThreshold.isFinite && (0...1).contains(activationThreshold),
            "activation_threshold must be in 0…1, not \(activationThreshold)")
        if let d = deactivationThreshold {
            try check(d.isFinite && d > 0 && d <= 1, "deactivation_threshold must be in (0, 1], not \(d)")
        }
        for (name, v) in [
            ("min_speech_duration", minSpeechDuration), ("min_silence_duration", minSilenceDuration),
            ("prefix_padding_duration", prefixPaddingDuration), ("max_buffered_speech", maxBufferedSpeech),
        ] {
            try check(v.isFinite && (0...3600).contains(v), "\(name) must be in 0…3600 s, not \(v)")
        }
        try check(sampleRate == 16000 || sampleRate == 8000, "sample rate must be 16000 or 8000, not \(sampleRate)")
        try check((1...sampleRate).contains(windowSamples), "window must be 1 sample to 1 s, not \(windowSamples)")
    }
}

/// LiveKit's silero plugin decision, window by window: the model's output filtered
/// (`filterAlpha`); a window counts as speech when the filtered value reaches the activation
/// threshold, or, while speaking, stays above the deactivation threshold. Speech and silence
/// durations add up the window's duration in floating point (as the plugin does, so 0.032·k meets
/// a limit exactly when its sum does); START_OF_SPEECH when the speech run reaches
/// `min_speech_duration`, END_OF_SPEECH when the silence run reaches `min_silence_duration`, both
/// reported at the end of that window.
public struct LiveKitVADDecider: Sendable {
    /// The options it decides by (validated by `init`).
    public let parameters: LiveKitVADParameters
    private let windowDuration: Double
    private let deactivation: Double
    private var filtered: Double?
    private var speaking = false
    private var speech = 0.0
    private var silence = 0.0
    private var window = 0

    /// A decider at the start of a stream (not speaking, no filter history, window 0).
    /// - Parameters:
    ///   - parameters: the silero plugin's options and the window's length and rate.
    /// - Throws: `invalidConfiguration` when `parameters.validate()` does.
    public init(_ parameters: LiveKitVADParameters) throws(AudioPipelineError) {
        try parameters.validate()
        self.parameters = parameters
        windowDuration = Double(parameters.windowSamples) / Double(parameters.sampleRate)
        deactivation = parameters.effectiveDeactivation
    }

    /// Decides a run of windows from the model's raw outputs; calls `edge` with every start and stop.
    public mutating func process(_ confidences: UnsafeBufferPointer<Float>, edge: (FrameworkVADEdge) -> Void) {
        let a = LiveKitVADParameters.filterAlpha
        for raw in confidences {
            let sample = Double(raw)
            let p = filtered.map { a * $0 + (1 - a) * sample } ?? sample
            filtered = p
            if p >= parameters.activationThreshold || (speaking && p > deactivation) {
                speech += windowDuration
                silence = 0
                if !speaking && speech >= parameters.minSpeechDuration {
                    speaking = true
                    edge(FrameworkVADEdge(window: window, started: true))
                }
            } else {
                silence += windowDuration
                speech = 0
                if speaking && silence >= parameters.minSilenceDuration {
                    speaking = false
                    edge(FrameworkVADEdge(window: window, started: false))
                }
            }
            window += 1
        }
    }

    /// Forgets the stream (a new recording): no filter history, not speaking, no speech or silence
    /// run, windows counted from 0 again.
    public mutating func reset() {
        filtered = nil
        speaking = false
        speech = 0
        silence = 0
        window = 0
    }
}
