import CVectorKernels

/// The vectorised inner loops of sample conversion. Written with explicit `SIMD8` types and
/// unaligned loads/stores on raw pointers so a plain `swift build -c release` (no `-Ounchecked`, no
/// `-march`) vectorises them; scalar tails handle the last `n % 8` samples with the same arithmetic.
///
/// On x86-64 with AVX2 the bulk goes to the C kernels (`CVectorKernels/pcm.c`: the same operations
/// with 256-bit registers, or 512-bit ones where the CPU has AVX-512; bit-identical; measured
/// 2–3× faster than these SSE2 loops); `kernel: .portable` keeps everything here (tests compare them).
enum PCMKernels {
    typealias F8 = SIMD8<Float>
    typealias I8 = SIMD8<Int32>

    /// How many leading samples of `x[0 ..< n]` are known finite (whole groups of 32 or 64, scanned
    /// with the C kernels; 0 without them): the rest is for the caller's own check.
    static func finitePrefix(_ x: UnsafePointer<Float>, _ n: Int) -> Int {
        vectorized ? cvk_finite_prefix(x, n) : 0
    }

    /// Whether `.best` uses the C kernels on this machine (AVX2, or AVX-512 where present).
    static let vectorized = cvk_pcm_available() != 0
    /// The widest C kernels this CPU runs: 0 none, 1 AVX2, 2 AVX-512.
    static let cpuLevel = Int(cvk_pcm_level())
    /// Caps the C kernels' width (tests run every level against the Swift loops); 2: no cap.
    static func capLevel(_ level: Int) { cvk_pcm_set_level(Int32(level)) }

    // MARK: Float32 → Int16, standard

    /// `clamp(round(x × 32768))`, NaN → 0. Returns (samples outside [-1, 1], NaNs).
    ///
    /// The vector loop flags samples that are outside [-1, 1] *or* NaN with one compare
    /// (`!(|x| <= 1)`) and lets NaN fall through the clamp. Only a call where something was flagged
    /// gets a second, vectorised pass that counts clipping and NaN exactly (measured: a chunk with
    /// clipping costs about 1.5× a clean one), and a scalar pass that writes 0 for each NaN only
    /// when there is one.
    @inline(__always)
    static func floatToInt16Standard(
        _ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Int16>, _ n: Int, kernel: VectorKernel = .best
    ) -> (clipped: Int, nan: Int) {
        var i = 0
        var oddC: Int32 = 0
        if kernel == .best && vectorized { i = cvk_f32_to_i16(src, dst, n, &oddC) }
        var oddAcc = I8.zero
        let hi = F8(repeating: 32767), lo = F8(repeating: -32768), scale = F8(repeating: 32768)
        let magic = F8(repeating: 12_582_912), one = F8(repeating: 1), absMask = I8(repeating: 0x7FFF_FFFF)
        let raw = UnsafeRawPointer(src), out = UnsafeMutableRawPointer(dst)
        while i &+ 8 <= n {
            let v = raw.loadUnaligned(fromByteOffset: i &* 4, as: F8.self)
            let magnitude = unsafeBitCast(unsafeBitCast(v, to: I8.self) & absMask, to: F8.self)
            oddAcc &-= unsafeBitCast(.!(magnitude .<= one), to: I8.self)
            // `s > lo ? s : lo` / `s < hi ? s : hi`: the semantics of maxps/minps.
            var s = v * scale
            s = lo.replacing(with: s, where: s .> lo)
            s = hi.replacing(with: s, where: s .< hi)
            // Round to nearest even without a float→int conversion: adding 1.5 × 2^23 leaves the
            // rounded integer in the low mantissa bits (|s| ≤ 2^15 ≪ 2^22).
            let q = SIMD8<Int16>(truncatingIfNeeded: unsafeBitCast(s + magic, to: I8.self))
            out.storeBytes(of: q, toByteOffset: i &* 2, as: SIMD8<Int16>.self)
            i &+= 8
        }
        var clipped = 0, nans = 0
        if oddAcc != .zero || oddC != 0 {
            (clipped, nans) = countClippedAndNaN(src, i)
            if nans > 0 {
                for j in 0..<i where src[j].isNaN { dst[j] = 0 }
            }
        }
        while i < n {
            let x = src[i]
            if x.isNaN {
                nans += 1
                dst[i] = 0
            } else {
                if x > 1 || x < -1 { clipped += 1 }
                dst[i] = Int16(Swift.min(Swift.max(x * 32768, -32768), 32767).rounded(.toNearestOrEven))
            }
            i &+= 1
        }
        return (clipped, nans)
    }

