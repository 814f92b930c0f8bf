/// Which code a stage with vector kernels (`Base64`, `PolyphaseResampler`) runs.
///
/// The vector kernels are C functions compiled for one instruction set each (SSSE3 for base64,
/// AVX2 + FMA for the resampler's dot products; NEON on AArch64) and used only when the CPU has
/// it, so a plain `swift build` runs on any x86-64 and is fast where the hardware allows.
/// `portable` forces the Swift code: for comparisons (the benchmark suite shows both) and tests.
public enum VectorKernel: Sendable, Hashable {
    /// The vector kernels where this CPU has their instructions, else the Swift code.
    case best
    /// The Swift code only.
    case portable
}
