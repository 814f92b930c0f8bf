import AudioPipelineAdapters
import AudioPipelineCore
import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineWorkflows

@Suite struct VADReportParts {
    /// Time ticks stay readable at any duration: about a dozen, in steps people count in.
    @Test func timeTicksAreNiceStepsWithClockLabelsBeyondAMinute() {
        let cases: [(span: Double, step: Double, label: String, at: Double)] = [
            (0.3, 0.05, "0.25", 0.25), (5, 0.5, "2.5", 2.5), (10.15, 1, "7", 7), (45, 5, "40", 40),
            (100, 10, "1:30", 90), (600, 60, "9:00", 540), (3647, 600, "0:50:00", 3000),
            (4 * 3600, 1800, "3:30:00", 12_600),
        ]
        for c in cases {
            let step = Ticks.time(c.span, target: 12)
            #expect(step == c.step, "\(c.span) s")
            #expect(c.span / step <= 12 && c.span / step >= 4, "\(c.span) s: \(c.span / step) ticks")
            #expect(Ticks.timeLabel(c.at, step: step, span: c.span) == c.label)
        }
    }

    /// A segment started by the held excess says so (`sustained_enter_db`), with the two scores.
    @Test func theExplanationNamesAHeldExcessStart() throws {
        var decider = try VADDecider(configuration: .init())
        var frames: [VADDecider.Frame] = [], details: [VADDecider.Detail] = []
        var detail = VADDecider.Detail()
        for k in 0..<300 {
            // Noise at −60 dB per band with a fixed ±1 dB pattern; 7 dB more in two bands from 2 s on.
            let flicker = SIMD4<Double>(0.8, 1.25, 1, 0.9) * (k % 2 == 0 ? 1 : 1.1)
            let lift = k >= 200 ? SIMD4<Double>(5, 5, 1, 1) : SIMD4<Double>(repeating: 1)
            frames.append(decider.process(mic: 1e-6 * flicker * lift, detail: &detail))
            details.append(detail)
        }
        let run = VADRun(frames: frames, frameSeconds: 0.01, duration: 3, configuration: .init(), details: details)
        let segments = VADExplainer.explain(run)
        try #require(segments.count == 1, "\(segments)")
        #expect(segments[0].opened.rule.hasPrefix("score less the noise's own"), "\(segments[0].opened.rule)")
        #expect(segments[0].opened.rule.contains("≥ sustained_enter_db 5.5 (a held excess, below enter_db 10)"))
        #expect(segments[0].text.contains("bands at or over enter_db, else the largest"))
    }

    /// The segments and their explanations of `frames` (10 ms, with the reference), by the defaults.
    static func explained(_ frames: EchoBandFrames) throws -> [VADSegmentExplanation] {
        let decided = try frames.decided()
        let seconds = Double(frames.mic.count) / 100
        return VADExplainer.explain(
            VADRun(
                frames: decided.map(\.frame), frameSeconds: 0.01, duration: seconds, configuration: .init(),
                details: decided.map(\.detail)))
    }

    /// A run that reached its frames on a frame whose sound decayed through it (with a reference)
    /// opens a frame later, and the rule says why.
    @Test func theExplanationNamesAFrameThatDecayedThroughItself() throws {
        // A click's attack at the end of frame 400, its decay through 401, and a voice from 402 on:
        // 13 dB over the agent's echo in the two highest bands (a rise under `leadInRiseMax`) and in
        // 150–300 Hz (outside the quarters; standing out under 1 kHz, `voiceUnder1k`).
        var frames = EchoBandFrames(count: 430, quietFrom: 380, seed: 57)
        frames.add(at: 400, excessDb: 13, spread: SIMD4(0, 0, 0, 1))
        frames.add(at: 401, excessDb: 13, spread: SIMD4(0.6, 0.3, 0.1, 0))
        for k in 402..<420 { frames.add(at: k, excessDb: 13) }
        for k in 400..<420 { frames.add(at: k, excessDb: 13, bands: 1...1) }
        let segments = try Self.explained(frames)
        try #require(segments.count == 1, "\(segments)")
        let opened = segments[0].opened
        // Frame 400 is 4.00–4.01 s: the run from 4.00 s, speech at the end of its third frame.
        #expect(opened.runStart == 4.0 && opened.frames == 3 && opened.time == 4.03)
        let named = opened.rule.contains("from its first quarter to its last over noise ⊕ the expected echo")
        #expect(named, "\(opened.rule)")
    }

