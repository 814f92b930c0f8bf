import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// The voice-agent frameworks whose VAD decision `vad tune --emulate` and `vad detect --scores`
/// emulate over a VAD's per-window scores (scripts/vad-scores.py).
public enum FrameworkVAD: String, Sendable, CaseIterable, Codable {
    /// pipecat's `VADParams` on its `VADAnalyzer` (SileroVADAnalyzer).
    case pipecat
    /// LiveKit Agents' silero plugin (`silero.VAD.load`).
    case livekit

    /// The parameters, by the framework's own names, in the order its docs list them.
    public var parameterNames: [String] {
        switch self {
        case .pipecat: return ["confidence", "start_secs", "stop_secs", "min_volume"]
        case .livekit:
            return [
                "activation_threshold", "min_speech_duration", "min_silence_duration", "prefix_padding_duration",
                "max_buffered_speech", "deactivation_threshold",
            ]
        }
    }

    /// The framework's defaults (LiveKit's deactivation threshold follows its activation threshold
    /// unless given: absent here).
    public var defaults: [String: Double] {
        switch self {
        case .pipecat: return ["confidence": 0.7, "start_secs": 0.2, "stop_secs": 0.2, "min_volume": 0.6]
        case .livekit:
            return [
                "activation_threshold": 0.5, "min_speech_duration": 0.05, "min_silence_duration": 0.55,
                "prefix_padding_duration": 0.5, "max_buffered_speech": 60,
            ]
        }
    }

    /// The default sweep: the parameters that decide when speech starts and stops, around the
    /// defaults (which every grid includes).
    public var defaultGrid: [(name: String, values: [Double])] {
        switch self {
        case .pipecat:
            return [
                ("confidence", [0.4, 0.5, 0.6, 0.7, 0.8, 0.9]), ("start_secs", [0.064, 0.1, 0.2, 0.3]),
                ("stop_secs", [0.1, 0.2, 0.4, 0.8]), ("min_volume", [0, 0.3, 0.45, 0.6, 0.7]),
            ]
        case .livekit:
            return [
                ("activation_threshold", [0.3, 0.4, 0.5, 0.6, 0.7, 0.8]),
                ("min_speech_duration", [0.03, 0.05, 0.1, 0.2, 0.3]),
                ("min_silence_duration", [0.2, 0.3, 0.55, 0.8, 1.2]),
            ]
        }
    }

    /// Whether the decision needs the audio (pipecat's volume gate).
    public var needsAudio: Bool { self == .pipecat }

    /// The decider's edges over one file's windows. `volumes`: pipecat's smoothed volume per window.
    func edges(
        _ setting: [String: Double], confidences: [Float], volumes: [Double], rate: Int, windowSamples: Int,
        chunkSamples: Int
    ) throws(AudioPipelineError) -> [FrameworkVADEdge] {
        var out: [FrameworkVADEdge] = []
        switch self {
        case .pipecat:
            var p = Self.pipecat(setting, windowSamples: windowSamples, chunk: chunkSamples)
            p.sampleRate = rate
            var d = try PipecatVADDecider(p)
            confidences.withUnsafeBufferPointer { c in
                volumes.withUnsafeBufferPointer { v in d.process(confidences: c, volumes: v) { out.append($0) } }
            }
        case .livekit:
            var p = Self.livekit(setting, windowSamples: windowSamples)
            p.sampleRate = rate
            var d = try LiveKitVADDecider(p)
            confidences.withUnsafeBufferPointer { c in d.process(c) { out.append($0) } }
        }
        return out
    }

    static func pipecat(_ s: [String: Double], windowSamples: Int, chunk: Int) -> PipecatVADParameters {
        var p = PipecatVADParameters()
        p.confidence = s["confidence"] ?? p.confidence
        p.startSecs = s["start_secs"] ?? p.startSecs
        p.stopSecs = s["stop_secs"] ?? p.stopSecs
        p.minVolume = s["min_volume"] ?? p.minVolume
        p.windowSamples = windowSamples
        p.chunkSamples = chunk
        return p
    }

    static func livekit(_ s: [String: Double], windowSamples: Int) -> LiveKitVADParameters {
        var p = LiveKitVADParameters()
        p.activationThreshold = s["activation_threshold"] ?? p.activationThreshold
        p.deactivationThreshold = s["deactivation_threshold"]
        p.minSpeechDuration = s["min_speech_duration"] ?? p.minSpeechDuration
        p.minSilenceDuration = s["min_silence_duration"] ?? p.minSilenceDuration
        p.prefixPaddingDuration = s["prefix_padding_duration"] ?? p.prefixPaddingDuration
        p.maxBufferedSpeech = s["max_buffered_speech"] ?? p.maxBufferedSpeech
        p.windowSamples = windowSamples
        return p
    }

    /// Checks a setting: known names, values in the framework's ranges.
    public func validate(_ setting: [String: Double]) throws(AudioPipelineError) {
        for name in setting.keys where !parameterNames.contains(name) {
            throw AudioPipelineError(
                .invalidConfiguration,
                "\(rawValue): no parameter '\(name)' (known: \(parameterNames.joined(separator: ", ")))")
        }
        switch self {
        case .pipecat: try Self.pipecat(setting, windowSamples: 512, chunk: 320).validate()
        case .livekit: try Self.livekit(setting, windowSamples: 512).validate()
        }
    }

    /// Segments on the framework's timeline: from the moment it reports speech started to the moment
    /// it reports speech stopped (speech still going at the end closes at `duration`). Pipecat
    /// reports when the transport chunk holding the window's end has been analysed; LiveKit stamps
    /// its events with the window's end.
    func segments(_ edges: [FrameworkVADEdge], windowSamples: Int, chunkSamples: Int, rate: Int, duration: Double)
        -> [SpeechSegment]
    {
        func time(_ window: Int) -> Double {
            let end = (window + 1) * windowSamples
            let reported = self == .pipecat ? (end + chunkSamples - 1) / chunkSamples * chunkSamples : end
            return min(duration, Double(reported) / Double(rate))
        }
        var out: [SpeechSegment] = []
        var open: Double?
        for e in edges {
            if e.started {
                open = time(e.window)
            } else if let s = open {
                out.append(SpeechSegment(start: s, end: time(e.window)))
                open = nil
            }
        }
        if let s = open, duration > s { out.append(SpeechSegment(start: s, end: duration)) }
        return out
    }

    /// The code to paste into the framework for `setting`.
    public func snippet(_ setting: [String: Double]) -> String {
        let names = parameterNames.filter { setting[$0] != nil }
        switch self {
        case .pipecat:
            let args = names.map { "        \($0)=\(NumberText.plain(setting[$0]!))," }.joined(separator: "\n")
            return """
                from pipecat.audio.vad.silero import SileroVADAnalyzer
                from pipecat.audio.vad.vad_analyzer import VADParams

                vad_analyzer = SileroVADAnalyzer(
                    params=VADParams(
                \(args)
                    )
                )
                """
        case .livekit:
            let args = names.map { "    \($0)=\(NumberText.plain(setting[$0]!))," }.joined(separator: "\n")
            return """
                from livekit.plugins import silero

                vad = silero.VAD.load(
                \(args)
                )
                """
        }
    }
}
