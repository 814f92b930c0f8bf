import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// One recording as a framework's VAD sees it: its scores (checked against its length) and, for
/// pipecat, the smoothed volume of every window (`PipecatVolume`, streamed from the file at the
/// analyser's rate: the file's own at 8 or 16 kHz, else converted to 16 kHz as the framework
/// converts it). Computed once; every setting of a sweep only runs the decider over it.
public struct FrameworkRecording: Sendable {
    /// The recording's path.
    public var audioPath: String
    /// Its per-window confidences, read and checked against the recording's length.
    public var scores: FrameworkScores
    /// The analyser's rate and window.
    public var rate: Int
    /// Samples per analysis window at `rate`, from the score file's window (silero's: 512 at 16 kHz,
    /// 256 at 8 kHz).
    public var windowSamples: Int
    /// The recording's length at `rate`, s: what is scored, and where speech still going is closed.
    public var duration: Double
    /// Pipecat's smoothed volume (`PipecatVolume`, 0…1) after each window, one per confidence (the
    /// last repeated where the scores run a window or two past the audio); empty for a framework
    /// without a volume gate (`FrameworkVAD.needsAudio`).
    public var volumes: [Double]
    /// What was off but did not stop the job: the audio's, the score file's (clamped confidences)
    /// and a conversion of the recording's rate for the emulation.
    public var warnings: [String]

    /// Audio per pipecat `analyze_audio` call (the transport's chunk), ms.
    public static let chunkMilliseconds = 20

    /// Samples per pipecat `analyze_audio` call at `rate` (`chunkMilliseconds` of audio: 320 at
    /// 16 kHz).
    public var chunkSamples: Int { rate * Self.chunkMilliseconds / 1000 }

    /// Reads the scores and streams the recording once: its length and, for pipecat, its volumes.
    /// - Parameters:
    ///   - audio: the recording's path.
    ///   - path: its score file, `NAME.csv` from scripts/vad-scores.py.
    ///   - framework: the framework emulated (whether the volumes are measured).
    /// - Throws: `inputUnavailable` when the score file is not there (the message says how to make
    ///   it); `invalidData` for a malformed score file, a window that is not a whole number of
    ///   samples, or scores that do not cover the recording; the audio reader's errors.
    public init(audio: String, scores path: String, framework: FrameworkVAD) throws(AudioPipelineError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw AudioPipelineError(
                .inputUnavailable,
                "\(path): no score file for \(audio) (make them with scripts/vad-scores.py --vad silero "
                    + "--for \(framework.rawValue) AUDIO_DIR SCORES_DIR)")
        }
        audioPath = audio
        scores = try FrameworkScores(path: path)
        let fileRate = try AudioFileReader(path: audio).description.format.sampleRate.hz
        rate = fileRate == 8000 ? 8000 : 16000
        windowSamples = try scores.windowSamples(rate: rate)
        var meter = try PipecatVolume(sampleRate: rate, windowSamples: windowSamples)
        var volumes: [Double] = []
        let needsVolume = framework.needsAudio
        let loaded = try AudioLoader.monoBlocks(path: audio, rate: rate == fileRate ? nil : rate, prepare: { _ in }) {
            block in
            if needsVolume { meter.process(block) { volumes.append($0) } }
        }
        duration = Double(loaded.samples) / Double(rate)
        warnings = loaded.warnings + scores.warnings
        try scores.check(duration: duration, audioPath: audio, slack: rate == fileRate ? 0 : 2)
        if rate != fileRate {
            warnings.append(
                "\(audio): \(fileRate) Hz, converted to \(rate) Hz for the emulation (the framework's own "
                    + "resampler may place windows a few samples apart)")
        }
        // Scores a window or two short of the audio (a resampler's delay): the volumes follow them.
        let n = scores.confidences.count
        self.volumes =
            needsVolume
            ? Array(volumes.prefix(n)) + Array(repeating: volumes.last ?? 0, count: max(0, n - volumes.count)) : []
    }

    /// The segments `framework` reports with `setting`, on its timeline.
    public func segments(_ framework: FrameworkVAD, _ setting: [String: Double]) throws(AudioPipelineError)
        -> [SpeechSegment]
    {
        let edges = try framework.edges(
            setting, confidences: scores.confidences, volumes: volumes, rate: rate, windowSamples: windowSamples,
            chunkSamples: chunkSamples)
        return framework.segments(
            edges, windowSamples: windowSamples, chunkSamples: chunkSamples, rate: rate, duration: duration)
    }
}

/// A framework configuration file: `{"pipecat": {"confidence": 0.6, …}}` or `{"livekit": {…}}`
/// (what `vad tune --emulate` writes as best.json; `_comment`, `scores` and `snippet` are ignored).
public struct FrameworkConfiguration: Sendable, Hashable {
    /// The framework configured: the file's one `pipecat` or `livekit` key.
    public var framework: FrameworkVAD
    /// Its options, by the framework's own names (`FrameworkVAD.parameterNames`); options left out
    /// take the framework's defaults.
    public var setting: [String: Double]

    /// A configuration of `framework` with `setting` (not validated).
    /// - Parameters:
    ///   - framework: the framework configured.
    ///   - setting: its options, by the framework's own names.
    public init(framework: FrameworkVAD, setting: [String: Double]) {
        self.framework = framework
        self.setting = setting
    }

    /// Reads and checks a configuration file: one `pipecat` or `livekit` object of numbers (its keys
    /// starting with `_` ignored), validated as the framework's options (`FrameworkVAD.validate`).
    /// - Parameters:
    ///   - path: the file, such as a best.json of `vad tune --emulate`.
    /// - Throws: `invalidData` naming the file: not JSON, not exactly one framework's object (an
    ///   energy-VAD configuration included), a value that is not a number, an unknown option or one
    ///   out of range; the errors of reading the file.
    public static func read(_ path: String) throws(AudioPipelineError) -> FrameworkConfiguration {
        let text = try TextInput.text(path, what: "the framework configuration")
        let value: JSONValue
        do throws(JSON.ParseError) { value = try JSON.parse(text) } catch {
            throw AudioPipelineError(.invalidData, "\(path): not JSON: \(error.description)")
        }
        guard case .object(let top) = value else {
            throw AudioPipelineError(.invalidData, "\(path): want {\"pipecat\": {…}} or {\"livekit\": {…}}")
        }
        let found = FrameworkVAD.allCases.filter { f in top.contains { $0.key == f.rawValue } }
        guard found.count == 1, let framework = found.first,
            case .object(let fields)? = top.first(where: { $0.key == framework.rawValue })?.value
        else {
            throw AudioPipelineError(
                .invalidData,
                "\(path): want one object {\"pipecat\": {…}} or {\"livekit\": {…}} (what vad tune --emulate writes); "
                    + "an energy-VAD configuration is for vad detect without --scores")
        }
        var setting: [String: Double] = [:]
        for (key, v) in fields where !key.hasPrefix("_") {
            guard case .number(let n) = v else {
                throw AudioPipelineError(.invalidData, "\(path): \(framework.rawValue).\(key) is not a number")
            }
            setting[key] = n
        }
        do { try framework.validate(setting) } catch {
            throw AudioPipelineError(.invalidData, "\(path): \(error.message)")
        }
        return FrameworkConfiguration(framework: framework, setting: setting)
    }
}
