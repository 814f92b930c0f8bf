import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// What `ResamplerAnalyzer` measured for one resampler and one ratio.
public struct ResamplerQuality: Sendable, Codable {
    /// One test tone's result.
    public struct Tone: Sendable, Codable {
        /// The tone's frequency, Hz.
        public let frequencyHz: Double
        /// Tone power over all other output bins, dB.
        public let snrDB: Double
        /// The tone's gain through the resampler, dB.
        public let gainDB: Double
    }
    /// One leakage measurement.
    public struct Leak: Sendable, Codable {
        /// The input tone's frequency, Hz.
        public let frequencyHz: Double
        /// Output power where no output should be, relative to a full-scale sine, dBFS.
        public let leakageDBFS: Double
    }

    /// The resampler's name (`native-high`, `src-best` …).
    public let resampler: String
    /// Input rate, Hz.
    public let fromHz: Int
    /// Output rate, Hz.
    public let toHz: Int
    /// The resampler's latency, output frames.
    public let latencyFrames: Int
    /// The same latency, ms.
    public let latencyMs: Double
    /// Single full-scale-ish tones (−1 dBFS) up to 0.40 × the lower rate.
    public let tones: [Tone]
    /// The lowest of the tones' SNRs, dB.
    public let worstToneSNRdB: Double
    /// Five tones at once across the passband.
    public let multiToneSNRdB: Double
    /// max − min gain over the tones (dB).
    public let passbandRippleDB: Double
    /// Full-scale tones above the new Nyquist (down) or the images of in-band tones (up): output
    /// power there relative to a full-scale sine.
    public let leakage: [Leak]
    /// The highest leakage, dBFS.
    public let worstLeakageDBFS: Double
    /// Seconds of input audio processed per second, in 20 ms chunks (nil when not measured).
    public let realtimeFactor: Double?
    /// The same on the native resampler's file path, the one `convert` takes: its throughput mode
    /// (the same output), or on large downsampling ratios the half-band cascade, which then has a
    /// row of its own, `NAME (file path)` (nil for other resamplers, or when not measured).
    public var throughputRealtimeFactor: Double? = nil
}

/// Measures a resampler's quality with coherent test tones and FFTW, as `audiopipe analyze
/// resampler` reports it; the tests assert the quality targets from the same numbers.
///
/// Method: every test tone has an integer number of cycles in the analysed window of `N` output
/// frames (taken after the start-up transient), so it falls exactly on one FFT bin and no window
/// function is needed: the power in every other bin is error (noise, distortion, aliasing,
/// imaging). SNR = tone-bin power / all other bins. Gains come from the tone bin's amplitude.
public enum ResamplerAnalyzer {
    /// Output frames analysed per tone (`N`, a power of two).
    public static let analysisLength = 16_384

    /// Measures the resampler `make` builds (one per tone: each starts fresh). `measureSpeed` also
    /// times it in 20 ms chunks; `label` names the row instead of the resampler's own name.
    /// - Parameters:
    ///   - make: builds a fresh resampler.
    ///   - measureSpeed: also time it in 20 ms chunks.
    ///   - label: the row's name (nil: the resampler's `name`).
    /// - Throws: what `make` throws.
    public static func analyze(
        _ make: @escaping () throws(AudioPipelineError) -> any Resampler, measureSpeed: Bool = true,
        label: String? = nil
    ) throws(AudioPipelineError) -> ResamplerQuality {
        let probe = try make()
        let f = probe.format
        let m = Measurement(make: make, format: f, length: analysisLength)
        let tones = try m.tones()
        let leaks = try m.leakage()
        let gains = tones.map(\.gainDB)
        return ResamplerQuality(
            resampler: label ?? probe.name, fromHz: f.inputRate.hz, toHz: f.outputRate.hz, latencyFrames: probe.latency,
            latencyMs: Double(probe.latency) / m.outRate * 1000, tones: tones,
            worstToneSNRdB: tones.map(\.snrDB).min()!,
            multiToneSNRdB: try m.multiToneSNR(), passbandRippleDB: gains.max()! - gains.min()!, leakage: leaks,
            worstLeakageDBFS: leaks.map(\.leakageDBFS).max() ?? -.infinity,
            realtimeFactor: measureSpeed ? try speed(make) : nil)
    }

    /// The measurements of one resampler: test signals through a fresh instance, and their spectra.
    struct Measurement {
        let make: () throws(AudioPipelineError) -> any Resampler
        let inRate: Double, outRate: Double, lower: Double
        let n: Int
        let fft: FFTWSpectrum
        let binHz: Double

