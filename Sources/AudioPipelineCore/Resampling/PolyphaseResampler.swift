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
/// separate multiply and add on 4; 1.1–3.2× faster here, see docs/benchmarks.md), on AArch64 in
/// their NEON versions; elsewhere, or with `kernel: .portable`, in the Swift SIMD code below.
/// Within one instance every output uses the same kernel and summation order; the two kernels
/// differ in the last bits (fused rounding).
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

        public var attenuation: Double { self == .high ? 130 : 100 }
    }

    /// Passband edge and stopband edge as fractions of the lower of the two rates.
    public static let passbandEdge = 0.40
    public static let stopbandEdge = 0.50

    public let format: ResamplingFormat
    public let preset: Preset
    public var name: String { "native-\(preset.rawValue)" }
    public let latency: Int
    /// Taps per phase (a multiple of 8) and the number of phases.
    public let tapsPerPhase: Int
    public var phases: Int { up }

    private let up: Int  // L
    private let down: Int  // M
    private let centre: Int  // C, in the virtual rate's samples
    private let coefficients: UnsafeMutablePointer<Float>  // up × tapsPerPhase, each phase reversed
    private let history: UnsafeMutablePointer<Float>  // channels × capacity, planar
    private let capacity: Int
    private let channels: Int

    // Position counters, read per output frame by the kernels: `@exclusivity(unchecked)` spares each
    // access the dynamic exclusivity check a class's stored properties otherwise pay.
    @exclusivity(unchecked) private var historyStart = 0  // absolute input index of history[0]
    @exclusivity(unchecked) private var filled = 0  // absolute index one past the last frame in history (input, then end padding)
    @exclusivity(unchecked) private var inputFrames = 0
    @exclusivity(unchecked) private var outputFrames = 0
    @exclusivity(unchecked) private var nextBase = 0  // ⌊(m·M + C) / L⌋ for m = outputFrames
    @exclusivity(unchecked) private var nextPhase = 0  // (m·M + C) mod L
    /// 2× integer upsampling (24k→48k, 8k→16k …): outputs are computed four at a time (two phases
    /// × two consecutive input windows), every output of the instance with one accumulator, so
    /// results do not depend on which path computed them.
    private let upByTwo: Bool

    /// Largest filter the design will build (taps over all phases), so a ratio such as
    /// 768000/767999 fails at configuration instead of allocating gigabytes.
    public static let maximumFilterLength = 1 << 24

    /// Whether this instance runs the C vector kernels (AVX2/FMA or NEON).
    public let isVectorized: Bool

    /// Whether `VectorKernel.best` means the C vector kernels on this machine.
    public static let vectorKernelsAvailable = cvk_fir_available() != 0

    /// - Throws: `invalidConfiguration` when the ratio needs a filter longer than
    ///   `maximumFilterLength` taps (ratios of very large coprime rates).
    public init(format: ResamplingFormat, preset: Preset = .high, kernel: VectorKernel = .best) throws(AudioPipelineError) {
        self.format = format
        self.preset = preset
        isVectorized = kernel == .best && Self.vectorKernelsAvailable
        up = format.upFactor
        down = format.downFactor
        channels = format.channels
        let lower = Double(Swift.min(format.inputRate.hz, format.outputRate.hz))
        let virtualRate = Double(format.inputRate.hz) * Double(up)
        let width = (Self.stopbandEdge - Self.passbandEdge) * lower / virtualRate
        let cutoff = (Self.stopbandEdge + Self.passbandEdge) / 2 * lower / virtualRate
        let length = KaiserFilterDesign.length(attenuation: preset.attenuation, transitionWidth: width)
        guard length <= Self.maximumFilterLength, up <= Self.maximumFilterLength / 8 else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "\(format): the ratio \(up)/\(down) needs a \(length)-tap filter, more than the \(Self.maximumFilterLength) the native resampler builds; use a libsamplerate resampler")
        }
        let minTaps = (length + up - 1) / up
        tapsPerPhase = (minTaps + 7) / 8 * 8
        // Centre on an integer position using the whole length L·T0 (odd length 2C + 1 ≤ L·T0).
        centre = (up * minTaps - 1) / 2
        let h = KaiserFilterDesign.lowPass(
            half: centre, cutoff: cutoff, beta: KaiserFilterDesign.beta(attenuation: preset.attenuation), gain: Double(up))
        coefficients = .allocate(capacity: up * tapsPerPhase)
        coefficients.initialize(repeating: 0, count: up * tapsPerPhase)
        for phase in 0..<up {
            for t in 0..<tapsPerPhase {
                let j = phase + (tapsPerPhase - 1 - t) * up  // tap for input frame base − (T−1−t)
                if j < h.count { coefficients[phase * tapsPerPhase + t] = Float(h[j]) }
            }
        }
        upByTwo = up == 2 && down == 1
        capacity = tapsPerPhase + 2048
        history = .allocate(capacity: channels * capacity)
        latency = (centre + down - 1) / down
        reset()
    }

    deinit {
        coefficients.deallocate()
        history.deallocate()
    }

    public func reset() {
        history.initialize(repeating: 0, count: channels * capacity)
        // The T−1 frames before the stream are zeros.
        historyStart = -(tapsPerPhase - 1)
        filled = 0
        inputFrames = 0
        outputFrames = 0
        nextBase = centre / up
        nextPhase = centre % up
    }

    public func maxOutputCount(forInput frames: Int) -> Int {
        // Output due for `frames` more input, plus what finish can release.
        (frames * up + down - 1) / down + latency + 1
    }

    /// Consumes interleaved frames and writes every output frame the input seen so far determines.
    public func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> ProcessResult {
        let inFrames = input.count / channels
        let outCap = output.count / channels
        guard let out = output.baseAddress else { return ProcessResult(consumed: 0, produced: 0) }
        var consumed = 0, produced = 0
        while true {
            produced += emit(into: out + produced * channels, capacity: outCap - produced, availableUpTo: filled)
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
                for c in 0..<channels { (history + c * capacity + (filled - historyStart)).initialize(repeating: 0, count: pad) }
                filled += pad
            }
            produced += emit(into: out + produced * channels, capacity: outCap - produced, availableUpTo: filled)
        }
        return produced
    }

    /// Computes outputs while their last input frame is below `end` and there is room.
    @inline(__always)
    private func emit(into out: UnsafeMutablePointer<Float>, capacity room: Int, availableUpTo end: Int) -> Int {
        var n = 0
        let step = down / up, stepPhase = down % up
        let taps = tapsPerPhase
        if upByTwo {
            if isVectorized && nextPhase == 1 && n < room && nextBase < end {
                // The second output of a window the previous call left half done, so that the
                // batch below starts on a whole window.
                let offset = nextBase - (taps - 1) - historyStart
                for c in 0..<channels { out[n * channels + c] = single(coefficients + taps, history + c * capacity + offset, taps) }
                n &+= 1
                nextPhase = 0
                nextBase &+= 1
            }
            if isVectorized && nextPhase == 0 && n < room && nextBase < end {
                // Every whole window (two outputs) that fits, in one call per channel.
                let windows = Swift.min((room - n) / 2, end - nextBase)
                let offset = nextBase - (taps - 1) - historyStart
                for c in 0..<channels {
                    cvk_upsample2(coefficients, coefficients + taps, history + c * capacity + offset, taps, windows, out + n * channels + c, channels)
                }
                n &+= 2 &* windows
                nextBase &+= windows
            }
            while !isVectorized && n &+ 3 < room && nextPhase == 0 && nextBase &+ 1 < end {
                let offset = nextBase - (taps - 1) - historyStart
                for c in 0..<channels {
                    let (y0, y1, y2, y3) = Self.dotQuad(coefficients, coefficients + taps, history + c * capacity + offset, taps)
                    out[n * channels + c] = y0
                    out[(n + 1) * channels + c] = y1
                    out[(n + 2) * channels + c] = y2
                    out[(n + 3) * channels + c] = y3
                }
                n &+= 4
                nextBase &+= 2
            }
            while n < room && nextBase < end {
                let offset = nextBase - (taps - 1) - historyStart
                let coeffs = coefficients + nextPhase * taps
                for c in 0..<channels { out[n * channels + c] = single(coeffs, history + c * capacity + offset, taps) }
                n += 1
                nextPhase += 1
                if nextPhase >= up {
                    nextPhase -= up
                    nextBase += 1
                }
            }
            outputFrames += n
            return n
        }
        if up == 1 {
            // Pure decimation: one phase, so four consecutive outputs (windows `down` apart) share
            // every coefficient load; every output of the instance uses one accumulator.
            let next = down
            if isVectorized && n < room && nextBase < end {
                // Every output whose window is in, in one call per channel.
                let count = Swift.min(room - n, (end - 1 - nextBase) / next + 1)
                let offset = nextBase - (taps - 1) - historyStart
                for c in 0..<channels {
                    cvk_decimate(coefficients, history + c * capacity + offset, next, taps, count, out + n * channels + c, channels)
                }
                n &+= count
                nextBase &+= count &* next
            }
            while !isVectorized && n &+ 3 < room && nextBase &+ 3 &* next < end {
                let offset = nextBase - (taps - 1) - historyStart
                for c in 0..<channels {
                    let (y0, y1, y2, y3) = Self.dotQuadShared(coefficients, history + c * capacity + offset, next, taps)
                    out[n * channels + c] = y0
                    out[(n + 1) * channels + c] = y1
                    out[(n + 2) * channels + c] = y2
                    out[(n + 3) * channels + c] = y3
                }
                n &+= 4
                nextBase &+= 4 &* next
            }
            while n < room && nextBase < end {
                let offset = nextBase - (taps - 1) - historyStart
                for c in 0..<channels { out[n * channels + c] = single(coefficients, history + c * capacity + offset, taps) }
                n &+= 1
                nextBase &+= next
            }
            outputFrames += n
            return n
        }
        if isVectorized {
            // Any other ratio: the C kernel walks phases and windows itself, eight outputs at a time.
            if n < room && nextBase < end {
                let w0 = nextBase - (taps - 1) - historyStart, wend = end - (taps - 1) - historyStart
                var w = 0, p = 0, count = 0
                for c in 0..<channels {
                    count = cvk_polyphase(
                        coefficients, taps, up, step, stepPhase, history + c * capacity, w0, nextPhase, wend, room - n, out + n * channels + c,
                        channels, &w, &p)
                }
                n &+= count
                nextBase = w + (taps - 1) + historyStart
                nextPhase = p
            }
            outputFrames += n
            return n
        }
        if down == 1 {
            // Integer upsampling: outputs come in runs that read the same input window with
            // successive phases; pair them to share the input loads.
            while n &+ 1 < room && nextBase < end && nextPhase &+ 1 < up {
                let offset = nextBase - (taps - 1) - historyStart
                let c0 = coefficients + nextPhase * taps
                for c in 0..<channels {
                    let (y0, y1) = Self.dotShared(c0, c0 + taps, history + c * capacity + offset, taps)
                    out[n * channels + c] = y0
                    out[(n + 1) * channels + c] = y1
                }
                n &+= 2
                nextPhase &+= 2
                if nextPhase >= up {
                    nextPhase -= up
                    nextBase += 1
                }
            }
        }
        while n < room && nextBase < end {
            let offset = nextBase - (taps - 1) - historyStart
            let coeffs = coefficients + nextPhase * taps
            for c in 0..<channels {
                out[n * channels + c] = Self.dot(coeffs, history + c * capacity + offset, taps)
            }
            n += 1
            nextBase += step
            nextPhase += stepPhase
            if nextPhase >= up {
                nextPhase -= up
                nextBase += 1
            }
        }
        outputFrames += n
        return n
    }

    /// Drops history no future output needs, moving the rest to the front.
    private func compact() {
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

    // Kernel dispatch. The C kernels sum every output the same way (one 8-lane accumulator),
    // so `single` and the batch kernels (`cvk_decimate`, `cvk_upsample2`, `cvk_polyphase`, called in
    // `emit`) agree output for output, as the Swift ones do within their pairings
    // (`dotSingle`/`dotQuad`/`dotQuadShared`, `dot`/`dotShared`).

    @inline(__always)
    private func single(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
        isVectorized ? cvk_dot1(a, b, n) : Self.dotSingle(a, b, n)
    }

    /// Two dot products of coefficient sets `a0` and `a1` with the same input `b`, each summed in
    /// exactly the order `dot` uses.
    @inline(__always)
    static func dotShared(_ a0: UnsafePointer<Float>, _ a1: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> (Float, Float) {
        let r0 = UnsafeRawPointer(a0), r1 = UnsafeRawPointer(a1), rb = UnsafeRawPointer(b)
        var p0 = SIMD8<Float>.zero, p1 = SIMD8<Float>.zero, q0 = SIMD8<Float>.zero, q1 = SIMD8<Float>.zero
        var i = 0
        while i &+ 16 <= n {
            let x0 = rb.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            let x1 = rb.loadUnaligned(fromByteOffset: (i &+ 8) &* 4, as: SIMD8<Float>.self)
            p0 += r0.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self) * x0
            p1 += r0.loadUnaligned(fromByteOffset: (i &+ 8) &* 4, as: SIMD8<Float>.self) * x1
            q0 += r1.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self) * x0
            q1 += r1.loadUnaligned(fromByteOffset: (i &+ 8) &* 4, as: SIMD8<Float>.self) * x1
            i &+= 16
        }
        if i < n {
            let x0 = rb.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            p0 += r0.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self) * x0
            q0 += r1.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self) * x0
        }
        return reduce2(p0 + p1, q0 + q1)
    }

    /// Σ a[i]·b[i] with one accumulator: the order every output of a 2×-upsampling instance uses.
    @inline(__always)
    static func dotSingle(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        var acc = SIMD8<Float>.zero
        var i = 0
        while i < n {
            acc += ra.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self) * rb.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            i &+= 8
        }
        return reduce(acc)
    }

    /// Four outputs of 2× upsampling at once: phases `a0`, `a1` over the window at `b` and over
    /// the next window (`b + 1`), each summed exactly as `dotSingle` sums it. Coefficient and
    /// input loads are each shared by two outputs.
    @inline(__always)
    static func dotQuad(_ a0: UnsafePointer<Float>, _ a1: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> (Float, Float, Float, Float) {
        let r0 = UnsafeRawPointer(a0), r1 = UnsafeRawPointer(a1), rb = UnsafeRawPointer(b)
        var p = SIMD8<Float>.zero, q = SIMD8<Float>.zero, u = SIMD8<Float>.zero, v = SIMD8<Float>.zero
        var i = 0
        while i < n {
            let c0 = r0.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            let c1 = r1.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            let x0 = rb.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            let x1 = rb.loadUnaligned(fromByteOffset: i &* 4 &+ 4, as: SIMD8<Float>.self)
            p += c0 * x0
            q += c1 * x0
            u += c0 * x1
            v += c1 * x1
            i &+= 8
        }
        let (y0, y1) = reduce2(p, q), (y2, y3) = reduce2(u, v)
        return (y0, y1, y2, y3)
    }

    /// Four decimation outputs at once: coefficients `a` over the windows at `b`, `b + stride`,
    /// `b + 2·stride`, `b + 3·stride`, each summed exactly as `dotSingle` sums it.
    @inline(__always)
    static func dotQuadShared(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ stride: Int, _ n: Int) -> (Float, Float, Float, Float) {
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        let s1 = stride &* 4, s2 = stride &* 8, s3 = stride &* 12
        var p = SIMD8<Float>.zero, q = SIMD8<Float>.zero, u = SIMD8<Float>.zero, v = SIMD8<Float>.zero
        var i = 0
        while i < n {
            let o = i &* 4
            let c = ra.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self)
            p += c * rb.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self)
            q += c * rb.loadUnaligned(fromByteOffset: o &+ s1, as: SIMD8<Float>.self)
            u += c * rb.loadUnaligned(fromByteOffset: o &+ s2, as: SIMD8<Float>.self)
            v += c * rb.loadUnaligned(fromByteOffset: o &+ s3, as: SIMD8<Float>.self)
            i &+= 8
        }
        let (y0, y1) = reduce2(p, q), (y2, y3) = reduce2(u, v)
        return (y0, y1, y2, y3)
    }

    /// The horizontal sum every dot product ends with, in one fixed order:
    /// `((v0+v4) + (v2+v6)) + ((v1+v5) + (v3+v7))`.
    @inline(__always)
    static func reduce(_ v: SIMD8<Float>) -> Float {
        let h = v.lowHalf + v.highHalf
        let t = h.lowHalf + h.highHalf
        return t[0] + t[1]
    }

    /// `reduce` of two vectors at once (same order for each, so the same results).
    @inline(__always)
    static func reduce2(_ p: SIMD8<Float>, _ q: SIMD8<Float>) -> (Float, Float) {
        let ph = p.lowHalf + p.highHalf, qh = q.lowHalf + q.highHalf
        let t = SIMD4(lowHalf: ph.lowHalf, highHalf: qh.lowHalf) + SIMD4(lowHalf: ph.highHalf, highHalf: qh.highHalf)
        return (t[0] + t[1], t[2] + t[3])
    }

    /// Σ a[i]·b[i] over `n` (a multiple of 8) terms, in a fixed order: two 8-lane accumulators.
    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        var acc0 = SIMD8<Float>.zero, acc1 = SIMD8<Float>.zero
        var i = 0
        while i &+ 16 <= n {
            acc0 += ra.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            acc1 += ra.loadUnaligned(fromByteOffset: (i &+ 8) &* 4, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: (i &+ 8) &* 4, as: SIMD8<Float>.self)
            i &+= 16
        }
        if i < n {
            acc0 += ra.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
        }
        return reduce(acc0 + acc1)
    }
}
