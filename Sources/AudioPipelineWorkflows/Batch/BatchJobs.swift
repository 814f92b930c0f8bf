import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// The jobs of the batch-capable commands, for `BatchRunner`: each runs the one-file job on an item
/// and reports its audio seconds, clipped samples and warnings.
public enum BatchJobs {
    /// The item's output; a job that writes one refuses an item planned without.
    static func output(_ item: BatchItem) throws(AudioPipelineError) -> String {
        guard let output = item.output else {
            throw AudioPipelineError(.invalidConfiguration, "\(item.input.path): no output path planned for it")
        }
        return output
    }

    /// Refuses the options that name one file (`--reference`, `--trace`) in a batch: one file for
    /// many inputs would be each one's in turn, overwritten.
    /// - Throws: `AudioPipelineError` naming the first option given.
    public static func refuseOneFileOptions(_ options: KeyValuePairs<String, String?>) throws(AudioPipelineError) {
        for (name, value) in options where value != nil {
            throw AudioPipelineError(.invalidConfiguration, "\(name) names one file; it cannot be used with a batch")
        }
    }

    /// `convert` of one file with `o`.
    /// - Parameters:
    ///   - o: the conversion.
    ///   - raw: how to read raw PCM inputs (nil: the inputs declare their format).
    ///   - typeGiven: `o.type` was asked for (`--type`); else each output's type follows its name,
    ///     as for one file — an input list's `output` column may name a .flac among .wav files (and
    ///     a name of no known type is refused, naming it).
    public static func convert(_ o: ConvertOptions, raw: RawFormat?, typeGiven: Bool = true) -> BatchRunner.Job {
        { item in
            let path = try output(item)
            var o = o
            if !typeGiven { o.type = try ConvertOptions.outputType(path: path, type: nil) }
            let r = try FileConverter.convert(input: item.input.path, raw: raw, output: path, options: o)
            return FileOutcome(audioSeconds: r.inputSeconds, clippedSamples: r.clippedSamples, warnings: r.warnings)
        }
    }

    /// `frame` of one file with `o`.
    public static func frame(_ o: FrameOptions, raw: RawFormat?) -> BatchRunner.Job {
        { item in
            let r = try Framer.frame(input: item.input.path, raw: raw, output: try output(item), options: o)
            return FileOutcome(audioSeconds: r.audioSeconds, clippedSamples: r.clippedSamples, warnings: r.warnings)
        }
    }

    /// `deframe` of one capture with `o`.
    public static func deframe(_ o: DeframeOptions) -> BatchRunner.Job {
        { item in
            let r = try Deframer.deframe(input: item.input.path, output: try output(item), options: o)
            return FileOutcome(audioSeconds: r.audioSeconds)
        }
    }

    /// `vad detect` of one file with `o`, and its far-end reference (`NAME.ref.wav` by `references`)
    /// when one is beside it (`BatchSelection.references` leaves those out as inputs).
    public static func vadDetect(_ o: VADDetectOptions, references: ReferenceNaming) -> BatchRunner.Job {
        { item in
            var o = o
            if o.scores == nil { o.reference = references.reference(ofRecording: item.input.path) }
            let r = try VADDetector.detect(input: item.input.path, output: try output(item), options: o)
            return FileOutcome(audioSeconds: r.duration, warnings: r.warnings)
        }
    }

    /// `info` over a batch: every file's report is kept (`reports`, in input order) for printing.
    public final class InfoCollector: @unchecked Sendable {
        private let lock = NSLock()
        private var byPath: [String: InfoReport] = [:]
        /// An empty collector.
        public init() {}

        /// The `info` job, keeping each report.
        public func job(raw: RawFormat?, strict: Bool) -> BatchRunner.Job {
            { [self] item in
                let r = try InfoReport.inspect(path: item.input.path, raw: raw, strict: strict)
                lock.lock()
                byPath[item.input.path] = r
                lock.unlock()
                return FileOutcome(
                    audioSeconds: r.durationSeconds, clippedSamples: r.clippedSamples, warnings: r.warnings)
            }
        }

        /// The reports of `items` that succeeded, in their order.
        public func reports(_ items: [BatchItem]) -> [InfoReport] {
            lock.lock()
            defer { lock.unlock() }
            return items.compactMap { byPath[$0.input.path] }
        }
    }
}
