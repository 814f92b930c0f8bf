import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// Label file formats `vad detect` writes.
public enum LabelFormat: String, Sendable, CaseIterable, Codable {
    /// The extension of a file in this format (`txt` for Audacity labels).
    public var fileExtension: String { self == .audacity ? "txt" : rawValue }

    /// `start<TAB>end<TAB>speech` per line (Audacity's label track).
    case audacity
    /// `start,end` with a header.
    case csv
    /// The detection report as JSON (`VADDetectReport`).
    case json
}

/// What `vad detect` should do.
public struct VADDetectOptions: Sendable {
    /// The detector's parameters.
    public var configuration = VADConfiguration()
    /// Far-end reference: what the client was playing, on the microphone's timeline.
    public var reference: String?
    /// Back-date onsets (offline labelling) instead of the streaming decision timeline.
    public var align = false
    /// The label file's format.
    public var format = LabelFormat.audacity
    /// Converts a reference whose rate differs from the microphone's.
    public var resampler = ResamplerChoice.default
    /// Explain every segment (`VADDetectReport.Segment.explain`): which bands and rules opened it,
    /// what closed it.
    public var explain = false
    /// Where to write every frame's detail as CSV (`VADFrameTrace`), or nil.
    public var frames: String?
    /// A VAD's per-window scores (scripts/vad-scores.py): with `framework`, the segments that
    /// framework reports instead of the energy VAD's.
    public var scores: String?
    /// `{"pipecat": {…}}` or `{"livekit": {…}}` (best.json of `vad tune --emulate`).
    public var framework: FrameworkConfiguration?
    /// The default detector, Audacity labels, the streaming timeline.
    public init() {}

    /// What a batch (many files into a directory) cannot do: one reference or one frame trace for
    /// every file, explanations outside JSON files.
    /// - Throws: `AudioPipelineError` naming the option.
    public func checkForBatch() throws(AudioPipelineError) {
        try BatchJobs.refuseOneFileOptions(["--reference": reference, "--frames": frames])
        if explain && format != .json {
            throw AudioPipelineError(.invalidConfiguration, "--explain with many files needs --format json")
        }
    }

    /// With `scores`, emulate the framework `config` names (read here); returns whether it does.
    /// - Throws: as `checkEmulation`, before any file is read (a batch refused each file in turn).
    public mutating func emulate(scores: String?, config: String?) throws(AudioPipelineError) -> Bool {
        guard let scores else { return false }
        self.scores = scores
        framework = try config.map { (path) throws(AudioPipelineError) in try FrameworkConfiguration.read(path) }
        _ = try checkEmulation()
        return true
    }

    /// What emulating a framework needs (`--config` naming it) and cannot do (the energy VAD's
    /// reference, alignment, explanations and frame trace); returns the framework's configuration.
    /// - Throws: `AudioPipelineError` naming the option.
    func checkEmulation() throws(AudioPipelineError) -> FrameworkConfiguration {
        guard let framework else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "--scores needs --config FILE naming the framework: {\"pipecat\": {…}} or {\"livekit\": {…}} "
                    + "(vad tune --emulate writes it; {\"pipecat\": {}} for pipecat's defaults)")
        }
        guard reference == nil, !align, !explain, frames == nil else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "--scores emulates a framework: --reference, --align, --explain and --frames are the "
                    + "energy VAD's")
        }
        return framework
    }
}

/// What `vad detect` found (`--format json` writes it; `--json` prints it).
public struct VADDetectReport: WorkflowReport, Codable, Hashable {
    /// The microphone file's path.
    public var input: String
    /// The reference's path, when one was given.
    @NullWhenAbsent public var reference: String?
    /// The microphone's rate, Hz.
    public var sampleRate: Int
    /// Its length, s.
    public var duration: Double
    /// `streaming` (decision times) or `aligned` (`--align`).
    public var timeline: String
    /// The detected speech, in order.
    public var segments: [Segment]
    /// Every parameter by its JSON name.
    public var configuration: VADConfiguration
    /// Warnings (a reference padded or cut).
    public var warnings: [String]
    /// With `--scores`: the framework emulated and its setting (`{"pipecat": {…}}`); absent otherwise.
    public var emulated: [String: [String: Double]]?

    /// Speech detected in all, s.
    public var speechSeconds: Double { segments.reduce(0) { $0 + $1.end - $1.start } }

    /// A detected segment, and with `--explain` why it opened and closed (the key is absent otherwise).
    public struct Segment: Codable, Hashable, Sendable {
        /// Start, s.
        public var start: Double
        /// End, s.
        public var end: Double
        /// Why it opened and closed (`--explain`); absent otherwise.
        public var explain: VADSegmentExplanation?