    /// Samples of `src[0..<n]` (n a multiple of 8) outside [-1, 1], and NaNs, counted exactly.
    @inline(__always)
    static func countClippedAndNaN(_ src: UnsafePointer<Float>, _ n: Int) -> (clipped: Int, nan: Int) {
        var clipAcc = I8.zero, nanAcc = I8.zero
        let one = F8(repeating: 1), absMask = I8(repeating: 0x7FFF_FFFF)
        let raw = UnsafeRawPointer(src)
        var i = 0
        while i &+ 8 <= n {
            let v = raw.loadUnaligned(fromByteOffset: i &* 4, as: F8.self)
            nanAcc &-= unsafeBitCast(v .!= v, to: I8.self)
            let magnitude = unsafeBitCast(unsafeBitCast(v, to: I8.self) & absMask, to: F8.self)
            clipAcc &-= unsafeBitCast(magnitude .> one, to: I8.self)
            i &+= 8
        }
        return (Int(clipAcc.wrappedSum()), Int(nanAcc.wrappedSum()))
    }

    // MARK: Float32 → Int16, TPDF dither

    /// As `floatToInt16Standard`, plus triangular dither of ±1 LSB before rounding (`TPDFNoise`: the
    /// noise of a sample depends on the seed and its position only, so the result is the same however
    /// the input is chunked, and the same from the C kernels as from these loops).
    static func floatToInt16Dithered(
        _ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Int16>, _ n: Int, _ noise: inout TPDFNoise,
        kernel: VectorKernel = .best
    ) -> (clipped: Int, nan: Int) {
        var counts = (clipped: 0, nan: 0)
        var i = 0
        if n > 0 && noise.position & 1 != 0 {  // the vector loops start on a pair of samples
            ditherOne(src, dst, 0, noise.next(), &counts)
            i = 1
        }
        let start = i
        var oddC: Int32 = 0
        if kernel == .best && vectorized && n - i >= 16 {
            let done = cvk_f32_to_i16_tpdf(src + i, dst + i, n - i, noise.key, noise.position >> 1, &oddC)
            noise.advance(done)
            i += done
        }
        var oddAcc = I8.zero
        if n - i >= 16 {
            var lanes = noise.lanes()
            let first = i
            while i &+ 16 <= n {
                let (d0, d1) = lanes.draw()
                ditherEight(src, dst, i, d0, &oddAcc)
                ditherEight(src, dst, i &+ 8, d1, &oddAcc)
                i &+= 16
            }
            noise.advance(i - first)
        }
        if oddAcc != .zero || oddC != 0 {
            let odd = countClippedAndNaN(src + start, i - start)
            (counts.clipped, counts.nan) = (counts.clipped + odd.clipped, counts.nan + odd.nan)
            if odd.nan > 0 {
                for j in start..<i where src[j].isNaN { dst[j] = 0 }
            }
        }
        while i < n {
            ditherOne(src, dst, i, noise.next(), &counts)
            i &+= 1
        }
        return counts
    }

