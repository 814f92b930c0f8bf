import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// What a conversion did; `convert --json` prints it (the keys the command has always printed).
public struct ConvertReport: WorkflowReport, Codable, Hashable {
    /// A stream's format as the report states it.
    public struct Format: Codable, Sendable, Hashable {
        /// The input's container (`wav`, `flac` …); the output has `type` instead.
        public var container: String?
        /// The output's file type; the input has `container` instead.
        public var type: String?
        /// The sample encoding.
        public var encoding: String
        /// Rate, Hz.
        public var sampleRate: Int
        /// Interleaved channels.
        public var channels: Int

        /// A format as the report states it.
        public init(container: String? = nil, type: String? = nil, encoding: String, sampleRate: Int, channels: Int) {
            self.container = container
            self.type = type
            self.encoding = encoding
            self.sampleRate = sampleRate
            self.channels = channels
        }
    }

    /// Input and output paths as given (`-` for standard input/output).
    public var input: String
    /// The output path as given.
    public var output: String
    /// What was read.
    public var inputFormat: Format
    /// What was written.
    public var outputFormat: Format
    /// Frames read.
    public var framesIn: Int
    /// Frames written.
    public var framesOut: Int
    /// Float samples outside [-1, 1] saturated when quantising to PCM16.
    public var clippedSamples: Int
    /// Samples that were NaN or infinite: in a float input (NaN read as 0, ±inf as ±full scale; a
    /// warning says so) or made so on the way (quantised to 0).
    public var nanSamples: Int
    /// The resampler's name; null when the rate was kept.
    @NullWhenAbsent public var resampler: String?
    /// The resampler's latency (compensated: the output is aligned with the input), frames.
    public var resamplerLatencyFrames: Int
    /// Of those, the frames the native resampler holds back to compute whole blocks faster (its
    /// throughput mode, which `convert` uses; 0 where the ratio gains nothing from it, and when a
    /// report written before this key existed is read back).
    @ZeroWhenAbsent public var resamplerHeldBackFrames: Int = 0
    /// Stages the resampler ran: 2 for the whole-file half-band cascade (`convert` on large
    /// downsampling ratios: 48→16, 44.1→16 kHz …), 1 for one polyphase stage; 0 when the rate was
    /// kept, and when a report written before this key existed is read back.
    @ZeroWhenAbsent public var resamplerStages: Int = 0
    /// Wall time of the conversion, s.
    public var elapsedSeconds: Double
    /// What was wrong with the input but did not stop the job (a truncated file).
    public var warnings: [String] = []

    /// Seconds of input audio.
    public var inputSeconds: Double { Double(framesIn) / Double(inputFormat.sampleRate) }
}

extension ConvertReport {
    /// The human summary `audiopipe` prints.
    public var text: String {
        let i = inputFormat, o = outputFormat
        var s =
            "\(input) (\(i.container ?? "?"), \(i.encoding), \(i.sampleRate) Hz, \(i.channels) ch, "
            + "\(String(format: "%.3f s", inputSeconds)))"
        s += "\n  -> \(output) (\(o.type ?? "?"), \(o.encoding), \(o.sampleRate) Hz, \(o.channels) ch)"
        s += "\n  frames \(framesIn) -> \(framesOut)"
        if let name = resampler {
            let path =
                resamplerStages == 2
                ? ", file path: half-band + polyphase" : resamplerHeldBackFrames > 0 ? ", throughput path" : ""
            s += "; resampler \(name)\(path) (latency \(resamplerLatencyFrames) frames, delay-compensated)"
        }
        if o.encoding == SampleEncoding.pcm16.rawValue {
            s += "\n  clipped \(clippedSamples) samples"
        }
        if nanSamples > 0 {
            s += "\n  NaN or infinite: \(nanSamples) samples, written as 0 (NaN) or ±full scale (±inf)"
        }
        s += String(
            format: "\n  %.3f s, %.0f× realtime", elapsedSeconds, elapsedSeconds > 0 ? inputSeconds / elapsedSeconds : 0
        )
        return s
    }
}