        /// A segment of `s`, with its explanation if any.
        public init(_ s: SpeechSegment, explain: VADSegmentExplanation? = nil) {
            (start, end, self.explain) = (s.start, s.end, explain)
        }

        /// The segment as a `SpeechSegment`.
        public var span: SpeechSegment { SpeechSegment(start: start, end: end) }
    }
}

/// `vad detect` on one file.
public enum VADDetector {
    /// Detects speech in `input` and writes the labels to `output` (`-`: standard output).
    public static func detect(input: String, output: String, options o: VADDetectOptions) throws(AudioPipelineError)
        -> VADDetectReport
    {
        if let frames = o.frames, StandardOutput.isStandardOutput(frames), StandardOutput.isStandardOutput(output) {
            throw AudioPipelineError(
                .invalidConfiguration,
                "--frames \(frames): the labels go to standard output too; give -o FILE or a --frames path")
        }
        try SamePathGuard.refuse(
            inputs: [input] + (o.reference.map { [$0] } ?? []) + (o.scores.map { [$0] } ?? []),
            options: [("-o", output), ("--frames", o.frames)])
        if let scores = o.scores { return try emulate(input: input, scores: scores, output: output, options: o) }
        let trace = try o.frames.map { (path) throws(AudioPipelineError) in
            try VADFrameTrace(path: path, reference: o.reference != nil)
        }
        let streamed: (run: VADRun, rate: Int, warnings: [String], explanations: [VADSegmentExplanation])
        do {
            streamed = try VADRun.streaming(
                path: input, reference: o.reference, resampler: o.resampler, configuration: o.configuration,
                explain: o.explain, trace: trace)
        } catch {
            trace?.discard()
            throw error
        }
        let result = streamed.run
        let rate = streamed.rate
        let warnings = streamed.warnings
        let explanations = streamed.explanations
        // Only a last, partial frame's run can yield no segment (it ends where it starts): the
        // explanations are the segments' in order.
        let segments = result.segments(align: o.align).enumerated().map { k, s in
            VADDetectReport.Segment(s, explain: k < explanations.count ? explanations[k] : nil)
        }
        let report = VADDetectReport(
            input: input, reference: o.reference, sampleRate: rate, duration: result.duration,
            timeline: o.align ? "aligned" : "streaming", segments: segments, configuration: o.configuration,
            warnings: warnings)
        // The trace first: a write error there leaves neither file (`vad detect` publishes its
        // outputs only once its report is written).
        try trace?.commit()
        try write(report, format: o.format, to: output)
        return report
    }

    /// `vad detect --scores`: the segments the framework of `o.framework` reports over the scores,
    /// on its own timeline.
    static func emulate(input: String, scores: String, output: String, options o: VADDetectOptions)
        throws(AudioPipelineError) -> VADDetectReport
    {
        let config = try o.checkEmulation()
        let recording = try FrameworkRecording(audio: input, scores: scores, framework: config.framework)
        let segments = try recording.segments(config.framework, config.setting)
        var setting = config.framework.defaults
        setting.merge(config.setting) { $1 }
        let report = VADDetectReport(
            input: input, reference: nil, sampleRate: recording.rate, duration: recording.duration,
            timeline: config.framework.rawValue, segments: segments.map { VADDetectReport.Segment($0) },
            configuration: VADConfiguration(), warnings: recording.warnings,
            emulated: [config.framework.rawValue: setting])
        try write(report, format: o.format, to: output)
        return report
    }

    static func write(_ report: VADDetectReport, format: LabelFormat, to output: String) throws(AudioPipelineError) {
        let text: String
        switch format {
        case .audacity: text = AudacityLabels.format(report.segments.map(\.span))
        case .csv:
            text = "start,end\n" + report.segments.map { String(format: "%.6f,%.6f\n", $0.start, $0.end) }.joined()
        case .json: text = try ReportJSON.encode(report) + "\n"
        }
        try ByteOutput.write(text, to: output)
    }
}

extension VADDetectReport {
    /// The human summary `audiopipe` prints.
    public func text(output: String) -> String {
        String(
            format: "%@: %d segments, %.2f s of speech in %.2f s -> %@", input, segments.count, speechSeconds, duration,
            output)
    }

    /// `vad detect --explain`: each segment's times, then why it opened and closed; the summary line
    /// first when the labels went to a file.
    public func explanationText(output: String) -> String {
        var s = output == "-" ? "" : text(output: output) + "\n"
        for seg in segments {
            s += String(format: "%.3f–%.3f s", seg.start, seg.end) + (timeline == "aligned" ? " (aligned)" : "") + "\n"
            s += seg.explain?.text ?? ""
        }
        if segments.isEmpty {
            s += "no speech: the score never stayed ≥ enter_db for min_speech_ms with the level ≥ absolute_dbfs\n"
        }
        return String(s.dropLast())
    }
}
