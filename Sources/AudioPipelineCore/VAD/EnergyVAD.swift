/// Streaming energy voice-activity detector for barge-in, optionally echo-aware.
///
/// ## Method
/// 1. **Bands.** Each sample goes through a DC/rumble high-pass and a cascade of one-pole
///    splits into four bands (below 300 Hz, 300–1000, 1000–3000, above 3000 Hz); a frame's
///    energy per band is its mean square in dB (full scale = 0 dB, as dBFS RMS). With a far-end
///    reference, the microphone and the reference are cut into eight narrower bands (split at 150,
///    300, 600, 1000, 1800, 3000 and 5000 Hz) by steep filters (fourth-order Butterworth,
///    `VADBandPairAnalyzer`): the echo model predicts a band of the microphone from the same band
///    of the reference, which wide one-pole bands blur.
/// 2. **Noise floor per band**: a running quantile (`floorQuantile`, default the 20th percentile)
///    of the band energy over the last `floorWindow` seconds. Stationary noise, hum and a talker's
///    own pauses set it; a quantile (not a minimum) also follows fluctuating noise such as babble.
///    A talker may fill up to (1 − quantile) of the window without lifting the floor; the price
///    would be that a sudden lasting rise of the noise reads as speech for that long (4 s), so
///    speech whose every band standing out has held one level for `steadyNoiseMilliseconds` (600)
///    ends, and those floors are lifted to it (`VADDecider+Steady.swift`): a voice never holds so.
/// 3. **Echo model (with a far-end reference)**: the reference goes through the same bands, and
///    `VADEchoModel` expects its echo per band: the echo delay found by a running correlation of
///    mic and reference band-level changes over 0–500 ms, the echo gain learnt per band over the
///    reference from that delay on (a reverberant tail of `echoReverbMilliseconds`), and before
///    either is known the worst plausible echo, then a learnt envelope over the whole search range.
///    Bands in which the loudspeaker reproduces little (typically below 300 Hz) get a low gain, so
///    the user's voice there stands out even when the echo is louder overall. Speech does not start
///    while the echo of an utterance that follows a pause is arriving.
/// 4. **Score**: per band, the excess of the frame energy over noise floor ⊕ expected echo (power
///    sum, in dB; the echo raised by its margin: the echo model's own error in the band, a robust
///    standard deviation of mic − reference over the frames the gain learns from, within
///    [`echoMarginMinimum`, `echoMargin`]); the frame score is the mean of the two largest band
///    excesses (the bands where speech stands out, robust to one noisy band).
/// 5. **Decision**: speech starts when the score is ≥ `enterThreshold` for `minimumSpeech` (and
///    the frame is above `absoluteThreshold` dBFS and within `talkerOnsetGate` — with a reference,
///    `talkerGate` widened by the score's excess over `enterThreshold` — of the loudest recent
///    speech) — or, without a reference, when the frame's
///    score and its average over `exitAverageFrames` frames, each less what the noise alone shows,
///    are both ≥ `sustainedEnterThreshold` (5.5 dB: a voice in loud noise that holds a smaller
///    excess frame after frame); it ends when the score — averaged over
///    `exitAverageFrames` frames, less the median score of recent non-speech frames (what the
///    noise alone shows over its floor) — has stayed below `exitThreshold` (or the level more than
///    `talkerGate` under the loudest) for `hangover`. **Transients**: speech younger than
///    `transientMilliseconds` (20) ends at once, without averaging or hangover, at a frame whose
///    own score (less the noise's) is below `exitThreshold` and `transientDrop` (10 dB) below the
///    highest since the onset — a click or a knock is over within a frame or two, a word's first
///    frames do not collapse so. **Onsets** (`onsetDrop`): speech is declared only after the run of
///    frames passing the start test has held two frames (three when its sound began in the first
///    frame's second half, `onsetJump`; a rising frame before it counts as its lead-in) without a
///    score more than `onsetDrop` below the run's highest — so a click, a tap or a clatter, which
///    falls 5–30 dB by the next frame, never opens speech at all (with a reference, a frame whose
///    score fell with the echo's return holds the run where the bands that stood out hold their
///    level, a lead-in counts in the onset's own bands, and a run that began with a click's attack
///    holds one frame more; with or without one, a frame whose sound decays through it opens no
///    speech, and without one nor does a run that has only fallen since its highest, a clink's
///    ring: `VADDecider+Onset.swift`; with or without one, nor does a frame whose sound above 1 kHz
///    its own samples 2 ms earlier predict, a ring's: `VADDecider+Ring.swift`). One decision per
///    frame, stamped at the frame's end.
///
/// Streaming: input in any block sizes gives the same decisions (frames are assembled
/// internally); no allocation after init.
///
/// ## Parts
/// `VADConfiguration` holds the parameters; `VADBandAnalyzer` does step 1, `VADDecider` steps 2–5
/// (separate so that `vad tune` computes the bands once per file and sweeps settings over them);
/// `RunningQuantile` is the floors', gains' and talker's quantile.
///
/// ## The stage
/// A `StreamingStage` (DESIGN.md): microphone samples in (mono, any block sizes), one
/// `VADDecider.Frame` out per completed frame, into caller-owned storage. With a far-end
/// reference, pass the same number of reference samples (the audio handed to playback, on the
/// mic's timeline) to `process(_:reference:into:)`. `finish` decides the last, incomplete frame.
/// `latency`: a fresh speech onset shows in the decision of the `onsetFrames`-th frame from its start
/// (one more when it began late in its first frame).
public struct EnergyVAD: StreamingStage, Sendable {
    /// Microphone samples (mono).
    public typealias Input = Float
    /// One decision per frame.
    public typealias Output = VADDecider.Frame

