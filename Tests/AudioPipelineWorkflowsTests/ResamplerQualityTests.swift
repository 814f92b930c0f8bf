import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation
import Testing
import _AudioPipelineTestSupport

/// The quality targets of the native presets, from the FFTW analyser's measurements.
@Suite struct ResamplerQualityTargets {
    static let ratios: [(Int, Int)] = [
        (48000, 16000), (16000, 24000), (24000, 48000), (44100, 16000), (8000, 48000), (48000, 8000),
    ]

    static func measure(_ choice: ResamplerChoice, _ ratio: (Int, Int)) throws -> ResamplerQuality {
        let f = try ResamplingFormat(from: SampleRate(ratio.0), to: SampleRate(ratio.1))
        return try ResamplerAnalyzer.analyze(
            { () throws(AudioPipelineError) in try choice.make(f) }, measureSpeed: false)
    }

    @Test(arguments: ratios)
    func nativeHigh(ratio: (Int, Int)) throws {
        let q = try Self.measure(.nativeHigh, ratio)
        #expect(q.worstToneSNRdB >= 120, "\(q.worstToneSNRdB)")
        #expect(q.multiToneSNRdB >= 120)
        #expect(q.worstLeakageDBFS <= -120, "\(q.worstLeakageDBFS)")
        #expect(q.passbandRippleDB <= 0.01)
        // ≤ 3 ms whenever the lower rate is ≥ 16 kHz; the transition band (10 % of the lower
        // rate) is half as wide at 8 kHz, so the filter and its latency double there.
        #expect(q.latencyMs <= (min(ratio.0, ratio.1) >= 16000 ? 3.0 : 6.0), "\(q.latencyMs) ms")
        #expect(q.tones.allSatisfy { $0.frequencyHz <= 0.4 * Double(min(ratio.0, ratio.1)) })
    }

    @Test(arguments: ratios)
    func nativeFast(ratio: (Int, Int)) throws {
        let q = try Self.measure(.nativeFast, ratio)
        #expect(q.worstToneSNRdB >= 90)
        #expect(q.worstLeakageDBFS <= -90)
        let high = try PolyphaseResampler(
            format: ResamplingFormat(from: SampleRate(ratio.0), to: SampleRate(ratio.1)), preset: .high)
        #expect(q.latencyFrames < high.latency)
    }

    /// The analyser is not blind: it sees linear interpolation's aliasing and SINC_FASTEST's droop.
    @Test func analyserDetectsPoorResamplers() throws {
        let linear = try Self.measure(.srcLinear, (48000, 16000))
        #expect(linear.worstLeakageDBFS > -20)
        let fastest = try Self.measure(.srcFastest, (48000, 16000))
        #expect(fastest.passbandRippleDB > 1)
        let up = try Self.measure(.srcZOH, (16000, 48000))
        #expect(up.worstLeakageDBFS > -40, "zero-order hold leaves images")
    }

    /// Native high against libsamplerate SINC_BEST on real speech low-passed to 0.4 × the lower
    /// rate (sox's sinc filter, so both see only passband content): the difference is ≤ −90 dB
    /// relative to the signal. Both are delay-compensated; the best alignment is searched anyway.
    @Test(arguments: [(48000, 16000), (48000, 24000), (44100, 16000)])
    func agreesWithLibsamplerateOnSpeech(ratio: (Int, Int)) throws {
        try #require(toolExists("sox"))
        let dir = TempDir()
        let speech = dir.file("lp.wav")
        let edge = Int(0.4 * Double(min(ratio.0, ratio.1)))
        let src = repositoryRoot + "/samples/phone-capture-48k-f32-stereo.wav"
        try #require(
            try runTool(
                "/usr/bin/env",
                [
                    "sox", src, "-c", "1", "-r", "\(ratio.0)", "-e", "floating-point", "-b", "32", speech, "sinc", "-a",
                    "150", "-\(edge - 400)", "-t", "400",
                ]
            ).status == 0)
        let (_, x) = try readAllFloats(speech)
        let f = try ResamplingFormat(from: SampleRate(ratio.0), to: SampleRate(ratio.1))
        var native = try ResamplerChoice.nativeHigh.make(f), best = try ResamplerChoice.srcBest.make(f)
        let a = native.processAll(x), b = best.processAll(x)
        try #require(a.count == b.count)
        let margin = 200  // skip the ends, where the two treat the stream edges differently
        var bestDB = Double.infinity
        for shift in -3...3 {
            var err = 0.0, sig = 0.0
            for i in margin..<(a.count - margin) {
                let d = Double(a[i]) - Double(b[i + shift])
                err += d * d
                sig += Double(b[i + shift]) * Double(b[i + shift])
            }
            bestDB = min(bestDB, 10 * log10(err / sig))
        }
        #expect(bestDB <= -90, "\(bestDB) dB")
    }
}