    /// A run of frames only above 1 kHz over the agent's echo (a word's hiss, 13 dB over it in the
    /// two highest bands) opens at its third frame, and the rule says why; from 600 Hz up, at its
    /// second, without those words.
    @Test func theExplanationNamesASoundOnlyAbove1kHz() throws {
        var high = EchoBandFrames(count: 430, quietFrom: 380, seed: 59)
        var wide = high
        for k in 400..<420 {
            high.add(at: k, excessDb: 13)
            wide.add(at: k, excessDb: 13, bands: 3...7)
        }
        let opened = try #require(try Self.explained(high).first).opened
        #expect(opened.runStart == 4.0 && opened.frames == 3 && opened.time == 4.03, "\(opened)")
        let words = "one frame more: no band under 1 kHz stood 6 dB over noise ⊕ echo"
        #expect(opened.rule.contains(words), "\(opened.rule)")
        let wideOpened = try #require(try Self.explained(wide).first).opened
        #expect(wideOpened.frames == 2 && !wideOpened.rule.contains(words), "\(wideOpened)")
    }

    /// A run that reached its frames on a frame fallen 4 dB under its first, in power over noise ⊕
    /// echo and in level (a thump's second frame, then a voice from frame 402), opens a frame later,
    /// and the rule says why.
    @Test func theExplanationNamesAThumpsFall() throws {
        var frames = EchoBandFrames(count: 430, quietFrom: 380, seed: 65)
        frames.add(at: 400, excessDb: 14, bands: 1...5)
        frames.add(at: 401, excessDb: 13, bands: 0...0)
        frames.add(at: 401, excessDb: 10, bands: 1...1)
        for k in 402..<420 { frames.add(at: k, excessDb: 14, bands: 1...5) }
        let opened = try #require(try Self.explained(frames).first).opened
        #expect(opened.runStart == 4.0 && opened.time == 4.03, "\(opened)")
        let named = opened.rule.contains("lay 4 dB under the run's highest (a thump's fall)")
        #expect(named, "\(opened.rule)")
    }

    /// The echo line of `--explain` and the session report says when the delay in use is in doubt
    /// (its correlation no longer stands out, and the onset guard holds from the agent's onsets).
    @Test func theEchoSummarySaysWhenTheDelayIsInDoubt() throws {
        var d = VADDecider.Detail()
        d.bandCount = 8
        d.echoDelayFrames = 35
        d.echoDelayInDoubt = true
        let doubted = VADEchoSummary(d, stage: .tracked, configuration: VADConfiguration())
        #expect(doubted.text.hasPrefix("echo: delay 350 ms, in doubt (searched 0–500 ms)"), "\(doubted.text)")
        let json = try #require(String(data: try JSONEncoder().encode(doubted), encoding: .utf8))
        #expect(json.contains(#""delayInDoubt":true"#), "\(json)")
        d.echoDelayInDoubt = false
        let found = VADEchoSummary(d, stage: .tracked, configuration: VADConfiguration())
        #expect(found.text.hasPrefix("echo: delay 350 ms (searched 0–500 ms)"), "\(found.text)")
        #expect(!found.delayInDoubt)
    }