    /// Eight samples from `i` with their noise `d`: clamp(round(x × 32768 + d)), NaN → -32768 (the
    /// caller writes 0 for NaNs); flags samples outside [-1, 1] or NaN in `oddAcc`.
    @inline(__always)
    static func ditherEight(
        _ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Int16>, _ i: Int, _ d: F8, _ oddAcc: inout I8
    ) {
        let hi = F8(repeating: 32767), lo = F8(repeating: -32768), scale = F8(repeating: 32768)
        let magic = F8(repeating: 12_582_912), one = F8(repeating: 1), absMask = I8(repeating: 0x7FFF_FFFF)
        let v = UnsafeRawPointer(src).loadUnaligned(fromByteOffset: i &* 4, as: F8.self)
        let magnitude = unsafeBitCast(unsafeBitCast(v, to: I8.self) & absMask, to: F8.self)
        oddAcc &-= unsafeBitCast(.!(magnitude .<= one), to: I8.self)
        // x·32768 is exact, so this is what the C kernels' fused multiply-add gives too.
        var s = v * scale + d
        s = lo.replacing(with: s, where: s .> lo)
        s = hi.replacing(with: s, where: s .< hi)
        let q = SIMD8<Int16>(truncatingIfNeeded: unsafeBitCast(s + magic, to: I8.self))
        UnsafeMutableRawPointer(dst).storeBytes(of: q, toByteOffset: i &* 2, as: SIMD8<Int16>.self)
    }

    /// One sample of `floatToInt16Dithered` with its noise `d`, counted.
    @inline(__always)
    static func ditherOne(
        _ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Int16>, _ i: Int, _ d: Float,
        _ counts: inout (clipped: Int, nan: Int)
    ) {
        let x = src[i]
        if x.isNaN {
            counts.nan += 1
            dst[i] = 0
            return
        }
        if x > 1 || x < -1 { counts.clipped += 1 }
        dst[i] = Int16(Swift.min(Swift.max(x * 32768 + d, -32768), 32767).rounded(.toNearestOrEven))
    }

    // MARK: Float32 → Int16, iOS compatibility

    /// `Int16(max(-1, min(1, x)) * 32767)` with Swift's `min`/`max` semantics: `min(1, NaN)` is 1,
    /// so NaN → 32767; truncation toward zero.
    @inline(__always)
    static func floatToInt16IOS(
        _ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Int16>, _ n: Int, kernel: VectorKernel = .best
    ) -> (clipped: Int, nan: Int) {
        var i = 0
        var clippedC = 0, nansC = 0
        if kernel == .best && vectorized { i = cvk_f32_to_i16_ios(src, dst, n, &clippedC, &nansC) }
        var clipAcc = I8.zero
        var nanAcc = I8.zero
        let one = F8(repeating: 1), minusOne = F8(repeating: -1), scale = F8(repeating: 32767), zero = F8.zero
        let magic = F8(repeating: 12_582_912), magicBits = I8(repeating: 0x4B40_0000)
        let raw = UnsafeRawPointer(src), out = UnsafeMutableRawPointer(dst)
        while i &+ 8 <= n {
            let v = raw.loadUnaligned(fromByteOffset: i &* 4, as: F8.self)
            nanAcc &-= unsafeBitCast(v .!= v, to: I8.self)
            clipAcc &-= unsafeBitCast((v .> one) .| (v .< minusOne), to: I8.self)
            // min(1, v) == (v < 1 ? v : 1); max(-1, m) == (m >= -1 ? m : -1)
            let m = one.replacing(with: v, where: v .< one)
            let c = minusOne.replacing(with: m, where: m .>= minusOne)
            // Truncate toward zero: round to nearest (magic-number add), then step back toward
            // zero where rounding went away from it.
            let x = c * scale
            let r = (x + magic) - magic
            var t = r
            t.replace(with: r - one, where: (r .> x) .& (x .> zero))
            t.replace(with: r + one, where: (r .< x) .& (x .< zero))
            let q = SIMD8<Int16>(truncatingIfNeeded: unsafeBitCast(t + magic, to: I8.self) &- magicBits)
            out.storeBytes(of: q, toByteOffset: i &* 2, as: SIMD8<Int16>.self)
            i &+= 8
        }
        var clipped = Int(clipAcc.wrappedSum()) + clippedC, nans = Int(nanAcc.wrappedSum()) + nansC
        while i < n {
            let x = src[i]
            if x.isNaN { nans += 1 } else if x > 1 || x < -1 { clipped += 1 }
            dst[i] = Int16(Swift.max(-1.0, Swift.min(1.0, x)) * Float(Int16.max))
            i &+= 1
        }
        return (clipped, nans)
    }

