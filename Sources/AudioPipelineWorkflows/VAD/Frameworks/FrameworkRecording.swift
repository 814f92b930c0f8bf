import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// One recording as a framework's VAD sees it: its scores (checked against its length) and, for
/// pipecat, the smoothed volume of every window (`PipecatVolume`, streamed from the file at the
/// analyser's rate: the file's own at 8 or 16 kHz, else converted to 16 kHz as the framework
/// converts it). Computed once; every setting of a sweep only runs the decider over it.
public struct FrameworkRecording: Sendable {
    public var audioPath: String
    public var scores: FrameworkScores
    /// The analyser's rate and window.
    public var rate: Int
    public var windowSamples: Int
    public var duration: Double
    public var volumes: [Double]
    public var warnings: [String]

    /// Audio per pipecat `analyze_audio` call (the transport's chunk), ms.
    public static let chunkMilliseconds = 20

    public var chunkSamples: Int { rate * Self.chunkMilliseconds / 1000 }

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
    public var framework: FrameworkVAD
    public var setting: [String: Double]

    public init(framework: FrameworkVAD, setting: [String: Double]) {
        self.framework = framework
        self.setting = setting
    }

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
