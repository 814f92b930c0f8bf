import AudioPipelineCore
import Foundation

/// How a recording's far-end reference (the audio the client played while it was recorded) is found
/// beside it: `NAME` + a suffix next to `NAME.wav` (or `NAME.flac`, …), `.ref.wav` by default — the VAD
/// kit's convention. `vad tune` (its corpus) and batch `vad detect` both pair files this way.
public struct ReferenceNaming: Sendable, Equatable {
    /// The suffix the VAD kit and the guides use.
    public static let defaultSuffix = ".ref.wav"
    /// The suffix after a recording's name (say `.ref.wav`, `-far.wav`); not empty.
    public let suffix: String

    /// Pairs by `suffix`; an empty suffix would make every file a reference and is refused.
    public init(suffix: String = Self.defaultSuffix) throws(AudioPipelineError) {
        guard !suffix.isEmpty, !suffix.contains("/") else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "--reference-suffix: '\(suffix)' cannot end a file name (say .ref.wav, the VAD kit's convention)")
        }
        self.suffix = suffix
    }

    /// Whether `path`'s file name ends with the suffix (letter case aside: `NAME.REF.WAV` is one too).
    public func isReference(_ path: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        return name.count > suffix.count && name.lowercased().hasSuffix(suffix.lowercased())
    }

    /// The reference beside the recording at `path` (`dir/NAME.flac` → `dir/NAME.ref.wav`) when that
    /// file exists; nil for a file that is itself a reference.
    public func reference(ofRecording path: String) -> String? {
        guard !isReference(path) else { return nil }
        let reference = (path as NSString).deletingPathExtension + suffix
        return PathParts.isRegularFile(reference) ? reference : nil
    }

    /// The recording the reference at `path` belongs to (`dir/NAME.ref.wav` → `dir/NAME.wav`, or
    /// another audio extension in `extensions`' sorted order) when one exists.
    public func recording(ofReference path: String, extensions: Set<String>) -> String? {
        guard isReference(path) else { return nil }
        let stem = String(path.dropLast(suffix.count))
        return extensions.sorted().lazy.map { stem + "." + $0 }.first {
            !isReference($0) && PathParts.isRegularFile($0)
        }
    }
}
