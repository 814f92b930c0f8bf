import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

private let rate = 16_000

/// Deterministic white noise at `dbfs` RMS.
private func noise(_ n: Int, dbfs: Double, seed: UInt64) -> [Float] {
    var rng = TestRNG(seed: seed)
    let a = Float(pow(10, dbfs / 20) * 3.0.squareRoot())
    return (0..<n).map { _ in Float.random(in: -a...a, using: &rng) }
}

/// A voiced-speech-like tone complex (f0 and harmonics) at `dbfs` RMS.
private func voice(_ n: Int, dbfs: Double, f0: Double = 150, phase: Int = 0) -> [Float] {
    var v = [Float](repeating: 0, count: n)
    for k in 0..<n {
        let t = Double(k + phase) / Double(rate)
        var s = 0.0
        for h in 1...8 { s += sin(2 * Double.pi * f0 * Double(h) * t) / Double(h) }
        v[k] = Float(s)
    }
    let rms = (v.reduce(0.0) { $0 + Double($1 * $1) } / Double(n)).squareRoot()
    let g = Float(pow(10, dbfs / 20) / rms)
    return v.map { $0 * g }
}

/// `v` cut into syllables as speech is: 180 ms at its level, then 90 ms 30 dB down (raised-cosine
/// edges of 10 ms) — a voice's level moves; a held tone complex does not, and the steady-noise rule
/// (`steadyNoiseMilliseconds`) ends one held longer than 600 ms.
private func syllables(_ v: [Float]) -> [Float] {
    let on = rate * 18 / 100, period = rate * 27 / 100, edge = rate / 100
    return v.indices.map { k in
        let p = k % period
        // How far the syllable is up: rising over the first edge, held, falling over the last, then off.
        var up: Float = 0
        if p < edge {
            up = Float(p) / Float(edge)
        } else if p < on - edge {
            up = 1
        } else if p < on {
            up = Float(on - p) / Float(edge)
        }
        let shaped = 0.5 - 0.5 * cos(Float.pi * up)
        return v[k] * (0.0316 + (1 - 0.0316) * shaped)
    }
}

/// The defaults without the steady-noise rule: for tests whose voice is a held tone complex (1 s
/// and more) and whose subject is another rule; the steady rule has tests of its own.
private let heldTones: VADConfiguration = {
    var c = VADConfiguration()
    c.steadyNoiseMilliseconds = 0
    return c
}()

private func add(_ a: inout [Float], _ b: [Float], at offset: Int) {
    for k in b.indices where offset + k < a.count { a[offset + k] += b[k] }
}

private let blank = VADDecider.Frame(level: 0, floor: 0, echo: 0, score: 0, speech: false)

/// Runs the detector over `mic` (and `reference`) in blocks of the given sizes, with output room of
/// `room(k)` decisions for the k-th call, until everything is consumed; then finishes.
private func detect(
    _ mic: [Float], reference: [Float]? = nil, _ c: VADConfiguration = .init(), blocks: [Int]? = nil,
    room: (Int) -> Int = { _ in 4096 }
) throws -> [VADDecider.Frame] {
    var vad = try EnergyVAD(sampleRate: rate, configuration: c)
    var frames: [VADDecider.Frame] = []
    var calls = 0
    mic.withUnsafeBufferPointer { m in
        var offset = 0
        for b in blocks ?? [mic.count] {
            var left = b
            while left > 0 {
                var out = [VADDecider.Frame](repeating: blank, count: room(calls))
                calls += 1
                let block = UnsafeBufferPointer(rebasing: m[offset..<offset + left])
                let r = out.withUnsafeMutableBufferPointer { o in
                    if let reference {
                        return reference.withUnsafeBufferPointer {
                            vad.process(
                                block, reference: UnsafeBufferPointer(rebasing: $0[offset..<offset + left]), into: o)
                        }
                    }
                    return vad.process(block, into: o)
                }
                frames += out[0..<r.produced]
                offset += r.consumed
                left -= r.consumed
                precondition(r.consumed > 0 || r.produced > 0, "no progress")
            }
        }
    }
    var out = [VADDecider.Frame](repeating: blank, count: vad.maxOutputCount(forInput: 0))
    let n = out.withUnsafeMutableBufferPointer { vad.finish(into: $0) }
    frames += out[0..<n]
    return frames
}

/// Fraction of frames in [from, to) seconds decided speech (10 ms frames).
private func speechFraction(_ frames: [VADDecider.Frame], _ from: Double, _ to: Double) -> Double {
    let a = Int(from * 100), b = min(frames.count, Int(to * 100))
    return Double(frames[a..<b].filter(\.speech).count) / Double(b - a)
}

@Suite struct EnergyVADTests {
    @Test func detectsSpeechOverNoiseWithHysteresisAndHangover() throws {
        // 2 s of noise at −60 dBFS, 1 s of voice at −30, 2 s of noise.
        var x = noise(5 * rate, dbfs: -60, seed: 1)
        add(&x, voice(rate, dbfs: -30), at: 2 * rate)
        let frames = try detect(x, heldTones)
        #expect(speechFraction(frames, 0.2, 1.99) == 0)
        #expect(speechFraction(frames, 2.05, 3.0) == 1)
        // On within the confirmation (10 ms) + one frame of the start; off within hangover + 2 frames.
        let on = frames.firstIndex(where: \.speech)!
        #expect(on >= 200 && on <= 202)
        let off = frames[on...].firstIndex { !$0.speech }!
        #expect(off >= 300 && off <= 300 + 10 + 2)
        #expect(speechFraction(frames, 3.2, 5.0) == 0)
    }