        init(make: @escaping () throws(AudioPipelineError) -> any Resampler, format f: ResamplingFormat, length: Int) {
            self.make = make
            inRate = Double(f.inputRate.hz)
            outRate = Double(f.outputRate.hz)
            lower = min(inRate, outRate)
            n = length
            fft = FFTWSpectrum(size: length)
            binHz = outRate / Double(length)
        }

        /// The nearest frequency at or below `hz` on an odd FFT bin of the output.
        func coherent(_ hz: Double) -> Double {
            var k = Int(hz / binHz)
            if k % 2 == 0 { k -= 1 }
            return Double(max(k, 1)) * binHz
        }

        /// Resamples `freqs`/`amps` sines and returns the power spectrum of N steady-state frames.
        func spectrum(_ freqs: [Double], _ amps: [Double]) throws(AudioPipelineError) -> [Double] {
            var r = try make()
            let skip = 2 * r.latency + 64
            let want = skip + n + 64
            let inFrames = Int((Double(want) * inRate / outRate).rounded(.up)) + 4 * r.latency + 64
            let x: [Float] = (0..<inFrames).map { i in
                var s = 0.0
                for (fr, a) in zip(freqs, amps) { s += a * sin(2 * .pi * fr * Double(i) / inRate) }
                return Float(s)
            }
            let y = r.processAll(x)
            precondition(y.count >= skip + n)
            return y.withUnsafeBufferPointer { fft.power(UnsafeBufferPointer(rebasing: $0[skip..<skip + n])) }
        }

        /// Single −1 dBFS tones across the passband, up to 0.40 × the lower rate.
        func tones() throws(AudioPipelineError) -> [ResamplerQuality.Tone] {
            let fractions = [0.005, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.33, 0.36, 0.38, 0.395, 0.40]
            let amplitude = pow(10, -1.0 / 20)
            var tones: [ResamplerQuality.Tone] = []
            for frac in fractions {
                let hz = coherent(frac * lower)
                let p = try spectrum([hz], [amplitude])
                let k = Int((hz / binHz).rounded())
                let noise = p.enumerated().reduce(0.0) { $1.offset == k ? $0 : $0 + $1.element }
                let amp = 2 * p[k].squareRoot() / Double(n)
                let snr = 10 * log10(p[k] / max(noise, 1e-300))
                tones.append(.init(frequencyHz: hz, snrDB: snr, gainDB: 20 * log10(amp / amplitude)))
            }
            return tones
        }

        /// Five tones at once: signal bins against every other bin.
        func multiToneSNR() throws(AudioPipelineError) -> Double {
            let multi = [0.03, 0.11, 0.19, 0.29, 0.39].map { coherent($0 * lower) }
            let pm = try spectrum(multi, Array(repeating: 0.18, count: multi.count))
            let bins = Set(multi.map { Int(($0 / binHz).rounded()) })
            var sig = 0.0, err = 0.0
            for (k, v) in pm.enumerated() { if bins.contains(k) { sig += v } else { err += v } }
            return 10 * log10(sig / max(err, 1e-300))
        }

        /// Full-scale tones that must not come through: between the two Nyquist frequencies when
        /// downsampling (the whole output is leakage; the tone need not be coherent), or the images
        /// of in-band tones above the old Nyquist when upsampling.
        func leakage() throws(AudioPipelineError) -> [ResamplerQuality.Leak] {
            var leaks: [ResamplerQuality.Leak] = []
            let norm = Double(n) * Double(n)
            func dbfs(_ power: Double) -> Double { 10 * log10(max(power, 1e-300) / 0.5) }
            if outRate < inRate {
                for frac in [0.001, 0.02, 0.1, 0.25, 0.5, 0.75, 0.98] {
                    let tone = outRate / 2 + frac * (inRate / 2 - outRate / 2)
                    let p = try spectrum([tone], [1.0])
                    var power = 0.0
                    for (k, v) in p.enumerated() { power += (k == 0 || k == n / 2 ? 1 : 2) * v / norm }
                    leaks.append(.init(frequencyHz: tone, leakageDBFS: dbfs(power)))
                }
            } else {
                let firstImageBin = Int((inRate / 2 / binHz).rounded(.up))
                for frac in [0.05, 0.2, 0.3, 0.4] {
                    let hz = coherent(frac * lower)
                    let p = try spectrum([hz], [1.0])
                    var power = 0.0
                    for k in firstImageBin...(n / 2) { power += (k == n / 2 ? 1 : 2) * p[k] / norm }
                    leaks.append(.init(frequencyHz: hz, leakageDBFS: dbfs(power)))
                }
            }
            return leaks
        }
    }

