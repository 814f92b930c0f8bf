extension VADConfiguration {
    /// Where a parameter is stored (a key-path literal, which is `Sendable`).
    public typealias ParameterKeyPath = WritableKeyPath<VADConfiguration, Double> & Sendable

    /// Every parameter, once: its JSON name and where it is stored. The names are the keys of the
    /// file `vad tune` writes (see `Codable`), of `--param NAME=VALUE` and of tuning grids; the
    /// order is the one reports list them in.
    public static let parameters: [(name: String, keyPath: ParameterKeyPath)] = [
        ("frame_ms", \.frameMilliseconds),
        ("floor_quantile", \.floorQuantile),
        ("floor_window_s", \.floorWindowSeconds),
        ("enter_db", \.enterThreshold),
        ("exit_db", \.exitThreshold),
        ("sustained_enter_db", \.sustainedEnterThreshold),
        ("absolute_dbfs", \.absoluteThreshold),
        ("min_speech_ms", \.minimumSpeechMilliseconds),
        ("hangover_ms", \.hangoverMilliseconds),
        ("preroll_ms", \.preRollMilliseconds),
        ("echo_delay_min_ms", \.echoDelayMinMilliseconds),
        ("echo_delay_max_ms", \.echoDelayMaxMilliseconds),
        ("echo_margin_db", \.echoMargin),
        ("echo_margin_min_db", \.echoMarginMinimum),
        ("echo_gain_window_s", \.echoGainWindowSeconds),
        ("initial_echo_gain_db", \.initialEchoGain),
        ("reference_active_dbfs", \.referenceActiveThreshold),
        ("echo_rt60_ms", \.echoReverbMilliseconds),
        ("echo_delay_tau_s", \.echoDelaySmoothingSeconds),
        ("echo_onset_guard_ms", \.echoOnsetGuardMilliseconds),
        ("talker_gate_db", \.talkerGate),
        ("talker_window_s", \.talkerWindowSeconds),
        ("talker_onset_gate_db", \.talkerOnsetGate),
        ("exit_average_frames", \.exitAverageFrames),
        ("transient_ms", \.transientMilliseconds),
        ("transient_drop_db", \.transientDrop),
        ("steady_noise_ms", \.steadyNoiseMilliseconds),
        ("onset_drop_db", \.onsetDrop),
        ("onset_jump_db", \.onsetJump),
    ]

    /// The JSON names of `parameters`, in order.
    public static let parameterNames = parameters.map(\.name)

    /// Where the parameter called `name` is stored, or nil for an unknown name.
    public static func keyPath(named name: String) -> ParameterKeyPath? {
        parameters.first { $0.name == name }?.keyPath
    }

    /// Parameter by its JSON name: nil for an unknown name; setting an unknown name, or nil, does
    /// nothing.
    public subscript(name: String) -> Double? {
        get { Self.keyPath(named: name).map { self[keyPath: $0] } }
        set {
            guard let value = newValue, let keyPath = Self.keyPath(named: name) else { return }
            self[keyPath: keyPath] = value
        }
    }
}
