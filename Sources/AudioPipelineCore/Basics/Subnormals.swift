import CVectorKernels

/// Subnormal floating-point numbers flushed to zero while a piece of code runs.
///
/// A recursive filter whose input stops (the agent's audio between utterances is digital silence)
/// decays towards zero through the subnormal range, where it can hang on the smallest values for
/// good, and on Intel cores every operation on a subnormal takes a microcode assist. Measured on an
/// Intel Xeon (2026-11-28): the session simulator's room (loudspeaker biquads, reverberation by
/// partitioned convolution) spent seven eighths of its time there — 8 rooms 14.9 s → 1.95 s flushed,
/// `rooms.csv` identical. A flushed value is under 1.2e-38 (−758 dBFS): nothing audible or measured
/// changes. The VAD's steep band kernels flush on their own (`cvk_steep_bands`).
public enum Subnormals {
    /// Runs `body` with subnormals flushed to zero on this thread (x86: MXCSR's flush-to-zero and
    /// denormals-are-zero; AArch64: FPCR's FZ; other targets: unchanged), then restores the
    /// thread's mode, also when `body` throws. The mode is per thread: work `body` hands to other
    /// threads runs in theirs.
    public static func flushed<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let mode = cvk_fp_flush_subnormals()
        defer { cvk_fp_restore_mode(mode) }
        return try body()
    }
}
