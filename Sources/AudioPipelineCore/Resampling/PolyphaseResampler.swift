import CVectorKernels

/// A streaming polyphase FIR resampler for any rational ratio.
///
/// The ratio `outputRate / inputRate` is reduced to `L / M` (`ResamplingFormat`). One linear-phase
/// Kaiser-windowed sinc low-pass is designed at init for the virtual rate `L × inputRate`, with its
/// passband to 0.40 × and its stopband from 0.50 × the lower of the two rates (so every tone above
/// the new Nyquist, and every image, falls in the stopband), and split into `L` phases of `T` taps.
/// Output frame *m* stands for time *m / outputRate*: it is the dot product of phase
/// `(m·M + C) mod L` with the `T` input frames ending at `⌊(m·M + C) / L⌋`, where `C` is the
/// filter's centre — so output is delay-compensated (time-aligned with the input), like
/// libsamplerate and soxr. Input before the start and after the end of the stream is taken as 0.
///
/// Streaming: per-channel history buffers and the coefficient table are allocated at init; `process`
/// and `finish` never allocate. The dot product runs over the taps in a fixed order with explicit
/// SIMD accumulators, so the output is bit-identical whatever sizes the input arrives in.
///
/// Kernels: on x86-64 CPUs with AVX2 and FMA the dot products run in C kernels compiled for them
/// (`CVectorKernels`, chosen at run time: one fused multiply-add per 8 taps instead of SSE2's
/// separate multiply and add on 4; 1.1–3.2× faster here, see docs/benchmarks.md), with AVX-512F in
/// their 16-lane versions (one fused multiply-add per 16 taps, taps per phase a multiple of 16:
/// about 1.5× the 8-lane ones on Zen 5), on AArch64 in their NEON versions; elsewhere, or with
/// `kernel: .portable`, in the Swift SIMD code (PolyphaseResampler+SwiftKernels.swift).
/// Within one instance every output uses the same kernel and summation order; the kernels differ
/// from one another in the last bits (fused rounding, lane count).
///
/// The type is split by concern: this file holds the state, the filter design and the streaming
/// calls; `emit`, one function per ratio kind, is in PolyphaseResampler+Emit.swift.
///
/// `latency` is `⌈C / M⌉` output frames (≈ 2.7 ms for `high` when the lower rate is 16 kHz;
/// it doubles when the lower rate halves, since the transition band is 10 % of the lower rate).
public final class PolyphaseResampler: Resampler {
    /// Filter presets. Both keep the passband to 0.40 × and the stopband from 0.50 × the lower rate.
    public enum Preset: String, Sendable, CaseIterable {
        /// 130 dB stopband (designed), for ≥ 120 dB SNR and ≤ −120 dBFS leakage.
        case high
        /// 100 dB stopband (designed), for ≥ 90 dB: about 25 % fewer taps and less latency.
        case fast

        /// The stopband attenuation the filter is designed for, dB.
        public var attenuation: Double { self == .high ? 130 : 100 }
    }

    /// When outputs are computed (and, for `multiStage`, how): `streaming` and `throughput` give the
    /// same output, bit for bit; `multiStage` its own where it takes the half-band cascade.
    public enum Mode: String, Sendable, CaseIterable {
        /// Every output as soon as its input is in: the least latency (a live stream's choice).
        case streaming
        /// For whole files: on a ratio with L > 2 phases (16→24 kHz, 44.1→16 kHz …) outputs are held
        /// back until 8 whole cycles of L are due and then computed phase by phase, 8 outputs per
        /// coefficient load (`emitPhaseMajor`). Adds up to 8·L output frames of latency (1 ms at
        /// 16→24 kHz, 80 ms at 44.1→16 kHz); 1.5–2.2× the streaming mode at 44.1→16 kHz here (README).
        case throughput
        /// For whole files, where a different design may compute them faster: on large downsampling
        /// ratios (`HalfBandCascadeResampler.applies(to:)`: 48→16, 44.1→16, 96→16 kHz …) a 2:1
        /// half-band stage and then this resampler at half the input rate (`make` builds it; same
        /// quality class, not the same output bit for bit); elsewhere `.throughput`. A
        /// `PolyphaseResampler` built with it runs as `.throughput`.
        case multiStage
    }