    /// Rate of the microphone (and reference) samples, Hz.
    public let sampleRate: Int
    /// Samples per frame (`frameMilliseconds` at `sampleRate`).
    public let frameLength: Int
    private var mic: VADBandAnalyzer
    private var ref: VADBandAnalyzer
    /// The steep bands of the microphone and the reference, for a stream that starts with a reference.
    private var pair: VADBandPairAnalyzer
    /// What a block without a reference feeds `pair` in such a stream (the far end played nothing).
    private let silentBlock: [Float]
    /// The decision logic, with its state (`speaking`, the echo estimate).
    public private(set) var decider: VADDecider
    /// Whether this stream came with a reference (so `finish` closes the reference's frame too).
    private var hasReference = false
    /// Whether the stream's first block came with a reference (decided then, until `reset`): its
    /// bands are then the steep ones, for every block. A stream that starts without one and gets one
    /// later keeps the one-pole bands.
    private var steep: Bool?

    /// A detector for mono audio at `sampleRate`; all state allocated here.
    /// - Throws: `invalidConfiguration` for a configuration out of range or a rate outside 4–384 kHz.
    public init(sampleRate: Int, configuration: VADConfiguration) throws(AudioPipelineError) {
        try configuration.validate()
        guard sampleRate >= 4000 && sampleRate <= 384_000 else {
            throw AudioPipelineError(
                .invalidConfiguration, "VAD: sample rate \(sampleRate) Hz is out of range (4 kHz … 384 kHz)")
        }
        self.sampleRate = sampleRate
        frameLength = Int((Double(sampleRate) * configuration.frameMilliseconds / 1000).rounded())
        mic = VADBandAnalyzer(sampleRate: sampleRate, frameLength: frameLength)
        ref = VADBandAnalyzer(sampleRate: sampleRate, frameLength: frameLength)
        pair = VADBandPairAnalyzer(sampleRate: sampleRate, frameLength: frameLength)
        silentBlock = [Float](repeating: 0, count: max(1, frameLength))
        decider = try VADDecider(configuration: configuration, sampleRate: sampleRate)
    }

    /// Frames from a speech onset to the decision that shows it (`VADConfiguration.onsetFrames`).
    public var latency: Int { decider.configuration.onsetFrames }

    /// Decisions `count` more samples can complete; with 0, what `finish` writes (at most one).
    public func maxOutputCount(forInput count: Int) -> Int {
        count == 0 ? 1 : ((steep == true ? pair.pending : mic.pending) + count) / frameLength
    }

    /// Forgets the stream: floors, echo model and decision state start again.
    public mutating func reset() {
        mic.reset()
        ref.reset()
        pair.reset()
        decider.reset()
        hasReference = false
        steep = nil
    }