    @Test func hangoverBridgesShortPausesButNotLongOnes() throws {
        var x = noise(6 * rate, dbfs: -60, seed: 2)
        // Voice 1.0–2.0 s, pause 50 ms, voice 2.05–3.0, pause 400 ms, voice 3.4–4.0.
        add(&x, voice(rate, dbfs: -30), at: rate)
        add(&x, voice(rate * 95 / 100, dbfs: -30), at: rate * 205 / 100)
        add(&x, voice(rate * 6 / 10, dbfs: -30), at: rate * 34 / 10)
        let frames = try detect(x, heldTones)
        #expect(speechFraction(frames, 1.95, 2.1) == 1, "50 ms pause bridged")
        #expect(speechFraction(frames, 3.15, 3.4) == 0, "400 ms pause ends the segment")
        // (From 3.45 s: the voice starts from the noise at once, as a click's attack does, and its
        // first frames wait: `attackWithoutReference`.)
        #expect(speechFraction(frames, 3.45, 4.0) == 1)
    }

    @Test func transientsNeverOpenSpeechButWordsDo() throws {
        // Noise at −60 dBFS; clicks (3 ms bursts, 30 dB over the noise) at 1.0, 1.5, 2.0 s (mid-frame,
        // at a frame's end and at a frame's start); a word 3.0–3.5 s whose first 15 ms are a
        // plosive-like burst.
        var x = noise(4 * rate, dbfs: -60, seed: 5)
        for (k, at) in [1.0, 1.5072, 2.0].enumerated() {
            add(&x, noise(48, dbfs: -30, seed: 10 + UInt64(k)), at: Int(at * Double(rate)))
        }
        add(&x, noise(240, dbfs: -38, seed: 20), at: 3 * rate)
        add(&x, voice(rate / 2 - 240, dbfs: -30), at: 3 * rate + 240)
        let clicked = { (frames: [VADDecider.Frame], at: Double) in
            frames[Int(at * 100)..<Int(at * 100) + 30].filter(\.speech).count
        }
        // Defaults: the onset check (a run must hold two frames, three when its sound began in the
        // first frame's second half, without falling `onset_drop_db` below its highest).
        let frames = try detect(x)
        // Without it, the transient rule ends what a click opened; without both, it holds.
        var ruleOnly = VADConfiguration()
        ruleOnly.onsetDrop = 0
        var off = ruleOnly
        off.transientMilliseconds = 0
        let transientRule = try detect(x, ruleOnly)
        let before = try detect(x, off)
        for at in [1.0, 1.5, 2.0] {
            #expect(clicked(frames, at) == 0, "a click at \(at) s never opens speech")
            #expect(clicked(transientRule, at) <= 2, "the transient rule ends it within two frames")
            #expect(clicked(before, at) >= 10, "without either it holds for the averaging and hangover")
        }
        #expect(speechFraction(frames, 3.05, 3.5) == 1, "a word with a burst onset is found within 50 ms")
        #expect(transientRule[300..<350].map(\.speech) == before[300..<350].map(\.speech))
        // Blocks of any size give the same decisions (the quarters too).
        #expect(try detect(x, blocks: [37, 1000, 3, 160, 64_000 - 1200]).map(\.speech) == frames.map(\.speech))
    }

    /// A voice that lifts every frame only 7 dB over the noise (never `enter_db` 10) starts speech
    /// The onset check's second frame need not reach `enter_db` itself: within `onset_drop_db` (3) of
    /// the run's highest it holds the run (a voice under a louder echo, over the threshold in one of
    /// the echo's dips and just under it in the next); further below, the run ends.
    @Test func theOnsetChecksSecondFrameMayStayJustUnderTheThreshold() throws {
        func decide(_ excesses: [Double]) throws -> [Bool] {
            var d = try VADDecider(configuration: VADConfiguration())
            let floor = 1e-7  // −70 dB per band: levels well over absolute_dbfs once raised
            for _ in 0..<300 { _ = d.process(mic: SIMD4(repeating: floor)) }
            return excesses.map { d.process(mic: SIMD4(repeating: floor * pow(10, $0 / 10))).speech }
        }
        // Each from a frame 2.5 dB over the noise (under the lead-in's 3 dB): 12 dB straight from the
        // noise, its second frame no louder, is a click's attack and holds one frame more.
        #expect(try decide([2.5, 12, 9.5, 9.5]) == [false, false, true, true], "12 dB, then 2.5 dB under it: speech")
        #expect(try decide([2.5, 12, 8, 8]) == [false, false, false, false], "12 dB, then 4 dB under it: no run")
        #expect(try decide([2.5, 9.5, 9.5, 9.5]) == [false, false, false, false], "a run must open at enter_db")
        #expect(try decide([2.5, 12, 12]) == [false, false, true])
        #expect(try decide([12, 12, 12]) == [false, false, true], "a click's attack: one frame more")
    }

    /// by the held excess (`sustained_enter_db`) within the exit test's five frames; a single such
    /// frame, the noise itself, the rule switched off, or a far-end reference do not start it.
    @Test func aHeldExcessStartsSpeechWithoutAReference() throws {
        var rng = TestRNG(seed: 77)
        let noisePower = SIMD4<Double>(repeating: 1e-6)  // −60 dB per band
        func run(
            _ c: VADConfiguration = .init(), reference: Bool = false, lift: (Int) -> Double
        ) throws -> (speech: [Bool], sustained: [Bool]) {
            var decider = try VADDecider(configuration: c)
            var speech: [Bool] = [], sustained: [Bool] = []
            for k in 0..<600 {
                // ±1 dB of flicker per band, and `lift(k)` dB in the two lowest bands.
                let jitter = SIMD4<Double>((0..<4).map { _ in pow(10, Double.random(in: -0.1...0.1, using: &rng)) })
                let gain = SIMD4<Double>(pow(10, lift(k) / 10), pow(10, lift(k) / 10), 1, 1)
                var detail = VADDecider.Detail()
                let f = decider.process(
                    mic: noisePower * jitter * gain, reference: reference ? VADBandAnalyzer.silence : nil,
                    detail: &detail)
                speech.append(f.speech)
                sustained.append(detail.sustainedStart)
            }
            return (speech, sustained)
        }
        let held = { (k: Int) in (400..<500).contains(k) ? 7.0 : 0 }
        let on = try run(lift: held)
        #expect(!on.speech[0..<400].contains(true), "the noise alone starts nothing")
        let start = try #require(on.speech.firstIndex(of: true))
        #expect((400...405).contains(start) && on.sustained[start], "started at frame \(start)")
        #expect(on.speech[start..<500].allSatisfy { $0 }, "and held while the excess lasts")
        var off = VADConfiguration()
        off.sustainedEnterThreshold = 0
        #expect(try !run(off, lift: held).speech.contains(true), "7 dB never reaches enter_db 10")
        let referenced = try run(reference: true, lift: held)
        #expect(!referenced.speech.contains(true) && !referenced.sustained.contains(true), "nor with one")
        #expect(try !run(lift: { $0 == 400 ? 7 : 0 }).speech.contains(true), "one frame is not held")
    }