    /// × realtime over 10 s of a two-tone signal fed in 20 ms chunks, best of three runs.
    public static func speed(_ make: () throws(AudioPipelineError) -> any Resampler) throws(AudioPipelineError)
        -> Double
    {
        var r = try make()
        let f = r.format
        let chunk = f.inputRate.hz / 50
        let seconds = 10
        let x: [Float] = (0..<chunk * f.channels).map { (i: Int) -> Float in
            let t = Double(i)
            return Float(0.4 * sin(t * 0.05) + 0.4 * sin(t * 0.31))
        }
        var out = [Float](repeating: 0, count: r.maxOutputCount(forInput: chunk) * f.channels)
        var best = Double.infinity
        for _ in 0..<3 {
            r.reset()
            let start = DispatchTime.now().uptimeNanoseconds
            x.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    for _ in 0..<(50 * seconds) { _ = r.process(src, into: dst) }
                }
            }
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return Double(seconds) / best
    }
}

extension ResamplerQuality: WorkflowReport {}

extension ResamplerAnalyzer {
    /// `analyze resampler`: measures each resampler for one conversion.
    public static func analyze(
        from: Int, to: Int, resamplers: [ResamplerChoice], measureSpeed: Bool,
        each: (ResamplerQuality) throws(AudioPipelineError) -> Void = { _ in }
    ) throws(AudioPipelineError) -> [ResamplerQuality] {
        // The analysis is 16384-frame windows of tones at the lower rate: under 1000 Hz (what no audio
        // file holds, AudioFileReader.minimumRateHz) a 1 Hz input asked 174 GB of one resampler.
        for (name, rate) in [("--from", from), ("--to", to)] where rate < 1000 || rate > 768_000 {
            throw AudioPipelineError(.invalidConfiguration, "\(name) \(rate): a rate must be in 1000…768000 Hz")
        }
        let format: ResamplingFormat
        do {
            format = try ResamplingFormat(from: SampleRate(from), to: SampleRate(to))
        } catch {
            throw AudioPipelineError(.invalidConfiguration, "--from/--to: \(error.message)")
        }
        guard from != to else {
            throw AudioPipelineError(.invalidConfiguration, "--from and --to are equal: nothing to resample")
        }
        var results: [ResamplerQuality] = []
        for choice in resamplers {
            var q = try analyze(
                { () throws(AudioPipelineError) in try choice.make(format) }, measureSpeed: measureSpeed)
            if measureSpeed && [.nativeHigh, .nativeFast].contains(choice) {
                q.throughputRealtimeFactor = try speed { () throws(AudioPipelineError) in
                    try choice.make(format, mode: .multiStage)
                }
            }
            try each(q)
            results.append(q)
            // The file path's own design where it differs (the half-band cascade): its own row.
            if [.nativeHigh, .nativeFast].contains(choice) && HalfBandCascadeResampler.applies(to: format) {
                var file = try analyze(
                    { () throws(AudioPipelineError) in try choice.make(format, mode: .multiStage) },
                    measureSpeed: measureSpeed, label: "\(choice.rawValue) (file path)")
                file.throughputRealtimeFactor = file.realtimeFactor
                try each(file)
                results.append(file)
            }
        }
        return results
    }
}

extension ResamplerQuality {
    /// The human summary `audiopipe` prints.
    public var text: String {
        var s = String(format: "%@  %d Hz -> %d Hz\n", resampler, fromHz, toHz)
        s += String(format: "  SNR (worst tone <= 0.40 x lower rate)  %7.1f dB\n", worstToneSNRdB)
        s += String(format: "  SNR (five tones)                       %7.1f dB\n", multiToneSNRdB)
        s += String(format: "  passband ripple                        %7.4f dB\n", passbandRippleDB)
        s += String(format: "  leakage (worst)                        %7.1f dBFS\n", worstLeakageDBFS)
        s += String(format: "  latency                                %7.2f ms (%d frames)\n", latencyMs, latencyFrames)
        if let rt = realtimeFactor {
            s += String(format: "  speed                                  %7.0f x realtime\n", rt)
        }
        if let rt = throughputRealtimeFactor {
            s += String(format: "  speed, file path (as convert runs it)  %7.0f x realtime\n", rt)
        }
        return s
    }
}