    /// Microphone samples in any block size, one decision per completed frame; allocates nothing.
    /// Stops early (consuming less) when `output` is full.
    public mutating func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<VADDecider.Frame>
    ) -> ProcessResult {
        run(input, reference: nil, into: output)
    }

    /// As `process(_:into:)`, with the far-end reference: `reference.count` must equal `input.count`.
    /// A stream whose first samples come with a reference is analysed in the steep bands
    /// (`VADBandPairAnalyzer`) to its end; its later blocks without one count as silence from the far
    /// end.
    public mutating func process(
        _ input: UnsafeBufferPointer<Float>, reference: UnsafeBufferPointer<Float>,
        into output: UnsafeMutableBufferPointer<VADDecider.Frame>
    ) -> ProcessResult {
        precondition(
            reference.count == input.count,
            "VAD: reference block (\(reference.count)) differs from the mic block (\(input.count))")
        hasReference = true
        return run(input, reference: reference, into: output)
    }

    /// Decides the last, incomplete frame (if any samples are pending): writes at most one decision.
    public mutating func finish(into output: UnsafeMutableBufferPointer<VADDecider.Frame>) -> Int {
        if steep == true {
            guard output.count > 0, pair.pending > 0 else { return 0 }
            var produced = 0
            pair.finish(withPredictor: { mic, reference, ring in
                output[0] = decider.process(mic: mic, reference: reference, ring: ring)
                produced = 1
            })
            return produced
        }
        guard output.count > 0, mic.pending > 0 else { return 0 }
        var refFrame: SIMD8<Double>?
        if hasReference { ref.finish(withPredictor: { frame, _ in refFrame = frame.bands }) }
        var produced = 0
        mic.finish(withPredictor: { frame, ring in
            let far = hasReference ? refFrame ?? VADBandPairAnalyzer.silence : nil
            output[0] = decider.process(mic: frame, reference: far, ring: ring)
            produced = 1
        })
        return produced
    }

    /// Feeds at most up to the end of the current frame per step, so each step completes at most one
    /// frame in both streams (they are aligned), and stops when `output` is full.
    private mutating func run(
        _ input: UnsafeBufferPointer<Float>, reference: UnsafeBufferPointer<Float>?,
        into output: UnsafeMutableBufferPointer<VADDecider.Frame>
    ) -> ProcessResult {
        if steep == nil && !input.isEmpty { steep = reference != nil }
        if steep == true { return runSteep(input, reference: reference, into: output) }
        var consumed = 0
        var produced = 0
        while consumed < input.count && produced < output.count {
            let step = min(input.count - consumed, frameLength - mic.pending)
            var refFrame: SIMD8<Double>?
            if let reference {
                let far = UnsafeBufferPointer(rebasing: reference[consumed..<(consumed + step)])
                ref.process(far, withPredictor: { frame, _ in refFrame = frame.bands })
            }
            let block = UnsafeBufferPointer(rebasing: input[consumed..<(consumed + step)])
            mic.process(
                block,
                withPredictor: { frame, ring in
                    let far = reference == nil ? nil : refFrame ?? VADBandPairAnalyzer.silence
                    output[produced] = decider.process(mic: frame, reference: far, ring: ring)
                    produced += 1
                })
            consumed += step
        }
        return ProcessResult(consumed: consumed, produced: produced)
    }

    /// `run` for a stream that started with a reference: the steep bands of both, a block without a
    /// reference counting as one of silence.
    private mutating func runSteep(
        _ input: UnsafeBufferPointer<Float>, reference: UnsafeBufferPointer<Float>?,
        into output: UnsafeMutableBufferPointer<VADDecider.Frame>
    ) -> ProcessResult {
        var consumed = 0
        var produced = 0
        while consumed < input.count && produced < output.count {
            let step = min(input.count - consumed, frameLength - pair.pending)
            let mic = UnsafeBufferPointer(rebasing: input[consumed..<(consumed + step)])
            if let reference {
                let far = UnsafeBufferPointer(rebasing: reference[consumed..<(consumed + step)])
                pair.process(
                    mic: mic, reference: far,
                    withPredictor: { m, r, ring in
                        output[produced] = decider.process(mic: m, reference: r, ring: ring)
                        produced += 1
                    })
            } else {
                silentBlock.withUnsafeBufferPointer { silence in
                    let far = UnsafeBufferPointer(rebasing: silence[0..<step])
                    pair.process(
                        mic: mic, reference: far,
                        withPredictor: { m, r, ring in
                            output[produced] = decider.process(mic: m, reference: r, ring: ring)
                            produced += 1
                        })
                }
            }
            consumed += step
        }
        return ProcessResult(consumed: consumed, produced: produced)
    }
}