    /// Without a reference a voice 18 dB under the talker does not start speech (the onset gate,
    /// 17 dB), though it would hold speech (the talker gate, 20 dB); with the onset gate at the
    /// talker gate's 20 dB, or with a far-end reference, it starts.
    @Test func theTalkerGateStartsTighterThanItHolds() throws {
        var x = noise(5 * rate, dbfs: -70, seed: 50)
        add(&x, voice(rate, dbfs: -25), at: rate)
        add(&x, voice(rate, dbfs: -43, f0: 190), at: 3 * rate)
        let gated = try detect(x, heldTones)
        var same = heldTones
        same.talkerOnsetGate = 20
        let open = try detect(x, same)
        #expect(speechFraction(gated, 1.05, 2.0) == 1 && speechFraction(open, 1.05, 2.0) == 1)
        #expect(speechFraction(gated, 3.0, 4.2) == 0, "\(speechFraction(gated, 3.0, 4.2))")
        #expect(speechFraction(open, 3.05, 4.0) > 0.9, "\(speechFraction(open, 3.05, 4.0))")
        // With a reference (here a silent one) the talker gate alone applies.
        let referenced = try detect(x, reference: [Float](repeating: 0, count: x.count), heldTones)
        #expect(speechFraction(referenced, 3.05, 4.0) > 0.9, "\(speechFraction(referenced, 3.05, 4.0))")
    }

    @Test func aNoiseThatSwitchesOnIsSpeechOnlyUntilFoundSteady() throws {
        // Noise at −60 dBFS for 3 s, then −35 dBFS for 9 s; a voice 15 dB above the new noise at
        // 10–11 s, in syllables.
        var x = noise(3 * rate, dbfs: -60, seed: 3) + noise(9 * rate, dbfs: -35, seed: 4)
        add(&x, syllables(voice(rate, dbfs: -20)), at: 10 * rate)
        var detail = VADDecider.Detail()
        var decider = try VADDecider(configuration: .init())
        var analyzer = VADBandAnalyzer(sampleRate: rate, frameLength: 160)
        var frames: [VADDecider.Frame] = []
        var steadyAt: [Int] = []
        x.withUnsafeBufferPointer {
            analyzer.process($0) { band in
                frames.append(decider.process(mic: band, detail: &detail))
                if detail.steadyNoise { steadyAt.append(frames.count - 1) }
            }
        }
        // The step opens speech; 600 ms later every band has held its level, and it ends there.
        #expect(speechFraction(frames, 3.05, 3.6) == 1)
        #expect(steadyAt.count == 1 && steadyAt[0] >= 360 && steadyAt[0] <= 366, "\(steadyAt)")
        #expect(speechFraction(frames, 3.7, 9.99) == 0)
        #expect(speechFraction(frames, 10.05, 11.0) > 0.95, "\(speechFraction(frames, 10.05, 11.0))")
        // The floor lifted to the new noise: within 3 dB of its band-limited level from then on.
        let quiet = frames[400..<990]
        let gap = quiet.map { $0.level - $0.floor }.reduce(0, +) / Double(quiet.count)
        #expect(abs(gap) < 3)
        // Without the rule the step reads as speech until the louder noise fills (1 − quantile) of
        // the floor window (0.8 × 5 s after the step, at 7 s).
        let off = try detect(x, heldTones)
        #expect(speechFraction(off, 3.1, 6.5) == 1)
        #expect(speechFraction(off, 7.3, 9.99) == 0)
    }

    @Test func aVoiceIsNeverTakenForASteadyNoise() throws {
        // 3 s of a voice in syllables over noise 30 dB under it; then a noise step 25 dB up with a
        // voice that starts with it and holds 2 s (its bands move: the step's floors are not lifted).
        var x = noise(10 * rate, dbfs: -60, seed: 60)
        add(&x, syllables(voice(3 * rate, dbfs: -30, f0: 130)), at: rate)
        add(&x, noise(4 * rate, dbfs: -35, seed: 61), at: 6 * rate)
        add(&x, syllables(voice(2 * rate, dbfs: -15, f0: 180)), at: 6 * rate)
        let frames = try detect(x)
        #expect(speechFraction(frames, 1.05, 4.0) == 1, "\(speechFraction(frames, 1.05, 4.0))")
        #expect(speechFraction(frames, 6.05, 8.0) == 1, "\(speechFraction(frames, 6.05, 8.0))")
    }

    @Test func quietAndLoudTalkersNeedNoTuning() throws {
        for (voiceLevel, noiseLevel) in [(-45.0, -70.0), (-10.0, -45.0)] {
            var x = noise(4 * rate, dbfs: noiseLevel, seed: 5)
            add(&x, voice(rate, dbfs: voiceLevel), at: 2 * rate)
            let frames = try detect(x, heldTones)
            #expect(speechFraction(frames, 0.3, 1.99) == 0, "talker at \(voiceLevel)")
            #expect(speechFraction(frames, 2.05, 3.0) == 1, "talker at \(voiceLevel)")
        }
    }

