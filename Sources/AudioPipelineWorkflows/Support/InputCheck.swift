import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// Damaged input is never silent: after reading a file to its end, what it lacked.
public enum InputCheck {
    /// A warning when the header announced more audio than the file holds (a truncated download, a
    /// header written before the data) — or, with `strict`, an error (exit 65). nil for a whole file.
    public static func truncation(_ reader: AudioFileReader, strict: Bool) throws(AudioPipelineError) -> String? {
        guard let missing = reader.missingFrames, missing > 0 else { return nil }
        let seconds = reader.format.sampleRate.seconds(frames: missing)
        let message =
            "\(reader.displayName): truncated: the header announces \(missing) more frames "
            + "(\(NumberText.seconds(seconds)) s) than the file holds; the audio that is there was used"
        return try verdict(message, strict: strict)
    }

    /// A warning when a raw file ends with bytes that make no whole frame (they are dropped) — a
    /// file cut mid-sample, or the wrong `--in-encoding` / `--in-channels`; with `strict`, an error.
    public static func partialFrame(_ reader: AudioFileReader, strict: Bool) throws(AudioPipelineError) -> String? {
        guard reader.partialFrameBytes > 0 else { return nil }
        let message =
            "\(reader.displayName): the last \(reader.partialFrameBytes) bytes make no whole frame and were "
            + "dropped (cut mid-sample, or are --in-encoding and --in-channels right?)"
        return try verdict(message, strict: strict)
    }

    /// A damage message: the warning, or with `strict` the error (exit 65).
    static func verdict(_ message: String, strict: Bool) throws(AudioPipelineError) -> String {
        if strict { throw AudioPipelineError(.invalidData, message + " (--strict)") }
        return message
    }
}

extension InputCheck {
    /// A warning when the file held NaN or infinite samples (NaN read as 0, ±inf as ±full scale);
    /// with `strict`, an error. Call after reading: the reader counts them as they pass.
    public static func nonFinite(_ reader: AudioFileReader, strict: Bool) throws(AudioPipelineError) -> String? {
        guard let first = reader.firstNonFiniteFrame else { return nil }
        let at = NumberText.seconds(reader.format.sampleRate.seconds(frames: first))
        let message =
            "\(reader.displayName): \(reader.nonFiniteSamples) samples are NaN or infinite (the first at \(at) s); "
            + "they were read as 0 (NaN) and ±full scale (±inf)"
        return try verdict(message, strict: strict)
    }
}

extension InputCheck {
    /// Every check of a file read to its end (`truncation`, `nonFinite`): its warnings, in order.
    public static func all(_ reader: AudioFileReader, strict: Bool) throws(AudioPipelineError) -> [String] {
        [
            try truncation(reader, strict: strict), try partialFrame(reader, strict: strict),
            try nonFinite(reader, strict: strict),
        ].compactMap { $0 }
    }
}

extension NumberText {
    /// Seconds with three decimals.
    public static func seconds(_ v: Double) -> String { String(format: "%.3f", v) }
}
