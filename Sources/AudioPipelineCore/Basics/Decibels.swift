import RealModule

// Decibels in one place. Powers (mean squares) use 10·log10, amplitudes 20·log10; full scale is
// 0 dB either way (dBFS).

/// The level of a power (mean square, full scale = 1) in dB, floored at −140 dB so silence stays
/// finite (the VAD's band energies and noise floors).
@inline(__always) func db(_ power: Double) -> Double { 10 * Double.log10(max(power, 1e-14)) }

/// The power (mean square) of a level in dB: the inverse of `db`.
@inline(__always) func power(_ db: Double) -> Double { Double.exp10(db / 10) }

/// The level of an amplitude (peak or RMS, full scale = 1) in dBFS: 20·log10(x), −∞ for silence.
@inline(__always) func amplitudeDB(_ linear: Double) -> Double {
    linear > 0 ? 20 * Double.log10(linear) : -Double.infinity
}