    @Test func referenceSuppressesTheEchoAndKeepsDoubleTalk() throws {
        // The agent (reference) talks 0–8 s with pauses; its echo reaches the mic 60 ms later through
        // a small loudspeaker (two one-pole high-passes at 400 Hz), 6 dB down. The user talks 5–6.5 s
        // as loud as the echo (double talk).
        let n = 8 * rate
        var agent = [Float](repeating: 0, count: n)
        for k in 0..<8 where k % 3 != 2 { add(&agent, voice(rate, dbfs: -20, f0: 210, phase: k * 997), at: k * rate) }
        let a = Float(exp(-2 * Double.pi * 400 / Double(rate)))
        var echo = agent
        for _ in 0..<2 {
            var prevIn: Float = 0, prevOut: Float = 0
            for k in echo.indices {
                let y = a * (prevOut + echo[k] - prevIn)
                prevIn = echo[k]; prevOut = y; echo[k] = y
            }
        }
        var mic = noise(n, dbfs: -65, seed: 6)
        let delay = rate * 60 / 1000
        for k in 0..<(n - delay) { mic[k + delay] += echo[k] * 0.5 }
        var user = [Float](repeating: 0, count: n)
        add(&user, voice(rate * 3 / 2, dbfs: -28, f0: 110), at: 5 * rate)
        for k in 0..<n { mic[k] += user[k] }
        let blind = try detect(mic, heldTones)
        let aware = try detect(mic, reference: agent, heldTones)
        // Without the reference the echo is speech; with it, the echo-only stretches are not.
        #expect(speechFraction(blind, 3.0, 4.9) > 0.5)
        #expect(speechFraction(aware, 3.0, 4.9) < 0.05)
        #expect(speechFraction(aware, 7.0, 8.0) < 0.05)
        // The user is found while the agent talks.
        #expect(speechFraction(aware, 5.1, 6.5) > 0.7, "\(speechFraction(aware, 5.1, 6.5))")
    }

    /// The echo margin follows the echo model's error: a fixed linear echo path earns the minimum
    /// margin in the bands the echo fills, an echo whose gain wanders by ±8 dB every 10 ms keeps the
    /// full one; and a user talking over a linear echo is found more with the learnt margin than
    /// with a fixed 6 dB.
    @Test func echoMarginFollowsTheEchoModelsError() throws {
        let n = 8 * rate
        // A voice whose level moves as speech does (a new level, −12…0 dB, every 40 ms), so the echo
        // model finds the delay and its gain (tracked) learns from the direct path.
        var envelopeRNG = TestRNG(seed: 42)
        var level: Float = 1
        let agent = voice(n, dbfs: -20, f0: 210).enumerated().map { k, v -> Float in
            if k % 640 == 0 { level = Float(pow(10, Double.random(in: -12...0, using: &envelopeRNG) / 20)) }
            return v * level
        }
        func margins(_ mic: [Float], _ c: VADConfiguration = heldTones) throws -> (SIMD4<Double>, [VADDecider.Frame]) {
            var decider = try VADDecider(configuration: c)
            var m = VADBandAnalyzer(sampleRate: rate, frameLength: 160), r = m
            var bands: [SIMD4<Double>] = [], refBands: [SIMD4<Double>] = []
            mic.withUnsafeBufferPointer { m.process($0) { bands.append($0.bands.lowHalf) } }
            agent.withUnsafeBufferPointer { r.process($0) { refBands.append($0.bands.lowHalf) } }
            var detail = VADDecider.Detail()
            var frames: [VADDecider.Frame] = []
            for k in bands.indices {
                frames.append(decider.process(mic: bands[k], reference: refBands[k], detail: &detail))
            }
            return (detail.echoMargins.lowHalf, frames)
        }
        let delay = rate * 40 / 1000
        var linear = noise(n, dbfs: -70, seed: 40), wandering = linear
        var rng = TestRNG(seed: 41)
        var gain: Float = 0.5
        for k in 0..<(n - delay) {
            if k % 160 == 0 { gain = 0.5 * Float(pow(10, Double.random(in: -8...8, using: &rng) / 20)) }
            linear[k + delay] += 0.5 * agent[k]
            wandering[k + delay] += gain * agent[k]
        }
        let (fitted, _) = try margins(linear)
        let (loose, _) = try margins(wandering)
        for b in 0..<4 {
            #expect(fitted[b] >= 3 && fitted[b] <= 6 && loose[b] >= 3 && loose[b] <= 6)
        }
        #expect(fitted[1] < 4 && fitted[2] < 4, "\(fitted)")
        #expect(loose[1] >= 5 && loose[2] >= 5, "\(loose)")
        // A user over the linear echo, 5–7 s, at levels from 0 to 12 dB above it (−26 dBFS).
        var fixed = heldTones
        fixed.echoMarginMinimum = 6
        var gained = 0
        for level in stride(from: -26.0, through: -14, by: 3) {
            var user = linear
            add(&user, voice(2 * rate, dbfs: level, f0: 120), at: 5 * rate)
            let learnt = try margins(user).1, held = try margins(user, fixed).1
            let found = { (f: [VADDecider.Frame]) in f[510..<700].filter(\.speech).count }
            #expect(found(learnt) >= found(held), "user at \(level) dBFS")
            gained += found(learnt) - found(held)
            #expect(learnt[100..<490].filter(\.speech).isEmpty, "no false alarm on the echo alone")
        }
        #expect(gained > 0)
    }