    /// The resampler `mode` asks for: a `HalfBandCascadeResampler` for `.multiStage` where it
    /// applies, else a `PolyphaseResampler` (`.multiStage` running as `.throughput`).
    /// - Parameters:
    ///   - format: the conversion.
    ///   - preset: the filter preset.
    ///   - kernel: the C vector kernels (`.best`) or the portable code.
    ///   - mode: streaming, throughput or multi-stage.
    /// - Throws: what the resampler's init throws (`invalidConfiguration`).
    public static func make(
        format: ResamplingFormat, preset: Preset = .high, kernel: VectorKernel = .best, mode: Mode = .streaming
    ) throws(AudioPipelineError) -> any Resampler {
        if mode == .multiStage && HalfBandCascadeResampler.applies(to: format) {
            return try HalfBandCascadeResampler(format: format, preset: preset, kernel: kernel)
        }
        return try PolyphaseResampler(format: format, preset: preset, kernel: kernel, mode: mode)
    }

    /// Passband edge and stopband edge as fractions of the lower of the two rates.
    public static let passbandEdge = 0.40
    /// Where the stopband begins, as a fraction of the lower rate.
    public static let stopbandEdge = 0.50

    /// The rates and channels this resampler converts between.
    public let format: ResamplingFormat
    /// The filter's quality preset.
    public let preset: Preset
    /// Streaming or throughput scheduling of the outputs.
    public let mode: Mode
    public var name: String { "native-\(preset.rawValue)" }
    /// Output frames the output lags the input by while streaming (released by `finish`).
    public let latency: Int
    /// Taps per phase (a multiple of 8; of 16 with the 16-lane kernels) and the number of phases.
    public let tapsPerPhase: Int
    /// Phases of the polyphase filter: the reduced ratio's up factor.
    public var phases: Int { up }

    // State the `emit` extension (PolyphaseResampler+Emit.swift) reads, hence internal.
    let up: Int  // L
    let down: Int  // M
    let windowStep: Int, phaseStep: Int  // ⌊M / L⌋ and M mod L: one output on (`advance`)
    let centre: Int  // C, in the virtual rate's samples
    /// up × tapsPerPhase, each phase reversed, with `Self.pad` zeros before and after the table (what
    /// the aligned decimation kernel reads around its one phase).
    let coefficients: UnsafeMutablePointer<Float>
    /// channels × capacity, planar; 64-byte aligned, `capacity` a multiple of 16 and `Self.pad`
    /// floats after the last row, so aligned vector loads around any window stay inside.
    let history: UnsafeMutablePointer<Float>
    let capacity: Int
    let channels: Int

    // Position counters, read per output frame by the kernels: `@exclusivity(unchecked)` spares each
    // access the dynamic exclusivity check a class's stored properties otherwise pay.
    @exclusivity(unchecked) var historyStart = 0  // absolute input index of history[0]
    /// Absolute index one past the last frame in history (input, then end padding).
    @exclusivity(unchecked) var filled = 0
    @exclusivity(unchecked) var inputFrames = 0
    @exclusivity(unchecked) var outputFrames = 0
    @exclusivity(unchecked) var nextBase = 0  // ⌊(m·M + C) / L⌋ for m = outputFrames
    @exclusivity(unchecked) var nextPhase = 0  // (m·M + C) mod L
    /// 2× integer upsampling (24k→48k, 8k→16k …): the C kernels (upsample2.c) pair the symmetric
    /// taps, the Swift ones compute outputs four at a time (two phases × two consecutive input
    /// windows); each computes every output of the instance the same way, so results do not depend
    /// on how the input was chunked.
    let upByTwo: Bool
    /// Output frames a throughput-mode instance waits for before computing a block (0: none, as in
    /// streaming mode or where the ratio gains nothing from it); part of `latency`.
    public let holdBack: Int
    /// Most cycles one phase-major block computes (8, more when the phases are few).
    let phaseMajorCycles: Int
    /// Whether a two-phase ratio (L = 2, M > 1) runs phase-major blocks (throughput mode only).
    let phaseMajorForTwo: Bool
    /// Cycles a throughput-mode instance waits for before a phase-major block (8, or `blockCycles`).
    let holdBackCycles: Int

