import CVectorKernels

/// Which code a stage with vector kernels (`Base64`, `PolyphaseResampler`) runs.
///
/// The vector kernels are C functions compiled for one instruction set each (SSSE3 for base64,
/// AVX2 + FMA or AVX-512F for the resampler's dot products; NEON on AArch64) and used only when the
/// CPU has it, so a plain `swift build` runs on any x86-64 and is fast where the hardware allows.
/// `portable` forces the Swift code: for comparisons (the benchmark suite shows both) and tests.
public enum VectorKernel: Sendable, Hashable {
    /// The vector kernels where this CPU has their instructions, else the Swift code.
    case best
    /// The Swift code only.
    case portable

    /// What `.best` runs on this CPU, as the same run-time checks decide: "AVX2+FMA (resampler),
    /// SSSE3 (base64)" on a recent x86-64 ("AVX-512 (resampler) …" with AVX-512F), "NEON" on
    /// AArch64, "portable Swift" where no kernel applies.
    public static var bestDescription: String { description(resampler: .best) }

    /// What runs with the resampler's kernels chosen by `resampler` (`.portable`: its Swift code) and
    /// base64's best, named as `bestDescription` names them.
    public static func description(resampler kernel: VectorKernel) -> String {
        let resampler = kernel == .best ? cvk_fir_instruction_set().map { String(cString: $0) } : nil
        let base64 = cb64_instruction_set().map { String(cString: $0) }
        switch (resampler, base64) {
        case (nil, nil): return "portable Swift"
        case let (r?, b?) where r == b: return r
        case let (r?, b?): return "\(r) (resampler), \(b) (base64)"
        case let (r?, nil): return "\(r) (resampler), portable Swift (base64)"
        case let (nil, b?): return "portable Swift (resampler), \(b) (base64)"
        }
    }
}