    @Test func decisionsDoNotDependOnBlockSizes() throws {
        var x = noise(4 * rate, dbfs: -55, seed: 7)
        add(&x, voice(rate, dbfs: -25), at: rate)
        let ref = voice(4 * rate, dbfs: -30, f0: 180)
        let whole = try detect(x, reference: ref)
        var rng = TestRNG(seed: 8)
        let blocks = randomBlocks(total: x.count, maxBlock: 700, rng: &rng)
        // Random output room too, from 1 decision up: the stage consumes less when it is full.
        var roomRNG = TestRNG(seed: 9)
        let frames = try detect(
            x, reference: ref, blocks: blocks, room: { _ in Int.random(in: 1...3, using: &roomRNG) })
        #expect(frames.count == whole.count)
        #expect(firstDifference(frames, whole) == nil)
        // A 4 s stream at 10 ms frames: 400 decisions; a trailing partial frame gets one from finish.
        #expect(whole.count == 400)
        #expect(try detect(Array(x[0..<(x.count - 37)]), reference: Array(ref[0..<(ref.count - 37)])).count == 400)
    }

    /// With a reference, the detector's bands are the steep ones, for the microphone and the
    /// reference alike: its decisions are the decider's over `VADBandPairAnalyzer`'s bands (and not
    /// over the one-pole bands). A block without a reference in such a stream counts as one of
    /// silence: the same decisions as zeros passed.
    @Test func withAReferenceTheBandsAreTheSteepOnes() throws {
        let agent = voice(4 * rate, dbfs: -24, f0: 190)
        var mic = noise(4 * rate, dbfs: -60, seed: 5)
        for k in mic.indices where k >= 800 { mic[k] += 0.3 * agent[k - 800] }
        add(&mic, voice(rate / 2, dbfs: -22, f0: 120), at: 3 * rate)
        var d = try VADDecider(configuration: .init())
        var pair = VADBandPairAnalyzer(sampleRate: rate, frameLength: 160)
        var expected: [VADDecider.Frame] = []
        mic.withUnsafeBufferPointer { m in
            agent.withUnsafeBufferPointer { a in
                pair.process(mic: m, reference: a) { expected.append(d.process(mic: $0, reference: $1)) }
            }
        }
        func onePole() throws -> [VADDecider.Frame] {
            var m = VADBandAnalyzer(sampleRate: rate, frameLength: 160)
            var r = m
            var bands: [VADBandFrame] = [], far: [SIMD8<Double>] = []
            mic.withUnsafeBufferPointer { m.process($0) { bands.append($0) } }
            agent.withUnsafeBufferPointer { r.process($0) { far.append($0.bands) } }
            var d = try VADDecider(configuration: .init())
            return bands.indices.map { d.process(mic: bands[$0], reference: far[$0]) }
        }
        var rng = TestRNG(seed: 77)
        let got = try detect(mic, reference: agent, blocks: randomBlocks(total: mic.count, maxBlock: 700, rng: &rng))
        #expect(firstDifference(got, expected) == nil)
        #expect(got != (try onePole()))
        #expect(got[300..<350].contains { $0.speech })

        // The last second without a reference, against zeros passed for it.
        var vad = try EnergyVAD(sampleRate: rate, configuration: .init())
        var zeroed = agent
        for k in (3 * rate)..<zeroed.count { zeroed[k] = 0 }
        let withZeros = try detect(mic, reference: zeroed, blocks: [3 * rate, rate])
        var frames: [VADDecider.Frame] = []
        var out = [VADDecider.Frame](repeating: blank, count: 400)
        mic.withUnsafeBufferPointer { m in
            agent.withUnsafeBufferPointer { a in
                out.withUnsafeMutableBufferPointer { o in
                    let first = vad.process(
                        UnsafeBufferPointer(rebasing: m[0..<(3 * rate)]),
                        reference: UnsafeBufferPointer(rebasing: a[0..<(3 * rate)]), into: o)
                    frames += o[0..<first.produced]
                    let rest = vad.process(UnsafeBufferPointer(rebasing: m[(3 * rate)...]), into: o)
                    frames += o[0..<rest.produced]
                }
            }
        }
        #expect(firstDifference(frames, withZeros) == nil)
    }

    /// With a reference, what the noise alone scores is learnt apart where an echo is expected and
    /// where none is: scored against the echo and its margin, frames score lower than the noise does
    /// alone, and one median over both left the noise's score at 0 — a user's speech that ended in
    /// an agent's pause then held on the noise's flicker, and the agent's next words were taken for
    /// a barge-in (generated rooms, seed 7).
    @Test func speechEndsInTheAgentsPauseOverNoise() throws {
        var agent = [Float](repeating: 0, count: 7 * rate)
        let words = voice(2 * rate, dbfs: -22, f0: 200)
        for k in words.indices { agent[rate + k] = words[k] }
        // The agent talks from 1 to 3 s (its echo 26 dB down); a quiet user (the noise within the
        // talker gate's 20 dB of him and of the echo) in its pause, 3.1 to 3.6 s; then noise alone.
        var mic = noise(7 * rate, dbfs: -55, seed: 9)
        for k in mic.indices where k >= 1600 { mic[k] += 0.05 * agent[k - 1600] }
        add(&mic, voice(rate / 2, dbfs: -38, f0: 120), at: rate * 31 / 10)
        let frames = try detect(mic, reference: agent)
        #expect(speechFraction(frames, 3.2, 3.6) > 0.8)
        #expect(speechFraction(frames, 4.0, 7) == 0)
    }