    /// Zero floats around the coefficient table and after the history (one 16-lane vector).
    static let pad = 16

    /// Largest filter the design will build (taps over all phases), so a ratio such as
    /// 768000/767999 fails at configuration instead of allocating gigabytes.
    public static let maximumFilterLength = 1 << 24

    /// Whether this instance runs the C vector kernels (AVX2/FMA, AVX-512 or NEON).
    public let isVectorized: Bool
    /// Whether they are the 16-lane (AVX-512F) ones.
    public let isWide: Bool

    /// Whether `VectorKernel.best` means the C vector kernels on this machine.
    public static let vectorKernelsAvailable = cvk_fir_available() != 0

    /// - Throws: `invalidConfiguration` when the ratio needs a filter longer than
    ///   `maximumFilterLength` taps (ratios of very large coprime rates).
    public convenience init(
        format: ResamplingFormat, preset: Preset = .high, kernel: VectorKernel = .best, mode: Mode = .streaming
    ) throws(AudioPipelineError) {
        try self.init(
            format: format, preset: preset, kernelLevel: kernel == .best ? Self.vectorKernelLevel : 0, mode: mode)
    }

    /// The widest C kernels this CPU runs: 0 none, 1 the 8-lane ones, 2 also the 16-lane ones.
    static let vectorKernelLevel = Int(cvk_fir_level())

