import RealModule

/// Windowed-sinc low-pass design with a Kaiser window (Kaiser 1974; Oppenheim & Schafer §7.5.3).
///
/// For a stopband attenuation of A dB and a transition width Δ (a fraction of the sampling rate),
/// β = 0.1102 (A − 8.7) and the length is N ≈ (A − 7.95) / (14.36 Δ) + 1. Computed in Double; the
/// caller stores the taps as Float.
public enum KaiserFilterDesign {
    /// Kaiser's β for `attenuation` dB of stopband rejection.
    public static func beta(attenuation a: Double) -> Double {
        if a > 50 { return 0.1102 * (a - 8.7) }
        if a >= 21 { return 0.5842 * Double.pow(a - 21, 0.4) + 0.07886 * (a - 21) }
        return 0
    }

    /// Taps needed for `attenuation` dB with a transition `width` (fraction of the sampling rate).
    public static func length(attenuation a: Double, transitionWidth width: Double) -> Int {
        Int(((a - 7.95) / (14.36 * width)).rounded(.up)) + 1
    }

    /// Zeroth-order modified Bessel function of the first kind, by its power series (converges
    /// fast for the arguments a Kaiser window needs, β ≤ 20).
    public static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0
        let q = x * x / 4
        var k = 1.0
        while term > sum * 1e-17 {
            term *= q / (k * k)
            sum += term
            k += 1
        }
        return sum
    }

    /// A linear-phase low-pass of odd length `2·half + 1`, centred on tap `half`, with cutoff
    /// `cutoff` (fraction of the sampling rate, < 0.5) and DC gain `gain`.
    public static func lowPass(half: Int, cutoff: Double, beta: Double, gain: Double) -> [Double] {
        let n = 2 * half + 1
        let i0b = besselI0(beta)
        var h = [Double](repeating: 0, count: n)
        // Symmetric about `half`: the window's Bessel series (most of the work) once per pair.
        for j in 0...half {
            let t = Double(j - half)
            let r = half == 0 ? 0 : t / Double(half)
            let window = besselI0(beta * (Swift.max(0, 1 - r * r)).squareRoot()) / i0b
            let x = 2 * cutoff * t
            let sinc = t == 0 ? 1 : Double.sin(Double.pi * x) / (Double.pi * x)
            h[j] = 2 * cutoff * sinc * window
            h[n - 1 - j] = h[j]
        }
        let sum = h.reduce(0, +)
        return h.map { $0 * gain / sum }
    }
}