    @Test func detailExplainsTheSameDecisions() throws {
        // The detail path decides exactly as the plain one, with and without a reference, and its
        // parts add up: the score is the mean of the two largest band excesses, each excess is the
        // level over floor (⊕ echo), and speech starts only after `confirmFrames` passed enter tests.
        // A voice at 1–2 s and, with the reference, at 3–4 s: the first comes while the echo model
        // still expects the worst plausible echo (no echo has had time to arrive and teach it).
        var x = noise(5 * rate, dbfs: -55, seed: 31)
        add(&x, voice(rate, dbfs: -25), at: rate)
        add(&x, voice(rate, dbfs: -25), at: 3 * rate)
        let ref = voice(5 * rate, dbfs: -30, f0: 180)
        for reference in [nil, ref] {
            var c = VADConfiguration()
            c.minimumSpeechMilliseconds = 30
            var plain = try VADDecider(configuration: c), explained = try VADDecider(configuration: c)
            var mic = VADBandAnalyzer(sampleRate: rate, frameLength: 160)
            var far = VADBandAnalyzer(sampleRate: rate, frameLength: 160)
            var bands: [SIMD4<Double>] = [], refBands: [SIMD4<Double>] = []
            x.withUnsafeBufferPointer { mic.process($0) { bands.append($0.bands.lowHalf) } }
            ref.withUnsafeBufferPointer { far.process($0) { refBands.append($0.bands.lowHalf) } }
            var detail = VADDecider.Detail()
            var passed = 0, onsets = 0
            for (k, b) in bands.enumerated() {
                let r = reference == nil ? nil : refBands[k]
                let a = plain.process(mic: b, reference: r)
                let wasSpeaking = explained.speaking
                let e = explained.process(mic: b, reference: r, detail: &detail)
                #expect(a == e, "frame \(k)")
                let sorted = (0..<4).map { detail.excess[$0] }.sorted(by: >)
                #expect(abs((sorted[0] + sorted[1]) / 2 - e.score) < 1e-9)
                if reference == nil {
                    for i in 0..<4 { #expect(abs(detail.bands[i] - detail.floors[i] - detail.excess[i]) < 1e-9) }
                }
                #expect(detail.enterTest == (e.score >= c.enterThreshold && detail.loud && detail.dominant))
                passed = detail.enterTest ? passed + 1 : 0
                if !wasSpeaking && e.speech {
                    onsets += 1
                    // The onset check's frames (one more after a click's attack or for a run only
                    // above 1 kHz), less a lead-in that counted without passing.
                    let most = c.onsetFrames + 1 + (detail.attackWaited || detail.highOnlyWaited ? 1 : 0)
                    #expect(detail.runFrames >= c.onsetFrames && detail.runFrames <= most)
                    #expect(passed >= detail.runFrames - (detail.leadIn ? 1 : 0))
                }
            }
            #expect(reference == nil ? onsets == 2 : onsets >= 1)
        }
        #expect(VADDecider.Detail.bandNames(count: 4) == ["< 300 Hz", "300–1000 Hz", "1000–3000 Hz", "> 3000 Hz"])
        #expect(
            VADDecider.Detail.bandNames(count: 8) == [
                "< 150 Hz", "150–300 Hz", "300–600 Hz", "600–1000 Hz", "1000–1800 Hz", "1800–3000 Hz", "3000–5000 Hz",
                "> 5000 Hz",
            ])
    }

