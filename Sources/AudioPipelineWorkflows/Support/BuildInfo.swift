import AudioPipelineCore

/// What `audiopipe --version` prints: the release, the commit it was built from and the vector
/// code this CPU runs.
public enum BuildInfo {
    /// The release: the one place it is written (`make dist` reads it from this line).
    public static let version = "0.2.0"
    /// The commit of a `make dist` build, which stamps it into its exported copy of the tree; a build
    /// from a working tree says "unknown".
    public static let commit = "unknown"

    /// "audiopipe 0.2.0 (commit abc1234) vector: AVX2+FMA (resampler), SSSE3 (base64)".
    public static var versionLine: String {
        "audiopipe \(version) (commit \(commit)) vector: \(VectorKernel.bestDescription)"
    }
}