    /// `kernelLevel`: 0 the Swift kernels, 1 the 8-lane C kernels, 2 the 16-lane ones; capped at
    /// what this CPU runs (tests choose a narrower one than `.best`). `fillPadding` (the half-band
    /// cascade's second stage): the filter is made as long as the padded phases hold, for the
    /// attenuation those taps give at no cost (44.1 → 16 kHz's second stage, 22.05 → 16 kHz: 117
    /// taps a phase padded to 128, 130 → 141 dB designed). `blockCycles`: the cycles a throughput-mode
    /// instance waits for and computes per phase-major block (8; the cascade's second stage 32).
    init(
        format: ResamplingFormat, preset: Preset, kernelLevel: Int, mode: Mode = .streaming,
        fillPadding: Bool = false, blockCycles: Int = 8
    ) throws(AudioPipelineError) {
        self.format = format
        self.preset = preset
        self.mode = mode
        let level = Swift.min(kernelLevel, Self.vectorKernelLevel)
        isVectorized = level >= 1
        isWide = level >= 2
        up = format.upFactor
        down = format.downFactor
        (windowStep, phaseStep) = (down / up, down % up)
        channels = format.channels
        let lower = Double(Swift.min(format.inputRate.hz, format.outputRate.hz))
        let virtualRate = Double(format.inputRate.hz) * Double(up)
        let width = (Self.stopbandEdge - Self.passbandEdge) * lower / virtualRate
        let cutoff = (Self.stopbandEdge + Self.passbandEdge) / 2 * lower / virtualRate
        let length = KaiserFilterDesign.length(attenuation: preset.attenuation, transitionWidth: width)
        guard length <= Self.maximumFilterLength, up <= Self.maximumFilterLength / 8 else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "\(format): the ratio \(up)/\(down) needs a \(length)-tap filter, more than the "
                    + "\(Self.maximumFilterLength) the native resampler builds; use a libsamplerate resampler")
        }
        let lanes = isWide ? 16 : 8
        tapsPerPhase = ((length + up - 1) / up + lanes - 1) / lanes * lanes
        let minTaps = fillPadding ? tapsPerPhase : (length + up - 1) / up
        // The attenuation the filter's length gives (Kaiser's formula solved for it): the preset's,
        // or with `fillPadding` what the padded length reaches.
        let attenuation =
            fillPadding
            ? Swift.max(preset.attenuation, 7.95 + 14.36 * width * Double(up * minTaps - 2)) : preset.attenuation
        // Centre on an integer position using the whole length L·T0 (odd length 2C + 1 ≤ L·T0).
        centre = (up * minTaps - 1) / 2
        let h = KaiserFilterDesign.lowPass(
            half: centre, cutoff: cutoff, beta: KaiserFilterDesign.beta(attenuation: attenuation),
            gain: Double(up))
        // 64-byte aligned (so is every phase: taps a multiple of 16 floats with the 16-lane kernels),
        // so no coefficient load splits a cache line.
        let table = Self.allocateAligned(up * tapsPerPhase + 2 * Self.pad)
        table.initialize(repeating: 0, count: up * tapsPerPhase + 2 * Self.pad)
        coefficients = table + Self.pad
        for phase in 0..<up {
            for t in 0..<tapsPerPhase {
                let j = phase + (tapsPerPhase - 1 - t) * up  // tap for input frame base − (T−1−t)
                if j < h.count { coefficients[phase * tapsPerPhase + t] = Float(h[j]) }
            }
        }
        // The C 2× kernels pair the symmetric taps around a centre of at least 2 (every preset's).
        upByTwo = up == 2 && down == 1 && (!isVectorized || centre >= 2)
        // Phase-major blocks (emitPhaseMajor) need a block's cycles of input in history: taps + 8·down
        // (taps + 32·down for the cascade's second stage).
        // Two phases (24→16 kHz, the half-band cascade's second stage at 48→16 kHz) only off the
        // streaming path, which stays as it was measured: blocks of 128 cycles there.
        phaseMajorForTwo = isVectorized && up == 2 && down > 1 && mode != .streaming
        let cycles = mode == .streaming ? 8 : Swift.max(8, blockCycles)
        let phaseMajor =
            isVectorized && (up > 2 || phaseMajorForTwo) && cycles * up <= 1 << 16 && cycles * down + 8 <= 1 << 16
        holdBackCycles = cycles
        capacity = (tapsPerPhase + Swift.max(2048, phaseMajor ? cycles * down + 8 : 0) + 15) / 16 * 16
        history = Self.allocateAligned(channels * capacity + Self.pad)
        // Throughput mode holds outputs back in blocks of 8 cycles (`blockCycles`) where the
        // phase-major path runs (the C kernels, L > 2 phases or L = 2 with M > 1; 2× up and pure
        // decimation are batched already).
        holdBack = mode != .streaming && phaseMajor ? cycles * up : 0
        // Few phases: longer blocks (about 256 outputs) spread the per-phase call over more outputs.
        phaseMajorCycles = Swift.max(cycles, Swift.min(256 / up / 8 * 8, (capacity - tapsPerPhase) / down / 8 * 8))
        latency = (centre + down - 1) / down + holdBack
        reset()
    }

    deinit {
        UnsafeMutableRawPointer(coefficients - Self.pad).deallocate()
        UnsafeMutableRawPointer(history).deallocate()
    }

    /// `count` floats at a 64-byte boundary (a cache line; one 16-lane vector).
    static func allocateAligned(_ count: Int) -> UnsafeMutablePointer<Float> {
        UnsafeMutableRawPointer.allocate(byteCount: count * MemoryLayout<Float>.stride, alignment: 64)
            .bindMemory(to: Float.self, capacity: count)
    }

    /// Forgets the stream (history zeroed, counters at 0); allocates nothing.
    public func reset() {
        history.initialize(repeating: 0, count: channels * capacity + Self.pad)
        // The T−1 frames before the stream are zeros.
        historyStart = -(tapsPerPhase - 1)
        filled = 0
        inputFrames = 0
        outputFrames = 0
        nextBase = centre / up
        nextPhase = centre % up
    }

    /// Output frames `frames` more input can produce, plus what `finish` can release.
    public func maxOutputCount(forInput frames: Int) -> Int {
        // Output due for `frames` more input, plus what finish can release.
        (frames * up + down - 1) / down + latency + 1
    }

    /// Consumes interleaved frames and writes every output frame the input seen so far determines.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
    ) -> ProcessResult {
        let inFrames = input.count / channels
        let outCap = output.count / channels
        guard let out = output.baseAddress else { return ProcessResult(consumed: 0, produced: 0) }
        var consumed = 0, produced = 0
        while true {
            produced += emit(
                into: out + produced * channels, capacity: outCap - produced, availableUpTo: filled, draining: false)
            if produced == outCap || consumed == inFrames { break }
            compact()
            let take = Swift.min(capacity - (filled - historyStart), inFrames - consumed)
            if take == 0 { break }
            let src = input.baseAddress! + consumed * channels
            let at = filled - historyStart
            if channels == 1 {
                (history + at).update(from: src, count: take)
            } else {
                for c in 0..<channels {
                    let dst = history + c * capacity + at
                    for f in 0..<take { dst[f] = src[f * channels + c] }
                }
            }
            filled += take
            inputFrames += take
            consumed += take
        }
        return ProcessResult(consumed: consumed, produced: produced)
    }

    /// Writes the remaining output (input after the end taken as 0) up to the exact total
    /// `format.totalOutputFrames(forInputFrames:)`. Call until it returns 0; then `reset()` before
    /// a new stream.
    public func finish(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        let total = format.totalOutputFrames(forInputFrames: inputFrames)
        let outCap = Swift.min(output.count / channels, total - outputFrames)
        guard outCap > 0, let out = output.baseAddress else { return 0 }
        var produced = 0
        while produced < outCap {
            // Pad with zeros up to the frame the next output needs.
            if nextBase >= filled {
                compact()
                let pad = Swift.min(nextBase + 1 - filled, capacity - (filled - historyStart))
                for c in 0..<channels {
                    (history + c * capacity + (filled - historyStart)).initialize(repeating: 0, count: pad)
                }
                filled += pad
            }
            produced += emit(
                into: out + produced * channels, capacity: outCap - produced, availableUpTo: filled, draining: true)
        }
        return produced
    }

    /// Drops history no future output needs, moving the rest to the front.
    func compact() {
        let keepFrom = Swift.min(nextBase - (tapsPerPhase - 1), filled)
        let drop = keepFrom - historyStart
        guard drop > 0 else { return }
        let keep = filled - keepFrom
        for c in 0..<channels {
            let base = history + c * capacity
            base.update(from: base + drop, count: keep)
        }
        historyStart = keepFrom
    }

    // Kernel dispatch. The C dot-product kernels sum every output the same way (one 8-lane
    // accumulator), so `single` and the batch kernels (`cvk_decimate`, `cvk_polyphase`, called in
    // `emit`) agree output for output, as the Swift ones (PolyphaseResampler+SwiftKernels.swift) do
    // within their pairings (`dotSingle`/`dotQuad`/`dotQuadShared`, `dot`/`dotShared`). The C 2×
    // kernels (`cvk_up2*`, upsample2.c, called in `emitUpByTwo`) sum the symmetric tap pairs in one
    // chain of their own, the same in every kernel and tail.

    @inline(__always)
    func single(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
        if isWide { return cvk_dot1_w16(a, b, n) }
        return isVectorized ? cvk_dot1(a, b, n) : Self.dotSingle(a, b, n)
    }
}
