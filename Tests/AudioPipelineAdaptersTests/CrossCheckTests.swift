import AudioPipelineAdapters
import AudioPipelineCore
import Foundation
import Testing
import _AudioPipelineTestSupport

/// Our Float32→PCM16 conversion against two independent implementations on the same input.
@Suite struct ConversionCrossChecks {
    /// Random floats across and beyond full scale, plus the awkward values.
    static func input() -> [Float] {
        var g = SystemRandomNumberGenerator()
        var xs = (0..<60_000).map { _ in Float.random(in: -1.25...1.25, using: &g) }
        xs += [0, 1, -1, 0.5, -0.5, 32767.0 / 32768, 1.0 / 65536, 3.0 / 65536, -3.0 / 65536, 2, -2]
        return xs
    }

    static func ours(_ xs: [Float]) throws -> [Int16] {
        var c = try Float32ToInt16Converter()
        return c.processAll(xs)
    }

    /// The scaled, saturated value both sides start from (exact: ×32768 is a power of two).
    static func scaled(_ x: Float) -> Double { min(max(Double(x) * 32768, -32768), 32767) }

    /// libsndfile's own float → PCM16 (writing floats into a PCM16 WAV) with clipping on.
    /// Measured: libsndfile 1.2 scales by 32768 and saturates as we do, but rounds toward −∞ in its
    /// clipping path where we round to nearest. Documented tolerance: the two agree wherever the
    /// fraction is below ½, differ by exactly +1 LSB where it is above, and saturate identically.
    @Test func matchesLibsndfileWithClipping() throws {
        let dir = TempDir()
        let path = dir.file("lsf.wav")
        let xs = Self.input()
        let w = try AudioFileWriter(
            path: path, type: .wav, encoding: .pcm16,
            format: try StreamFormat(sampleRate: SampleRate(16000), channels: 1))
        w.setLibsndfileClipping(true)
        try xs.withUnsafeBufferPointer { try w.write($0) }
        try w.commit()
        let theirs = try readAllInt16(path)
        let mine = try Self.ours(xs)
        try #require(theirs.count == mine.count)
        var agreeBelowHalf = 0, oneAboveHalf = 0, bad = 0
        for i in xs.indices {
            let s = Self.scaled(xs[i])
            let frac = s - s.rounded(.down)
            let d = Int(mine[i]) - Int(theirs[i])
            if frac < 0.5 {
                if d == 0 { agreeBelowHalf += 1 } else { bad += 1 }
            } else if frac > 0.5 {
                if d == 1 { oneAboveHalf += 1 } else { bad += 1 }
            } else if d != 0 && d != 1 {
                bad += 1
            }  // exact tie: ours goes to even
            if abs(xs[i]) >= 1 { #expect(d == 0, "saturation of \(xs[i])") }
        }
        #expect(bad == 0)
        #expect(agreeBelowHalf > 20_000 && oneAboveHalf > 20_000)
    }

    /// sox without dither (`-D`) converting the same float WAV to 16 bits. sox rounds halves up
    /// (toward +∞), we round them to even: documented tolerance — identical except at exact ties,
    /// where they differ by 1 LSB; saturation identical.
    @Test func matchesSoxExceptAtExactTies() throws {
        try #require(toolExists("sox"))
        let dir = TempDir()
        let xs = Self.input()
        let src = dir.file("f32.wav"), dst = dir.file("s16.wav")
        let w = try AudioFileWriter(
            path: src, type: .wav, encoding: .float32,
            format: try StreamFormat(sampleRate: SampleRate(16000), channels: 1))
        try xs.withUnsafeBufferPointer { try w.write($0) }
        try w.commit()
        try #require(try run("sox", ["-D", src, "-b", "16", "-e", "signed-integer", dst]) == 0)
        let theirs = try readAllInt16(dst)
        let mine = try Self.ours(xs)
        try #require(theirs.count == mine.count)
        var ties = 0
        for i in xs.indices where mine[i] != theirs[i] {
            let s = Self.scaled(xs[i])
            #expect(s - s.rounded(.down) == 0.5, "\(xs[i]): ours \(mine[i]), sox \(theirs[i])")
            #expect(abs(Int(mine[i]) - Int(theirs[i])) == 1)
            ties += 1
        }
        #expect(ties < xs.count / 100)
    }
}