    @Test func stageContract() throws {
        var vad = try EnergyVAD(sampleRate: rate, configuration: .init())
        #expect(vad.latency == 2 && vad.frameLength == 160)
        #expect(
            vad.maxOutputCount(forInput: 159) == 0 && vad.maxOutputCount(forInput: 160) == 1
                && vad.maxOutputCount(forInput: 0) == 1)
        var out = [VADDecider.Frame](repeating: blank, count: 4)
        let x = [Float](repeating: 0.01, count: 500)
        let r = x.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { vad.process(i, into: $0) } }
        #expect(r.consumed == 500 && r.produced == 3)
        #expect(vad.maxOutputCount(forInput: 140) == 1)
        #expect(out.withUnsafeMutableBufferPointer { vad.finish(into: $0) } == 1)
        #expect(out.withUnsafeMutableBufferPointer { vad.finish(into: $0) } == 0)
        // Output full: consumes only up to the end of the frame it could decide.
        vad.reset()
        let one = x.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { vad.process(i, into: UnsafeMutableBufferPointer(rebasing: $0[0..<1])) }
        }
        #expect(one.consumed == 160 && one.produced == 1)
    }

    @Test func recoversFromNonFiniteSamples() throws {
        // A corrupt float file: NaN and infinity inside noise, then a talker. No crash (a NaN level
        // used to trap in the noise-floor histogram), and the filters start clean on the next frame.
        var x = noise(4 * rate, dbfs: -60, seed: 21)
        x[rate / 2] = .nan
        x[rate / 2 + 7] = .infinity
        x[rate] = -.infinity
        add(&x, voice(rate, dbfs: -30), at: 2 * rate)
        let frames = try detect(x)
        #expect(frames.count == 400)
        #expect(frames[52..<100].allSatisfy { $0.level.isFinite })
        #expect(speechFraction(frames, 2.1, 2.9) > 0.95)
        #expect(speechFraction(frames, 3.3, 4.0) == 0)
    }

    @Test(arguments: [16_000, 44_100, 8_000])
    func bandAnalysisDoesNotDependOnBlockSizes(sampleRate: Int) {
        // 44.1 kHz: 441-sample frames (odd), where the last sample of each frame goes alone.
        let x = noise(sampleRate, dbfs: -30, seed: 11)
        func run(_ blocks: [Int]) -> [VADBandFrame] {
            var a = VADBandAnalyzer(sampleRate: sampleRate, frameLength: sampleRate / 100)
            var out: [VADBandFrame] = []
            var offset = 0
            x.withUnsafeBufferPointer { p in
                for b in blocks {
                    a.process(UnsafeBufferPointer(rebasing: p[offset..<offset + b])) { out.append($0) }
                    offset += b
                }
            }
            return out
        }
        let whole = run([x.count])
        var rng = TestRNG(seed: 12)
        #expect(whole.count == 100)
        #expect(firstDifference(run(randomBlocks(total: x.count, maxBlock: 97, rng: &rng)), whole) == nil)
        #expect(firstDifference(run([Int](repeating: 1, count: x.count)), whole) == nil)
    }

    /// The four-segment SIMD computation against the cascade run sample by sample in Double (worst
    /// measured: 7e-6 relative, float rounding; a wrong hand-off gives 0.02 and more): a loud
    /// low tone that stops mid-frame (so segments start with large filter states that the hand-off
    /// must carry), then quiet noise, ending in a partial frame.
    @Test(arguments: [
        (4_000, 10.0), (8_000, 10.0), (16_000, 20.0), (44_100, 10.0), (48_000, 30.0), (16_000, 30.0), (384_000, 30.0),
    ])
    func segmentedBandAnalysisEqualsTheSequentialCascade(sampleRate: Int, frameMilliseconds: Double) {
        let frameLength = Int(Double(sampleRate) * frameMilliseconds / 1000)
        var x = (0..<sampleRate / 3).map { Float(0.5 * sin(2 * Double.pi * 90 * Double($0) / Double(sampleRate))) }
        var rng = TestRNG(seed: 21)
        x += (0..<(sampleRate / 2 + frameLength / 3)).map { _ in Float.random(in: -0.001...0.001, using: &rng) }
        var analyzer = VADBandAnalyzer(sampleRate: sampleRate, frameLength: frameLength)
        var got: [VADBandFrame] = []
        x.withUnsafeBufferPointer { analyzer.process($0) { got.append($0) } }
        analyzer.finish { got.append($0) }

        // Reference: the cascade in Double, one sample at a time.
        let fs = Double(sampleRate)
        let r = exp(-2 * Double.pi * 80 / fs)
        let a = VADBandAnalyzer.splitsHz.map { 1 - exp(-2 * Double.pi * $0 / fs) }
        var (xPrev, h, s0, s1, s2) = (0.0, 0.0, 0.0, 0.0, 0.0)
        var expected: [SIMD4<Double>] = []
        // The quarters: the power above 300 Hz (bands 1–3) per quarter of each frame, the samples
        // past four whole quarters (a frame length not divisible by 4) in the last.
        var expectedQuarters: [SIMD4<Double>] = []
        var quarters = SIMD4<Double>()
        var sums = SIMD4<Double>(), inFrame = 0
        func closeFrame() {
            let q = frameLength / 4
            let counts = SIMD4<Double>(Double(q), Double(q), Double(q), Double(max(1, inFrame - 3 * q)))
            expected.append(sums / Double(inFrame))
            expectedQuarters.append(quarters / counts)
            sums = .zero
            quarters = .zero
            inFrame = 0
        }
        for v in x.map(Double.init) {
            h = r * (h + v - xPrev)
            xPrev = v
            s0 += a[0] * (h - s0)
            s1 += a[1] * (h - s0 - s1)
            s2 += a[2] * (h - s0 - s1 - s2)
            let bands = SIMD4(s0, s1, s2, h - s0 - s1 - s2)
            sums += bands * bands
            let q = frameLength / 4
            quarters[min(3, inFrame / max(1, q))] += bands[1] * bands[1] + bands[2] * bands[2] + bands[3] * bands[3]
            inFrame += 1
            if inFrame == frameLength { closeFrame() }
        }
        if inFrame > 0 { closeFrame() }  // its quarters are of its own length: not compared below

        #expect(got.count == expected.count)
        var worst = 0.0
        for (g, e) in zip(got, expected) {
            for b in 0..<4 { worst = max(worst, abs(g.bands[b] - e[b]) / (e[b] + 1e-12)) }
        }
        #expect(worst < 1e-4, "largest relative error of a band power: \(worst)")
        var worstQuarter = 0.0
        for (g, e) in zip(got.dropLast(), expectedQuarters.dropLast()) {
            for k in 0..<4 { worstQuarter = max(worstQuarter, abs(Double(g.quarters[k]) - e[k]) / (e[k] + 1e-12)) }
        }
        #expect(worstQuarter < 1e-4, "largest relative error of a quarter's power: \(worstQuarter)")
        // The quiet part is ~75 dB below the tone: a hand-off that dropped the tone's filter state
        // or mis-carried it would show there.
        #expect(expected.last![0] < 1e-6 && expected[2][0] > 1e-2)
    }

    /// In a stream's first half second the noise floors hold too few frames to be trusted (a low
    /// quantile of a few noisy frames sits under where it settles): starting speech needs
    /// `warmUpMargin` more there; the same rise once the floors are learnt starts it.
    @Test func aStreamsFirstHalfSecondNeedsMoreToStartSpeech() throws {
        func starts(at first: Int, excess: Double) throws -> Bool {
            var d = try VADDecider(configuration: VADConfiguration())
            let floor = 1e-7  // −70 dB per band
            var speech = false
            for k in 0..<(first + 3) {
                let lift = k >= first ? pow(10, excess / 10) : 1
                speech = d.process(mic: SIMD4(repeating: floor * lift)).speech || speech
            }
            return speech
        }
        #expect(VADDecider.warmUpSeconds == 0.5 && VADDecider.warmUpMargin == 3)
        #expect(try !starts(at: 20, excess: 11), "11 dB at 0.2 s: under enter_db 10 + 3")
        #expect(try starts(at: 20, excess: 14), "14 dB at 0.2 s starts speech")
        #expect(try starts(at: 300, excess: 11), "11 dB at 3 s starts speech")
    }

    /// With a far-end reference a floor with no frame yet is the frame itself where no echo is
    /// expected, as without one: it was −100 dB, and steady noise read as speech at the start.
    @Test func withAReferenceAStreamsFirstFramesOfNoiseAreNoSpeech() throws {
        var d = try VADDecider(configuration: VADConfiguration())
        var rng = TestRNG(seed: 5)
        var speech: [Bool] = []
        for _ in 0..<100 {
            let jitter = SIMD4<Double>((0..<4).map { _ in pow(10, Double.random(in: -0.1...0.1, using: &rng)) })
            speech.append(d.process(mic: SIMD4(repeating: 1e-6) * jitter, reference: VADBandAnalyzer.silence).speech)
        }
        #expect(!speech.contains(true))
    }

    /// With a reference, a room's steady noise from the stream's first sample is never speech, in
    /// the first frames either: there a band's floor holds a few frames, and in the lowest bands
    /// (a 10 ms frame under 150 Hz holds about three degrees of freedom) their least lay up to
    /// 10 dB under the noise — the next frames opened speech, a barge-in on the agent's first words
    /// (`VADDecider.floorFramesToTrust`, `settlingFrames`: without either, 5 of these 531 seeds
    /// opened speech; without `settlingFrames` alone, one).
    @Test func aNoiseFromTheFirstSampleIsNotSpeechWithAReference() throws {
        var opened: [UInt64] = []
        for seed in UInt64(300)...830 {
            let mic = noise(rate / 4, dbfs: -52, seed: seed)
            let frames = try detect(mic, reference: [Float](repeating: 0, count: mic.count))
            if frames.contains(where: \.speech) { opened.append(seed) }
        }
        #expect(opened.isEmpty, "speech in the noise of seeds \(opened)")
    }

    @Test func silenceAndAllNoiseGiveNoSpeech() throws {
        #expect(try detect([Float](repeating: 0, count: 3 * rate)).allSatisfy { !$0.speech })
        #expect(try detect(noise(5 * rate, dbfs: -20, seed: 9)).dropFirst(30).allSatisfy { !$0.speech })
    }

    @Test func configurationJSONRoundTripsAndRejectsUnknownKeys() throws {
        var c = VADConfiguration()
        c.enterThreshold = 7.5
        c.hangoverMilliseconds = 250
        // (Codable since the configuration stopped hand-writing its JSON; validation stays `validate()`.)
        func read(_ text: String) throws -> VADConfiguration {
            let c = try JSONDecoder().decode(VADConfiguration.self, from: Data(text.utf8))
            try c.validate()
            return c
        }
        let back = try read(String(decoding: try JSONEncoder().encode(c), as: UTF8.self))
        #expect(back == c)
        #expect(throws: DecodingError.self) { try read(#"{"enter_dB": 3}"#) }
        #expect(throws: AudioPipelineError.self) { try read(#"{"exit_db": 30}"#) }
        #expect(throws: AudioPipelineError.self) { try read(#"{"frame_ms": 15}"#) }
    }

    @Test func runningQuantileMatchesASortedWindow() {
        var rng = TestRNG(seed: 10)
        var q = RunningQuantile(window: 50, quantile: 0.2)
        var window: [Double] = []
        for k in 0..<2000 {
            let v = Double.random(in: -90...(-10), using: &rng) + (k > 1000 ? 20 : 0)
            q.add(v)
            window.append(v)
            if window.count > 50 { window.removeFirst() }
            let sorted = window.map { Double(RunningQuantile.bin($0)) }.sorted()
            // The smallest bin whose cumulative count exceeds 20 % of the window.
            let expected = sorted[Int((Double(window.count) * 0.2).rounded(.down))]
            #expect(q.value(or: 0) == RunningQuantile.low + (expected + 0.5) * RunningQuantile.step)
        }
    }

    /// A second quantile on the same histogram (the echo model's gain and its spread) reads what a
    /// quantile of its own over the same values reads, through the window's turnover, a reset and
    /// steps up and down; the first is unchanged by it.
    @Test func anUpperQuantileReadsAsItsOwnWould() {
        var rng = TestRNG(seed: 12)
        var pair = RunningQuantile(window: 60, quantile: 0.5, upperQuantile: 0.75)
        var median = RunningQuantile(window: 60, quantile: 0.5)
        var upper = RunningQuantile(window: 60, quantile: 0.75)
        #expect(pair.upperValue(or: -7) == -7)
        var spread = 0.0
        for k in 0..<4000 {
            if k == 2500 {
                pair.reset()
                median.reset()
                upper.reset()
            }
            let v = Double.random(in: -80...(-20), using: &rng) + (k % 700 < 350 ? 0 : 30)
            pair.add(v)
            median.add(v)
            upper.add(v)
            #expect(pair.value(or: 0) == median.value(or: 0), "frame \(k)")
            #expect(pair.upperValue(or: 0) == upper.value(or: 0), "frame \(k)")
            spread = max(spread, pair.upperValue(or: 0) - pair.value(or: 0))
        }
        #expect(spread > 10)
    }

    /// The power a floor reads comes from a table of the bins' powers: it must be `power` of the
    /// quantile's value exactly, as the quantile moves up and down and after a refill; empty, the
    /// fallback's.
    @Test func runningQuantilePowerIsThePowerOfItsValue() {
        var rng = TestRNG(seed: 11)
        var q = RunningQuantile(window: 40, quantile: 0.2, withPower: true)
        #expect(q.valueAndPower(or: -37.3) == (db: -37.3, power: power(-37.3)))
        var moves = 0
        var last = q.value(or: 0)
        for k in 0..<3000 {
            if k == 1500 { q.refill(-20, count: 10) }
            q.add(Double.random(in: -150...30, using: &rng) + (k % 500 < 250 ? 0 : 40))
            let read = q.valueAndPower(or: 0)
            #expect(read.db == q.value(or: 0))
            #expect(read.power == power(read.db), "frame \(k): \(read.power) for \(read.db) dB")
            if read.db != last { moves += 1 }
            last = read.db
        }
        #expect(moves > 100)
    }
}