    /// The explanation of the knock rules: with a reference, a run that began with a click's attack
    /// (a voice 20 dB over the agent's echo from frame 400) opened at its third frame; without one
    /// (where a sound 30 dB over the noise at once is an attack too, and its second frame, as loud,
    /// holds), a run held back at its third frame by a frame that decayed 2 dB under the run's
    /// highest, and one held back by a frame under its highest that fell 0.8 dB from the one before
    /// (a ringing sound's decay).
    @Test func theExplanationNamesAKnocksAttackAndItsDecay() throws {
        var frames = EchoBandFrames(count: 430, quietFrom: 380, seed: 58)
        for k in 400..<420 { frames.add(at: k, excessDb: 20) }
        let attack = try #require(try Self.explained(frames).first).opened
        #expect(attack.runStart == 4.0 && attack.frames == 3 && attack.time == 4.03)
        #expect(attack.rule.contains("one frame more: the run began with a click's attack"), "\(attack.rule)")
        let falling = SIMD4<Double>(0.4, 0.3, 0.2, 0.1)
        let decay = try #require(try Self.explainedWithoutReference(third: 27.5, spread: falling).first).opened
        #expect(decay.runStart == 3.0 && decay.time == 3.04, "\(decay)")
        let attackNamed = decay.rule.contains("a click's attack (a frame more than 10 dB over the frame before)")
        #expect(attackNamed, "\(decay.rule)")
        #expect(
            decay.rule.contains("fell 2 dB from its first quarter to its last over the noise floor"), "\(decay.rule)")
        let even = SIMD4<Double>(repeating: 0.25)
        let decline = try #require(try Self.explainedWithoutReference(third: 29.2, spread: even).first).opened
        #expect(decline.runStart == 3.0 && decline.time == 3.04, "\(decline)")
        #expect(decline.rule.contains("a run that had only fallen since its highest"), "\(decline.rule)")
    }

    /// Without a reference: noise at −80 dBFS per band; from 3 s a sound 30 dB over it for 0.2 s,
    /// spread evenly over the frame's quarters, but its third frame at `third` dB with its energy
    /// shared among the quarters as `spread`. Explained.
    /// With a reference, a run whose level in the bands it began in only fell since its highest
    /// (nothing under 300 Hz standing out) waits; a frame that rises over it opens speech, and the
    /// rule says the run waited on a ring's decay over the echo.
    @Test func theExplanationNamesARingOverTheEcho() throws {
        var frames = EchoBandFrames(count: 430, quietFrom: 430, seed: 71)
        let sound = [-30.0, -31.5, -32.5] + Array(repeating: -27.0, count: 20)
        for (k, level) in sound.enumerated() { frames.add(at: 400 + k, levelDb: level, bands: 4...7) }
        let segments = try Self.explained(frames)
        let opened = try #require(segments.first { $0.opened.runStart >= 4.0 }, "\(segments)").opened
        #expect(opened.time >= 4.04, "opened before the rise: \(opened)")
        let named = opened.rule.contains("a ringing sound's decay over the echo")
        #expect(named, "\(opened.rule)")
    }

    /// A run that waited on a ring says what stood out: without a reference over the noise floors,
    /// with one its excess over noise ⊕ the expected echo by `ringMarginOverEcho`.
    @Test func theRingWaitSaysWhatStoodOut() throws {
        var detail = VADDecider.Detail()
        detail.ringWaited = true
        let with = VADExplainer.waits(VADConfiguration(), detail, withReference: true).joined()
        #expect(with.contains("2 ms earlier predicted"), "\(with)")
        #expect(with.contains("expected echo standing 6 dB more above 1 kHz than under it"), "\(with)")
        let without = VADExplainer.waits(VADConfiguration(), detail, withReference: false).joined()
        #expect(without.contains("standing out more above 1 kHz than under it") && !without.contains("echo"))
        #expect(VADExplainer.waits(VADConfiguration(), VADDecider.Detail(), withReference: true).isEmpty)
    }

    static func explainedWithoutReference(third: Double, spread: SIMD4<Double>) throws -> [VADSegmentExplanation] {
        var decider = try VADDecider(configuration: .init())
        var detail = VADDecider.Detail()
        var frames: [VADDecider.Frame] = []
        var details: [VADDecider.Detail] = []
        for k in 0..<340 {
            let db = k == 302 ? third : k >= 300 && k < 320 ? 30.0 : -200
            let shares = k == 302 ? spread : SIMD4(repeating: 0.25)
            let bands = SIMD4<Double>(repeating: 1e-8 * (1 + Double.exp10(db / 10)))
            let above300 = 1e-8 * 3 + 3e-8 * Double.exp10(db / 10) * shares * 4
            frames.append(
                decider.process(mic: VADBandFrame(bands: bands, quarters: SIMD4<Float>(above300)), detail: &detail))
            details.append(detail)
        }
        let run = VADRun(frames: frames, frameSeconds: 0.01, duration: 3.4, configuration: .init(), details: details)
        return VADExplainer.explain(run)
    }

    /// The plot envelope by its definition, over the whole signal: column c is the min and max of
    /// samples [c·n/C, c·n/C + max(1, n/C)), scaled by the peak (at least 1e-6).
    static func envelope(_ x: [Float]) -> [(min: Float, max: Float)] {
        let columns = VADCorpus.envelopeColumns, per = max(1, x.count / columns)
        let peak = x.reduce(Float(1e-6)) { max($0, abs($1)) }
        return (0..<columns).map { c in
            let a = c * x.count / columns
            let window = x[a..<min(x.count, a + per)]
            return (min(0, window.min() ?? 0) / peak, max(0, window.max() ?? 0) / peak)
        }
    }

    /// `vad tune` streams a recording without a reference: the same band features and plot envelope
    /// as computed over the whole signal (mono PCM16; 48 kHz stereo float, mixed block by block).
    @Test func aStreamedCorpusItemEqualsTheWholeFileOne() throws {
        for name in ["bargein-mic-16k.wav", "phone-capture-48k-f32-stereo.wav"] {
            let s = try #require(
                try VADCorpus.streamed(path: repositoryRoot + "/samples/" + name, frameMilliseconds: [10, 20]))
            let (mono, rate, _) = try AudioLoader.mono(path: repositoryRoot + "/samples/" + name)
            #expect(s.rate == rate && s.samples == mono.count)
            for ms in [10.0, 20] {
                let whole = VADCorpus.features(mono, nil, rate: rate, frameMilliseconds: ms)
                #expect(s.features[ms]?.mic == whole.mic && s.features[ms]?.frameSeconds == whole.frameSeconds)
            }
            let envelope = Self.envelope(mono)
            #expect(s.envelope.map(\.min) == envelope.map(\.min) && s.envelope.map(\.max) == envelope.map(\.max))
        }
        // A file shorter than the plot's columns (several columns share a sample) too.
        let dir = TempDir()
        let short = (0..<700).map { Float(sin(Double($0) * 0.3)) * 0.5 }
        let w = try AudioFileWriter(
            path: dir.file("s.wav"), type: .wav, encoding: .float32,
            format: StreamFormat(sampleRate: SampleRate(16000), channels: 1))
        try short.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try w.write(p) }
        try w.commit()
        let s = try #require(try VADCorpus.streamed(path: dir.file("s.wav"), frameMilliseconds: [10]))
        #expect(s.envelope.map(\.max) == Self.envelope(short).map(\.max))
    }

    /// `vad detect --explain` streams the file (`VADExplainer.Stream` as the frames pass): the same
    /// decisions and explanations as over the whole signal, for mono PCM16 and stereo float at 48 kHz.
    @Test func aStreamedExplanationEqualsTheWholeFileOne() throws {
        for name in ["bargein-mic-16k.wav", "phone-capture-48k-f32-stereo.wav"] {
            let streamed = try VADRun.streaming(
                path: repositoryRoot + "/samples/" + name, configuration: VADConfiguration(), explain: true)
            let (mono, rate, _) = try AudioLoader.mono(path: repositoryRoot + "/samples/" + name)
            let whole = try VADRun(explaining: mono, rate: rate, reference: nil, configuration: VADConfiguration())
            #expect(streamed.run.frames == whole.frames, "\(name)")
            #expect(streamed.explanations == VADExplainer.explain(whole), "\(name)")
            #expect(streamed.run.duration == whole.duration && streamed.rate == rate)
            #expect(!streamed.explanations.isEmpty, "\(name): segments to explain")
        }
    }

    /// A segment that the last, incomplete frame closes ends with the input, not with that frame.
    @Test func aSegmentClosedByTheLastPartialFrameEndsWithTheInput() throws {
        var rng = TestRNG(seed: 7)
        // Faint noise with a 0.5 s tone: find the frame whose decision ends the tone's segment, then
        // cut the input half-way into that frame.
        var x = (0..<32_000).map { _ in Float.random(in: -1...1, using: &rng) * 0.0005 }
        for i in 8000..<16_000 { x[i] += 0.3 * Float(sin(Double(i) * 2 * .pi * 440 / 16000)) }
        let whole = try VADRun(explaining: x, rate: 16000, reference: nil, configuration: VADConfiguration())
        let end = try #require(VADExplainer.explain(whole).first?.closed.time)
        let cut = Array(x.prefix(Int((end * 16000).rounded()) - 80))
        let run = try VADRun(explaining: cut, rate: 16000, reference: nil, configuration: VADConfiguration())
        let last = try #require(VADExplainer.explain(run).last)
        #expect(!last.closed.reasons.contains("end_of_file"), "\(last.closed)")
        #expect(last.closed.time == run.duration && run.segments().last?.end == run.duration, "\(last.closed)")
    }

    /// `vad detect --reference` (with `--explain` too) and `vad tune` stream both files (the reference
    /// pulled in step, converted to the microphone's rate, padded or cut to its length): the same
    /// decisions, details and warnings as the whole-signal path — for a reference at the same rate,
    /// at 24 kHz, and one 2 s short.
    @Test func aStreamedDetectionWithAReferenceDecidesAsTheWholeFilesDo() throws {
        let dir = TempDir()
        let mic = repositoryRoot + "/samples/bargein-mic-16k.wav",
            ref = repositoryRoot + "/samples/bargein-mic-16k.ref.wav"
        var o = ConvertOptions()
        o.sampleRate = try SampleRate(24000)
        _ = try FileConverter.convert(input: ref, output: dir.file("r24.wav"), options: o) { _ in }
        let (full, fullRate, _) = try AudioLoader.mono(path: ref)
        let short = Array(full.prefix(full.count - 2 * fullRate))
        let w = try AudioFileWriter(
            path: dir.file("short.wav"), type: .wav, encoding: .float32,
            format: StreamFormat(sampleRate: SampleRate(fullRate), channels: 1))
        try short.withUnsafeBufferPointer { (p) throws(AudioPipelineError) in try w.write(p) }
        try w.commit()
        for reference in [ref, dir.file("r24.wav"), dir.file("short.wav")] {
            let streamed = try VADRun.streaming(path: mic, reference: reference, configuration: VADConfiguration())
            let (m, rate, _) = try AudioLoader.mono(path: mic)
            let r = try AudioLoader.reference(path: reference, rate: rate, length: m.count)
            let whole = try VADRun(samples: m, rate: rate, reference: r.samples, configuration: VADConfiguration())
            #expect(streamed.run.frames == whole.frames, "\(reference)")
            #expect(streamed.warnings == r.warnings, "\(reference)")
            // `vad tune`'s item and `vad detect --explain` stream it the same way: equal band
            // features, and equal decisions and explanations.
            let item = try #require(try VADCorpus.streamed(path: mic, reference: reference, frameMilliseconds: [10]))
            let features = VADCorpus.features(m, r.samples, rate: rate, frameMilliseconds: 10)
            #expect(item.features[10]?.mic == features.mic && item.features[10]?.reference == features.reference)
            #expect(item.warnings == r.warnings, "\(reference)")
            let explained = try VADRun.streaming(
                path: mic, reference: reference, configuration: VADConfiguration(), explain: true)
            let wholeExplained = try VADRun(
                explaining: m, rate: rate, reference: r.samples, configuration: VADConfiguration())
            #expect(explained.run.frames == whole.frames && explained.warnings == r.warnings)
            #expect(explained.explanations == VADExplainer.explain(wholeExplained), "\(reference)")
        }
        #expect(
            try VADRun.streaming(path: mic, reference: dir.file("short.wav"), configuration: .init()).warnings.count
                == 1)
    }

    @Test func manifestFieldsMayBeQuotedAndConditionsComeFromItsColumns() throws {
        let text = "\u{FEFF}name,noise,snr,detail\r\na,white,10,\"x, \"\"y\"\"\"\nb,pink,0,plain\n\n"
        let m = try VADManifest(text: text, path: "m.csv")
        #expect(m.rows["a"]?["detail"] == "x, \"y\"" && m.rows["b"]?["snr"] == "0")
        #expect(try m.conditionColumns(nil) == ["noise"])
        #expect(m.condition(of: "a", columns: ["noise"]) == "white")
        #expect(m.condition(of: "b", columns: ["noise", "snr"]) == "noise=pink snr=0")
        #expect(m.condition(of: "c", columns: ["noise"]) == "(not in the manifest)")
        #expect(throws: AudioPipelineError.self) { try m.conditionColumns(["room"]) }
        #expect(throws: AudioPipelineError.self) { try VADManifest(text: "file,noise\nx,y\n", path: "m.csv") }
        #expect(throws: AudioPipelineError.self) { try VADManifest(text: "name,noise\nx,\"y\n", path: "m.csv") }
    }
}
