import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// Runs the streaming detector over a whole file (reference optional) and turns its per-frame
/// decisions into segments on the streaming timeline.
public struct VADRun: Sendable {
    /// One decision per frame.
    public var frames: [VADDecider.Frame]
    /// Length of one frame, s.
    public var frameSeconds: Double
    /// The file's length, s.
    public var duration: Double
    /// The detector's parameters.
    public var configuration: VADConfiguration
    /// What each frame's decision was made of, when asked for (`init(explaining:…)`,
    /// `VADCorpus.run(_:configuration:details:)`); empty otherwise.
    public var details: [VADDecider.Detail] = []

    /// Runs the detector over `samples` (mono at `rate`), with `reference` (same length) if given.
    /// - Throws: `invalidConfiguration` for a configuration or rate the detector refuses.
    public init(samples: [Float], rate: Int, reference: [Float]?, configuration: VADConfiguration)
        throws(AudioPipelineError)
    {
        var vad = try EnergyVAD(sampleRate: rate, configuration: configuration)
        // One call takes everything when the output holds maxOutputCount decisions; then finish.
        var frames = [VADDecider.Frame](
            repeating: VADDecider.Frame(level: 0, floor: 0, echo: 0, score: 0, speech: false),
            count: vad.maxOutputCount(forInput: samples.count) + vad.maxOutputCount(forInput: 0))
        let produced = samples.withUnsafeBufferPointer { mic in
            frames.withUnsafeMutableBufferPointer { out -> Int in
                let r: ProcessResult
                if let reference {
                    r = reference.withUnsafeBufferPointer { vad.process(mic, reference: $0, into: out) }
                } else {
                    r = vad.process(mic, into: out)
                }
                return r.produced + vad.finish(into: UnsafeMutableBufferPointer(rebasing: out[r.produced...]))
            }
        }
        frames.removeLast(frames.count - produced)
        self.frames = frames
        frameSeconds = Double(vad.frameLength) / Double(rate)
        duration = Double(samples.count) / Double(rate)
        self.configuration = configuration
    }

    /// The file at `path`, streamed (mono at its own rate, block by block): memory holds the
    /// decisions, not the audio — an hour takes ~17 MB of them whatever the file's rate and channels.
    /// The same decisions as `init(samples:…)` over the whole file (the detector is block-size
    /// independent). Returns the run, the file's warnings (truncated, NaN samples) and, with
    /// `explain`, each segment's explanation (`VADExplainer.Stream`, written as the frames pass);
    /// with `trace`, every frame's detail is written to it as the frames pass (the caller commits it).
    ///
    /// With `reference` (a far-end reference file, converted to the microphone's rate with
    /// `resampler`), the reference is pulled in step with the microphone (`MonoPuller`), padded with
    /// silence or cut to the microphone's length as `AudioLoader.reference` does, with its warning.
    public static func streaming(
        path: String, reference: String? = nil, resampler: ResamplerChoice = .default,
        configuration: VADConfiguration, explain: Bool = false, trace: VADFrameTrace? = nil
    ) throws(AudioPipelineError) -> (
        run: VADRun, rate: Int, warnings: [String], explanations: [VADSegmentExplanation]
    ) {
        // `EnergyVAD`'s band analysis (`VADCorpus.bandFrames`) and decider, one frame at a time (its
        // own, for the file's rate, once that is known).
        var decider = try VADDecider(configuration: configuration)
        var explainer: VADExplainer.Stream?
        var frameSeconds = 0.0
        var frames: [VADDecider.Frame] = []
        var detail = VADDecider.Detail()
        let s = try VADCorpus.bandFrames(
            path: path, reference: reference, resampler: resampler, frameMilliseconds: [configuration.frameMilliseconds]
        ) { (rate) throws(AudioPipelineError) in
            let vad = try EnergyVAD(sampleRate: rate, configuration: configuration)  // its checks, before reading
            decider = vad.decider
            frameSeconds = Double(vad.frameLength) / Double(rate)
            if explain { explainer = .init(configuration: configuration, frameSeconds: frameSeconds) }
        } frame: { _, mic, reference in
            if explainer != nil || trace != nil {
                frames.append(decider.process(mic: mic, reference: reference, detail: &detail))
                explainer?.add(frames[frames.count - 1], detail)
                trace?.add(frames[frames.count - 1], detail, index: frames.count - 1, frameSeconds: frameSeconds)
            } else {
                frames.append(decider.process(mic: mic, reference: reference))
            }
        }
        let duration = Double(s.samples) / Double(s.rate)
        explainer?.finish(duration: duration)
        let run = VADRun(
            frames: frames, frameSeconds: s.frameSeconds[0], duration: duration, configuration: configuration)
        return (run, s.rate, s.warnings, explainer?.explanations ?? [])
    }

    /// A run of the given decisions (and details).
    public init(
        frames: [VADDecider.Frame], frameSeconds: Double, duration: Double, configuration: VADConfiguration,
        details: [VADDecider.Detail] = []
    ) {
        self.frames = frames
        self.frameSeconds = frameSeconds
        self.duration = duration
        self.configuration = configuration
        self.details = details
    }

    /// As `init(samples:rate:reference:configuration:)` — the same decisions — with every frame's
    /// `VADDecider.Detail` (the band analysis of the whole file first, then the decider over it).
    public init(explaining samples: [Float], rate: Int, reference: [Float]?, configuration: VADConfiguration)
        throws(AudioPipelineError)
    {
        _ = try EnergyVAD(sampleRate: rate, configuration: configuration)  // the same checks
        let f = VADCorpus.features(samples, reference, rate: rate, frameMilliseconds: configuration.frameMilliseconds)
        let (frames, details) = try VADCorpus.decide(f, configuration: configuration, details: true)
        self.init(
            frames: frames, frameSeconds: f.frameSeconds, duration: Double(samples.count) / Double(rate),
            configuration: configuration, details: details)
    }

    /// Speech segments. Streaming (default): a segment starts at the end of the frame whose decision
    /// turned speech on and ends at the end of the first frame decided non-speech. `align`: starts
    /// are moved back to the first frame of the confirming run, minus the pre-roll; ends to the end
    /// of the last speech frame.
    public func segments(align: Bool = false) -> [SpeechSegment] {
        Self.segments(
            decisions: frames.map(\.speech), frameSeconds: frameSeconds, duration: duration,
            configuration: configuration, align: align)
    }

    /// The segments of a sequence of decisions (see `segments(align:)`).
    public static func segments(
        decisions: [Bool], frameSeconds f: Double, duration: Double, configuration c: VADConfiguration, align: Bool
    ) -> [SpeechSegment] {
        SpeechSegmenter(frameSeconds: f, configuration: c, align: align).segments(decisions, duration: duration)
    }
}
