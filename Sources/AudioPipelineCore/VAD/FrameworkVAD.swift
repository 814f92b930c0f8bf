/// A speech edge a framework's VAD reports: after analysis window `window` (0-based, counted from
/// the stream's start) it said speech started (`started`) or stopped.
public struct FrameworkVADEdge: Sendable, Hashable {
    public var window: Int
    public var started: Bool
    public init(window: Int, started: Bool) {
        self.window = window
        self.started = started
    }
}

/// Pipecat's `VADParams` (its defaults: confidence 0.7, start_secs 0.2, stop_secs 0.2, min_volume
/// 0.6), plus how the emulation frames the stream: `windowSamples` at `sampleRate` (512 at 16 kHz),
/// and `chunkSamples`, the audio per `analyze_audio` call (the transport's chunk: 20 ms).
public struct PipecatVADParameters: Sendable, Hashable {
    public var confidence = 0.7
    public var startSecs = 0.2
    public var stopSecs = 0.2
    public var minVolume = 0.6
    public var sampleRate = 16000
    public var chunkSamples = 320
    /// Silero's: 512 at 16 kHz (256 at 8 kHz).
    public var windowSamples = 512

    public init() {}

    /// Windows of speech (silence) it waits for: seconds over the window's length, rounded half to
    /// even as Python's `round` does (0.2 s of 32 ms windows: round(6.25) = 6).
    public var startWindows: Int { Self.windows(startSecs, windowSamples, sampleRate) }
    public var stopWindows: Int { Self.windows(stopSecs, windowSamples, sampleRate) }

    static func windows(_ seconds: Double, _ window: Int, _ rate: Int) -> Int {
        Int((seconds / (Double(window) / Double(rate))).rounded(.toNearestOrEven))
    }

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
    public enum State: Sendable { case quiet, starting, speaking, stopping }
    public let parameters: PipecatVADParameters
    private let threshold: Float
    private let startWindows: Int
    private let stopWindows: Int
    public private(set) var state = State.quiet
    private var reported = State.quiet
    private var starting = 0
    private var stopping = 0
    private var window = 0

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
    public var activationThreshold = 0.5
    /// nil: the plugin's rule, max(activation − 0.15, 0.01).
    public var deactivationThreshold: Double?
    public var minSpeechDuration = 0.05
    public var minSilenceDuration = 0.55
    public var prefixPaddingDuration = 0.5
    public var maxBufferedSpeech = 60.0
    public var sampleRate = 16000
    /// Silero's: 512 at 16 kHz (256 at 8 kHz).
    public var windowSamples = 512

    public init() {}
    public var effectiveDeactivation: Double { deactivationThreshold ?? max(activationThreshold - 0.15, 0.01) }
    /// The plugin's smoothing of the model's output: `p = 0.35 · p + 0.65 · raw` (the first: raw).
    public static let filterAlpha = 0.35

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
    public let parameters: LiveKitVADParameters
    private let windowDuration: Double
    private let deactivation: Double
    private var filtered: Double?
    private var speaking = false
    private var speech = 0.0
    private var silence = 0.0
    private var window = 0

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

    public mutating func reset() {
        filtered = nil
        speaking = false
        speech = 0
        silence = 0
        window = 0
    }
}