    // MARK: Int16 → Float32
    //
    // No int→float conversion: x + 32768 (the sign bit flipped) is zero-extended into the low
    // mantissa bits of a float whose ulp is exact — in [256, 512) the ulp is 2^-15, so
    // `bits(256) | u` is 256 + u·2^-15 and subtracting 257 leaves x / 32768 exactly; in
    // [2^23, 2^24) the ulp is 1, so subtracting 2^23 + 32768 leaves x itself. Zero-extension
    // interleaves with a zero register, so there is no false dependency on SSE2 (sign-extending the
    // high half was 2.4× slower there), and it maps to one vpmovzxwd with AVX2. Measured with
    // callgrind: 8 % fewer instructions than widening + cvtdq2ps in a portable build, 38 % fewer
    // with -target-cpu native.

    /// `Float(x) × 2^-15`: exact.
    @inline(__always)
    static func int16ToFloatStandard(
        _ src: UnsafePointer<Int16>, _ dst: UnsafeMutablePointer<Float>, _ n: Int, kernel: VectorKernel = .best
    ) {
        var i = 0
        if kernel == .best && vectorized { i = cvk_i16_to_f32(src, dst, n, 0) }
        let flip = SIMD8<UInt16>(repeating: 0x8000), bits = SIMD8<UInt32>(repeating: 0x4380_0000)
        let bias = F8(repeating: 257)
        let raw = UnsafeRawPointer(src), out = UnsafeMutableRawPointer(dst)
        while i &+ 8 <= n {
            let u = raw.loadUnaligned(fromByteOffset: i &* 2, as: SIMD8<UInt16>.self) ^ flip
            let f = unsafeBitCast(SIMD8<UInt32>(truncatingIfNeeded: u) | bits, to: F8.self) - bias
            out.storeBytes(of: f, toByteOffset: i &* 4, as: F8.self)
            i &+= 8
        }
        while i < n {
            dst[i] = Float(src[i]) * (1.0 / 32768)
            i &+= 1
        }
    }

    /// `Float(x) / 32767`: a true division, as the iOS code does (not a multiply by the reciprocal,
    /// which rounds differently for some inputs).
    @inline(__always)
    static func int16ToFloatIOS(
        _ src: UnsafePointer<Int16>, _ dst: UnsafeMutablePointer<Float>, _ n: Int, kernel: VectorKernel = .best
    ) {
        var i = 0
        if kernel == .best && vectorized { i = cvk_i16_to_f32(src, dst, n, 1) }
        let flip = SIMD8<UInt16>(repeating: 0x8000), bits = SIMD8<UInt32>(repeating: 0x4B00_0000)
        let bias = F8(repeating: 8_421_376), div = F8(repeating: 32767)  // 2^23 + 32768
        let raw = UnsafeRawPointer(src), out = UnsafeMutableRawPointer(dst)
        while i &+ 8 <= n {
            let u = raw.loadUnaligned(fromByteOffset: i &* 2, as: SIMD8<UInt16>.self) ^ flip
            let x = unsafeBitCast(SIMD8<UInt32>(truncatingIfNeeded: u) | bits, to: F8.self) - bias
            out.storeBytes(of: x / div, toByteOffset: i &* 4, as: F8.self)
            i &+= 8
        }
        while i < n {
            dst[i] = Float(src[i]) / Float(Int16.max)
            i &+= 1
        }
    }
}
