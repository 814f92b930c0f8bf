import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

private let rate = 16_000

/// Speech-like audio: a harmonic voice (its f0 gliding) cut into syllables of 80–250 ms with gaps of
/// 30–150 ms and, every 1.5–3 s, a pause of 300–800 ms, at `dbfs` RMS over its voiced part.
private func speechLike(_ n: Int, dbfs: Double, f0: Double, seed: UInt64) -> [Float] {
    var rng = TestRNG(seed: seed)
    var envelope = [Float](repeating: 0, count: n)
    var k = Int.random(in: 0..<(rate / 5), using: &rng)
    var sincePause = 0
    while k < n {
        let syllable = Int.random(in: (rate * 8 / 100)...(rate / 4), using: &rng)
        let level = Float(pow(10, Double.random(in: -8...0, using: &rng) / 20))
        for i in 0..<syllable where k + i < n {
            let x = Float(i) / Float(syllable)
            envelope[k + i] = level * min(1, 6 * x, 6 * (1 - x))
        }
        k += syllable
        sincePause += syllable
        let pause = sincePause > Int.random(in: (rate * 3 / 2)...(3 * rate), using: &rng)
        k +=
            pause
            ? Int.random(in: (rate * 3 / 10)...(rate * 8 / 10), using: &rng)
            : Int.random(in: (rate * 3 / 100)...(rate * 15 / 100), using: &rng)
        if pause { sincePause = 0 }
    }
    var v = [Float](repeating: 0, count: n)
    var phase = 0.0
    for i in 0..<n {
        let f = f0 * (1 + 0.1 * sin(2 * Double.pi * 0.7 * Double(i) / Double(rate)))
        phase += 2 * Double.pi * f / Double(rate)
        var s = 0.0
        for h in 1...10 where Double(h) * f < 7000 { s += sin(Double(h) * phase) / Double(h) }
        v[i] = Float(s) * envelope[i]
    }
    let voiced = v.filter { $0 != 0 }
    let rms = (voiced.reduce(0.0) { $0 + Double($1 * $1) } / Double(max(1, voiced.count))).squareRoot()
    let g = Float(pow(10, dbfs / 20) / max(rms, 1e-12))
    return v.map { $0 * g }
}

private func noise(_ n: Int, dbfs: Double, seed: UInt64) -> [Float] {
    var rng = TestRNG(seed: seed)
    let a = Float(pow(10, dbfs / 20) * 3.0.squareRoot())
    return (0..<n).map { _ in Float.random(in: -a...a, using: &rng) }
}

/// The echo of `reference`: delayed by `delayMs`, `gainDb`, through a one-pole low-pass at 3 kHz
/// (a small loudspeaker's top) and a short exponential tail (a room).
private func echo(of reference: [Float], delayMs: [Double], gainDb: Double) -> [Float] {
    var out = [Float](repeating: 0, count: reference.count)
    let g = Float(pow(10, gainDb / 20))
    let a = Float(1 - exp(-2 * Double.pi * 3000 / Double(rate)))
    var lp: Float = 0, tail: Float = 0
    let decay = Float(exp(-6.91 / (0.25 * Double(rate))))  // RT60 250 ms
    for k in reference.indices {
        // The delay may change part-way: `delayMs` gives one value per second (the last holds).
        let d = Int(delayMs[min(delayMs.count - 1, k / rate)] * Double(rate) / 1000)
        let x = k >= d ? reference[k - d] : 0
        lp += a * (x - lp)
        tail = decay * tail + 0.02 * lp
        out[k] = g * (lp + tail)
    }
    return out
}

/// The echo of `reference` in a room: delayed by `delayMs`, `gainDb`, and a reverberant tail of
/// 240 taps at random lags over 2–400 ms decaying 60 dB in 400 ms, 6 dB under the direct path.
private func roomEcho(of reference: [Float], delayMs: Double, gainDb: Double, seed: UInt64) -> [Float] {
    var rng = TestRNG(seed: seed)
    var taps: [(lag: Int, weight: Float)] = [(0, 1)]
    var energy = 0.0
    for _ in 0..<240 {
        let lag = Int.random(in: (rate / 500)...(rate * 4 / 10), using: &rng)
        let w = Double.random(in: -1...1, using: &rng) * exp(-6.91 * Double(lag) / (0.4 * Double(rate)))
        taps.append((lag, Float(w)))
        energy += w * w
    }
    let scale = Float((pow(10, -6.0 / 10) / energy).squareRoot())
    for k in 1..<taps.count { taps[k].weight *= scale }
    let d = Int(delayMs * Double(rate) / 1000)
    let g = Float(pow(10, gainDb / 20))
    var out = [Float](repeating: 0, count: reference.count)
    for (lag, w) in taps {
        let shift = d + lag
        guard shift < out.count else { continue }
        for k in shift..<out.count { out[k] += g * w * reference[k - shift] }
    }
    return out
}

/// The decider over the band analysis of `mic` and `reference` (the steep bands, as `EnergyVAD`
/// analyses a stream with a reference), with every frame's detail.
private func decide(
    _ mic: [Float], _ reference: [Float], _ c: VADConfiguration = .init()
) throws -> [(frame: VADDecider.Frame, detail: VADDecider.Detail)] {
    var pair = VADBandPairAnalyzer(sampleRate: rate, frameLength: 160)
    var frames: [VADBandFrame] = [], far: [SIMD8<Double>] = []
    mic.withUnsafeBufferPointer { m in
        reference.withUnsafeBufferPointer { r in
            pair.process(mic: m, reference: r) {
                frames.append($0)
                far.append($1)
            }
        }
    }
    var decider = try VADDecider(configuration: c)
    var detail = VADDecider.Detail()
    return frames.indices.map { k in
        let f = decider.process(mic: frames[k], reference: far[k], detail: &detail)
        return (f, detail)
    }
}

/// A small loudspeaker that cuts the bass: a fourth-order Butterworth high-pass at `cutHz` (the
/// steep bands' two sections, `VADSteepBank.coefficients`), then `delayMs` and `gainDb` — the agent's
/// voice over 500 Hz reaches the microphone, its fundamental and a low tone hardly.
private func smallSpeaker(_ reference: [Float], cutHz: Double, delayMs: Double, gainDb: Double) -> [Float] {
    var x = reference.map(Double.init)
    let q = VADSteepBank.fourthOrderQ
    for sectionQ in [q.0, q.1] {
        let c = VADSteepBank.coefficients(high: true, hz: cutHz, q: sectionQ, sampleRate: Double(rate))
        var x1 = 0.0
        var x2 = 0.0
        var y1 = 0.0
        var y2 = 0.0
        for k in x.indices {
            let y = c.b0 * x[k] + c.b1 * x1 + c.b2 * x2 - c.a1 * y1 - c.a2 * y2
            x2 = x1
            x1 = x[k]
            y2 = y1
            y1 = y
            x[k] = y
        }
    }
    let d = Int(delayMs * Double(rate) / 1000)
    let g = pow(10, gainDb / 20)
    return reference.indices.map { k in k >= d ? Float(g * x[k - d]) : 0 }
}

/// A pure tone of `seconds` at `hz`, `dbfs` RMS, with 10 ms ramps.
private func tone(_ hz: Double, seconds: Double, dbfs: Double) -> [Float] {
    let n = Int(seconds * Double(rate))
    let a = pow(10, dbfs / 20) * 2.0.squareRoot()
    return (0..<n).map { k in
        let ramp = min(1, Double(min(k, n - 1 - k)) / Double(rate / 100))
        return Float(a * ramp * sin(2 * Double.pi * hz * Double(k) / Double(rate)))
    }
}

@Suite struct VADEchoModelTests {

    /// The delay is found, within a frame, wherever it is in the 0–500 ms search; the agent's echo
    /// alone (the user silent) never starts speech, from the first frame on — not while nothing is
    /// learnt (the worst plausible echo), not at the agent's onsets after its pauses.
    @Test(arguments: [0.0, 40, 120, 250, 480])
    func theDelayIsFoundAndTheEchoAloneIsNeverSpeech(delayMs: Double) throws {
        let agent = speechLike(12 * rate, dbfs: -20, f0: 190, seed: 1)
        var mic = echo(of: agent, delayMs: [delayMs], gainDb: 3)
        for (k, v) in noise(mic.count, dbfs: -65, seed: 2).enumerated() { mic[k] += v }
        let run = try decide(mic, agent)
        #expect(run.allSatisfy { !$0.frame.speech }, "false speech at \(run.firstIndex { $0.frame.speech } ?? -1)")
        let last = run.last!.detail
        #expect(last.echoStage == .tracked)
        let found = try #require(last.echoDelayFrames)
        #expect(abs(Double(found) - delayMs / 10) <= 1, "found \(found) frames for \(delayMs) ms")
        // Before the reference has played long enough, the worst plausible echo is expected.
        let playing = run.firstIndex { $0.detail.echoes.max() > -.infinity }!
        #expect(run[playing].detail.echoStage == .worstCase)
        #expect(run[playing].detail.echoGains == SIMD8(repeating: VADConfiguration().initialEchoGain))
        // The agent's onsets after pauses are guarded.
        #expect(run.contains { $0.detail.onsetGuard })
    }

    /// The room changes (a Bluetooth headset connects): the delay goes from 100 to 350 ms at 8 s;
    /// the estimate follows within seconds and says so.
    @Test func theEstimateFollowsADelayThatChanges() throws {
        let agent = speechLike(20 * rate, dbfs: -20, f0: 210, seed: 3)
        var mic = echo(of: agent, delayMs: [Double](repeating: 100, count: 8) + [350], gainDb: -6)
        for (k, v) in noise(mic.count, dbfs: -65, seed: 4).enumerated() { mic[k] += v }
        let run = try decide(mic, agent)
        #expect(abs((run[790].detail.echoDelayFrames ?? -100) - 10) <= 1, "\(run[790].detail.echoDelayFrames ?? -1)")
        #expect(abs((run.last!.detail.echoDelayFrames ?? -100) - 35) <= 1, "\(run.last!.detail.echoDelayFrames ?? -1)")
        let moved = try #require(run.indices.first { $0 > 800 && (run[$0].detail.echoDelayFrames ?? 0) > 20 })
        #expect(moved < 1400, "the new delay found \(Double(moved - 800) / 100) s after the change")
    }

    /// A move needs a lag that explains the microphone. Band levels of 10 ms frames, as the model
    /// sees them: for 6 s the echo (the reference 60 ms later, 10 dB down); then for 4 s a loud
    /// user (the echo under him unseen) whose levels follow the reference 300 ms back only a little
    /// (normalised correlation about 0.2 — chance, as in generated items after a user's turn, where
    /// the delay moved to 400–430 ms for seconds): the delay stays; then the echo comes back 200 ms
    /// after the reference (a room that changed): the delay follows within 1.5 s.
    @Test(arguments: [UInt64(51), 52, 53])
    func theDelayMovesOnlyToALagThatExplainsTheMicrophone(seed: UInt64) throws {
        var rng = TestRNG(seed: seed)
        let gaussian = { (rng: inout TestRNG) -> Double in
            let u = Double.random(in: 1e-12..<1, using: &rng)
            let v = Double.random(in: 0..<1, using: &rng)
            return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
        }
        var reference: [SIMD8<Double>] = []
        var model = VADEchoModel(configuration: VADConfiguration())
        var delays: [Int?] = []
        for k in 0..<1800 {
            var r = SIMD8<Double>()
            for b in 0..<8 { r[b] = -40 + 6 * gaussian(&rng) }
            reference.append(r)
            var m = SIMD8<Double>()
            for b in 0..<8 {
                if k < 600 {
                    m[b] = (k >= 6 ? reference[k - 6][b] : -100) - 10 + gaussian(&rng)
                } else if k < 1000 {
                    m[b] = -30 + 0.5 * (reference[k - 30][b] + 40) + 15 * gaussian(&rng)
                } else {
                    m[b] = reference[k - 20][b] - 10 + gaussian(&rng)
                }
            }
            var powers = SIMD8<Double>()
            for b in 0..<8 { powers[b] = pow(10, r[b] / 10) }
            delays.append(model.update(mic: m, reference: powers).delayFrames)
        }
        #expect(delays[590].map { abs($0 - 6) <= 1 } == true, "the echo's delay: \(delays[590] ?? -1) frames")
        let moved = (600..<1000).filter { delays[$0] != delays[590] }
        #expect(moved.isEmpty, "moved at frame \(moved.first ?? -1) to \(delays[moved.first ?? 0] ?? -1)")
        let followed = (1000..<1800).first { delays[$0].map { abs($0 - 20) <= 1 } == true }
        #expect(followed.map { $0 < 1150 } == true, "the room's new delay found at frame \(followed ?? -1)")
    }

    /// A user talking over the echo is found, and the double talk moves neither the delay nor the
    /// gains (the model does not learn while the detector hears the user).
    @Test func aUserOverTheEchoIsFoundAndDoubleTalkTeachesNothing() throws {
        let agent = speechLike(14 * rate, dbfs: -20, f0: 200, seed: 5)
        let echoed = echo(of: agent, delayMs: [80], gainDb: -10)
        var mic = echoed
        for (k, v) in noise(mic.count, dbfs: -65, seed: 6).enumerated() { mic[k] += v }
        // The user: 6–9 s, a voice of their own at the echo's level (0 dB echo-to-user ratio).
        let user = speechLike(3 * rate, dbfs: -30, f0: 120, seed: 7)
        for (k, v) in user.enumerated() { mic[6 * rate + k] += v }
        let run = try decide(mic, agent)
        let labelled = (600..<900).filter { abs(user[($0 - 600) * 160]) > 0 }
        let first = try #require(labelled.first)
        let found = try #require((first..<900).first { run[$0].frame.speech })
        #expect(found - first <= 30, "found \(10 * (found - first)) ms after the user's first syllable")
        #expect(run[0..<590].allSatisfy { !$0.frame.speech }, "before the user, no speech")
        let before = run[590].detail, after = run[1000].detail
        #expect(before.echoDelayFrames == after.echoDelayFrames)
        #expect(abs((before.echoDelayFrames ?? -100) - 8) <= 1, "\(before.echoDelayFrames ?? -1)")
        for b in 0..<after.bandCount { #expect(abs(before.echoGains[b] - after.echoGains[b]) < 3, "band \(b)") }
    }

    /// The loudspeaker turned up 16 dB at 10 s (a volume key, the speakerphone), in a room (RT60
    /// 400 ms, the tail 6 dB under the direct path): the echo stood over
    /// the learnt gain in every frame from then on, the detector took it for the user, and as
    /// nothing learns while it hears the user, the rest of the stream was speech. The louder-echo
    /// watch sees an echo that stands over the expected one all the time the reference plays and
    /// follows the reference, and learns the gain again: speech for at most 2.5 s after the step,
    /// and the gains end about 16 dB up.
    @Test func anEchoThatGetsLouderIsLearntAgain() throws {
        let agent = speechLike(24 * rate, dbfs: -20, f0: 190, seed: 11)
        let quiet = roomEcho(of: agent, delayMs: 80, gainDb: -16, seed: 16)
        let loud = roomEcho(of: agent, delayMs: 80, gainDb: 0, seed: 16)
        var mic = agent.indices.map { $0 < 10 * rate ? quiet[$0] : loud[$0] }
        for (k, v) in noise(mic.count, dbfs: -65, seed: 12).enumerated() { mic[k] += v }
        let run = try decide(mic, agent)
        // Runs of speech frames (start, length): none before the step; after it, the louder echo is
        // taken for the user until the watch has seen enough of it.
        var runs: [(start: Int, length: Int)] = []
        for k in run.indices where run[k].frame.speech {
            if let last = runs.last, last.start + last.length == k {
                runs[runs.count - 1].length += 1
            } else {
                runs.append((k, 1))
            }
        }
        let blip = runs.filter { $0.start < 1000 }.map(\.length).max() ?? 0
        #expect(blip == 0, "before the step: runs up to \(blip) frames")
        let after = runs.filter { $0.start >= 1000 }
        let episode = after.filter { $0.length > blip }
        #expect(!episode.isEmpty, "the louder echo is taken for the user at first")
        #expect(episode.allSatisfy { $0.start + $0.length <= 1250 }, "speech 2.5 s after the step: \(episode)")
        #expect(after.reduce(0) { $0 + $1.length } < 400, "\(after)")
        let before = run[990].detail, last = run[run.count - 1].detail
        #expect(last.echoStage == .tracked)
        let raised = (0..<last.bandCount).filter { last.echoGains[$0] - before.echoGains[$0] > 10 }
        #expect(raised.count >= last.bandCount / 2, "gains before \(before.echoGains), after \(last.echoGains)")
    }

    /// A user who talks over a quiet echo for 8 s stands over it as a louder echo would, but the
    /// echo shows at its learnt level in the gaps between his syllables, and his level changes are
    /// not the reference's: the watch does not learn the gain again, and he is heard throughout.
    @Test func aUserTalkingOverAQuietEchoIsNotTakenForALouderOne() throws {
        let agent = speechLike(20 * rate, dbfs: -20, f0: 190, seed: 13)
        var mic = roomEcho(of: agent, delayMs: 80, gainDb: -16, seed: 16)
        for (k, v) in noise(mic.count, dbfs: -65, seed: 14).enumerated() { mic[k] += v }
        let user = speechLike(8 * rate, dbfs: -24, f0: 120, seed: 15)
        for (k, v) in user.enumerated() { mic[8 * rate + k] += v }
        let run = try decide(mic, agent)
        let before = run[790].detail, after = run[1700].detail
        for b in 0..<after.bandCount {
            #expect(
                abs(before.echoGains[b] - after.echoGains[b]) < 3,
                "band \(b): \(before.echoGains[b]) → \(after.echoGains[b])")
        }
        let voiced = (800..<1600).filter { abs(user[($0 - 800) * 160 + 80]) > 0 }
        let heard = voiced.filter { run[$0].frame.speech }
        #expect(Double(heard.count) >= 0.8 * Double(voiced.count), "heard \(heard.count) of \(voiced.count) frames")
    }

    /// A user who talks over the agent's first words, before anything is learnt over the found
    /// delay, is heard within 300 ms and nothing before. (On generated items the window model used
    /// to learn a gain as loud as a slowly swelling voice within a few frames — `unexplained`
    /// stops that; this synthetic room is heard with or without it, so it guards the window stage,
    /// and `unexplainedFramesTeachNoGain` the rule.)
    @Test(arguments: [0.35, 0.5, 0.6])
    func aUserOverTheAgentsFirstWordsIsHeard(onsetSeconds: Double) throws {
        let agent = speechLike(6 * rate, dbfs: -20, f0: 200, seed: 11)
        var mic = echo(of: agent, delayMs: [60], gainDb: -22)
        for (k, v) in noise(mic.count, dbfs: -65, seed: 12).enumerated() { mic[k] += v }
        let start = Int(onsetSeconds * Double(rate))
        // A voice that swells over its first 100 ms ("uh— wait"), 18 dB over the echo.
        let user = speechLike(2 * rate, dbfs: -24, f0: 120, seed: 13)
        let fade = Double(rate) / 10
        for (k, v) in user.enumerated() { mic[start + k] += v * Float(min(1, Double(k) / fade)) }
        let run = try decide(mic, agent)
        let first = try #require((0..<200).first { abs(user[$0 * 160]) > 0 }) + start / 160
        let heard = (first..<(first + 100)).first { run[$0].frame.speech }
        let delay = heard.map { "\(10 * ($0 - first)) ms" } ?? "never"
        #expect(run[first].detail.echoStage != .tracked, "nothing learnt over the found delay yet")
        #expect((heard ?? .max) - first <= 30, "heard \(delay) after the user's first syllable")
        #expect(run[..<first].allSatisfy { !$0.frame.speech }, "nothing before the user")
    }

    /// A user who starts before the delay is found, at a lag the reference has reached only while he
    /// talked: each new lag is one frame's evidence of an echo "just arriving" there, and the worst
    /// plausible echo covered him until the delay was found (0.4–0.7 s late on generated items). Band
    /// levels straight into the model: the reference steady from frame 20, its echo 20 dB down from
    /// frame 35 (150 ms), a user 15 dB over the echo from frame 55, before the window model has learnt.
    /// Once the echo's first arrival has held 50 ms the lags more than 50 ms past it are not read
    /// (`VADEchoModel+Bound.swift`): the expected echo stays near the echo, under him; with every lag
    /// read it stands over him. A talker already in the room before the reference began is no arrival.
    @Test(arguments: [false, true])
    func lagsPastTheEchosFirstArrivalAreNotRead(talkerBefore: Bool) {
        var model = VADEchoModel(configuration: VADConfiguration())
        var rng = TestRNG(seed: 61)
        var expected: [SIMD8<Double>] = []
        for k in 0..<60 {
            var mic = SIMD8<Double>(repeating: -70)
            // A talker in the room from the start: 70 ms bursts 25 dB over the noise, 30 ms gaps.
            if talkerBefore, k % 10 < 7 { mic = SIMD8(repeating: -45) }
            if k >= 35 { mic = SIMD8(repeating: talkerBefore ? -30 : -40) }
            if k >= 55, !talkerBefore { mic = SIMD8(repeating: -25) }
            for b in 0..<8 { mic[b] += Double.random(in: -1...1, using: &rng) }
            let reference = SIMD8<Double>(repeating: k >= 20 ? 0.01 : 1e-14)
            expected.append(model.update(mic: mic, reference: reference).echo)
        }
        // The talker's bursts stand 25 dB over the quiet level, but not 10 dB over his level before
        // the reference began: the first arrival is the echo's.
        let held = model.arrivalFrames(VADEchoModel.arrivalSeconds)
        let firstArrival = model.arrivals.firstIndex { $0 >= held }
        #expect(firstArrival.map { (14...16).contains($0) } ?? false, "arrival at lag \(firstArrival ?? -1)")
        guard !talkerBefore else { return }
        for k in 56..<60 {
            #expect(largestLane(expected[k]) < -32, "frame \(k): the echo expected at \(largestLane(expected[k])) dB")
        }
    }

    /// Headphones: the reference plays but no echo arrives. The window model settles low (the median
    /// over frames while the reference plays within the search range), and a user at an ordinary
    /// level is heard within 300 ms of each utterance, nothing before.
    @Test func withHeadphonesTheUserIsHeard() throws {
        let agent = speechLike(10 * rate, dbfs: -20, f0: 200, seed: 14)
        var mic = noise(agent.count, dbfs: -62, seed: 15)
        let user = speechLike(2 * rate, dbfs: -35, f0: 120, seed: 16)
        for start in [4 * rate, 7 * rate] {
            for (k, v) in user.enumerated() { mic[start + k] += v }
        }
        let run = try decide(mic, agent)
        let firstSyllable = try #require((0..<200).first { abs(user[$0 * 160]) > 0 })
        for start in [400, 700] {
            let first = start + firstSyllable
            let heard = (first..<(first + 100)).first { run[$0].frame.speech }
            let when = heard.map { "\(10 * ($0 - first)) ms" } ?? "never"
            #expect((heard ?? .max) - first <= 30, "utterance at \(start / 100) s: heard \(when)")
        }
        #expect(run[..<(400 + firstSyllable)].allSatisfy { !$0.frame.speech }, "nothing before the user")
    }

    /// The bound on the worst plausible echo (`VADEchoModel+Bound.swift`) never lies under the echo
    /// itself: a loud echo (+6 dB over the reference) or a moderate one (−10 dB), through a
    /// reverberant room, at delays across the search, with the user silent, is no speech from the
    /// first frame on. Where the echo is moderate the bound brings the worst-case stage's gain under
    /// the worst plausible (10 dB) before anything is learnt.
    @Test(arguments: [(0.0, 6.0, UInt64(94)), (60, -10, 95), (150, 6, 96), (300, -10, 97), (480, 6, 98), (20, -10, 99)])
    func theBoundNeverLiesUnderTheEcho(delayMs: Double, gainDb: Double, seed: UInt64) throws {
        let agent = speechLike(6 * rate, dbfs: -20, f0: 180, seed: seed)
        var mic = roomEcho(of: agent, delayMs: delayMs, gainDb: gainDb, seed: seed + 100)
        for (k, v) in noise(mic.count, dbfs: -65, seed: seed + 200).enumerated() { mic[k] += v }
        let run = try decide(mic, agent)
        let speech = run.indices.filter { run[$0].frame.speech }
        #expect(speech.isEmpty, "speech at \(speech.prefix(5).map { "\(Double($0) / 100) s" })")
        if gainDb < 0 {
            let bounded = run.contains { $0.detail.echoStage == .worstCase && $0.detail.echoGains[3] < 9 }
            #expect(bounded, "the worst-case stage's gain fell under the worst plausible")
        }
    }

    /// With headphones (or an echo the device cancelled) the reference plays and no echo arrives;
    /// the model still expects one, far under the room's noise. The bands' floors learn the noise
    /// under that negligible echo too (before, only where no echo was expected at all — here the
    /// agent's pauses; with an agent that never pauses, never — and a click at 5.58 s opened
    /// speech): keyboard clicks in a noisy room are no speech, and a user is still heard at once.
    @Test func withHeadphonesTheFloorsLearnAndAClickIsNoSpeech() throws {
        let agent = speechLike(10 * rate, dbfs: -20, f0: 200, seed: 43)
        var mic = noise(agent.count, dbfs: -55, seed: 44)
        var rng = TestRNG(seed: 45)
        // Clicks from 1.5 s: 5–20 ms of white noise decaying in 2–5 ms, peaks −26 to −14 dBFS,
        // 0.2–0.5 s apart.
        var start = 3 * rate / 2
        var clicks: [Int] = []
        while start < 8 * rate {
            clicks.append(start / 160)
            let n = Int.random(in: (rate / 200)...(rate / 50), using: &rng)
            let tau = Double.random(in: 0.002...0.005, using: &rng) * Double(rate)
            let peak = pow(10, Double.random(in: -26 ... -14, using: &rng) / 20)
            for i in 0..<n {
                mic[start + i] += Float(peak * Double.random(in: -1...1, using: &rng) * exp(-Double(i) / tau))
            }
            start += Int.random(in: (rate / 5)...(rate / 2), using: &rng)
        }
        let user = speechLike(rate, dbfs: -35, f0: 120, seed: 46)
        for (k, v) in user.enumerated() { mic[8 * rate + k] += v }
        let run = try decide(mic, agent)
        let speech = run[50..<800].indices.filter { run[$0].frame.speech }
        #expect(speech.isEmpty, "\(clicks.count) clicks: speech at \(speech.prefix(5).map { "\(Double($0) / 100) s" })")
        // The floors over 300 Hz hold the room's noise.
        for b in 2..<8 { #expect(run[700].detail.floors[b] > -90, "band \(b): \(run[700].detail.floors[b]) dB") }
        let first = try #require((0..<100).first { abs(user[$0 * 160]) > 0 }) + 800
        let heard = (first..<(first + 100)).first { run[$0].frame.speech }
        #expect((heard ?? .max) - first <= 3, "the user heard \(heard.map { "\(10 * ($0 - first)) ms" } ?? "never")")
    }

    /// A reference that plays only dither (a 16-bit track's silence, −96 dBFS) into a room whose
    /// noise is −60 dBFS: the model expected an echo of it, far under the noise, in every frame, and
    /// the floors stayed at their −100 dB stand-in — the noise read as 20–30 dB of excess and opened
    /// speech again and again (from the first frame; with the floors learning under a negligible
    /// echo alone, until 7.8 s). A reference that has not played over `reference_active_dbfs`
    /// brings no echo: no speech.
    @Test func aDitheredReferenceInANoisyRoomIsNoSpeech() throws {
        let reference = noise(10 * rate, dbfs: -96, seed: 50)
        let mic = noise(reference.count, dbfs: -60, seed: 51)
        let run = try decide(mic, reference)
        let speech = run.indices.filter { run[$0].frame.speech }
        #expect(speech.isEmpty, "\(speech.count) frames of speech from \(speech.first.map { Double($0) / 100 } ?? 0) s")
    }

    /// Clicks over the agent's echo whose attack falls in the last samples of a frame: that frame
    /// rises a little over the echo (its lead-in, by the rule that saves a voice 10 ms) and the
    /// next holds the click — two frames, speech at once (2 of these 13 clicks). A frame that
    /// rises more than `leadInRiseMax` over the one before has no lead-in: no click opens speech,
    /// and a user is still heard at once.
    @Test func aClickSplitOverAFrameBoundaryIsNoSpeech() throws {
        let agent = speechLike(10 * rate, dbfs: -20, f0: 200, seed: 52)
        var mic = echo(of: agent, delayMs: [60], gainDb: -10)
        for (k, v) in noise(mic.count, dbfs: -65, seed: 53).enumerated() { mic[k] += v }
        var rng = TestRNG(seed: 54)
        var clicks = 0
        for frame in stride(from: 300, to: 780, by: 37) {
            // 10 ms of noise decaying in 2 ms, peak −20 dBFS, from 2 samples before the boundary.
            let start = frame * 160 - 2
            for i in 0..<160 {
                mic[start + i] += Float(0.1 * Double.random(in: -1...1, using: &rng) * exp(-Double(i) / 32))
            }
            clicks += 1
        }
        let user = speechLike(rate, dbfs: -30, f0: 120, seed: 55)
        for (k, v) in user.enumerated() { mic[8 * rate + k] += v }
        let run = try decide(mic, agent)
        let speech = run[..<800].indices.filter { run[$0].frame.speech }
        #expect(speech.isEmpty, "\(clicks) clicks: speech at \(speech.prefix(5).map { "\(Double($0) / 100) s" })")
        let first = try #require((0..<100).first { abs(user[$0 * 160]) > 0 }) + 800
        let heard = (first..<(first + 100)).first { run[$0].frame.speech }
        #expect((heard ?? .max) - first <= 3, "the user heard \(heard.map { "\(10 * ($0 - first)) ms" } ?? "never")")
    }

    /// A click over the agent's echo that fills two frames about equally — its attack in the first
    /// frame's last quarter, its decay through the next — holds a run of two frames. The echo fills
    /// the frames' first quarters, so the late-onset test (over the noise floor) sees a 6 dB jump,
    /// not `onset_jump_db`. Over noise ⊕ the expected echo the second frame falls from its first
    /// quarter to its last by more than that: it opens no speech (`decayWaited`). The same band
    /// levels with their energy spread through the frames — a voice — open speech at the second.
    /// (Band frames built directly, `EchoBandFrames`: an agent in syllables, its echo 60 ms later
    /// and 10 dB down over −99 dBFS of noise per band; exact quarter powers, which audio blurs.)
    @Test func aFrameThatDecaysThroughItselfOpensNoSpeech() throws {
        // 13 dB over the echo in the two highest bands for two frames from frame 400 (4 s): a rise
        // under `leadInRiseMax`, which would hold the run one frame more (VADKnockTests); and 13 dB
        // in 150–300 Hz (outside the quarters), or `voiceUnder1k` would hold it a frame more.
        var clickFrames = EchoBandFrames(count: 412, quietFrom: 380, seed: 56)
        clickFrames.add(at: 400, excessDb: 13, spread: SIMD4(0, 0, 0, 1))
        clickFrames.add(at: 401, excessDb: 13, spread: SIMD4(0.6, 0.3, 0.1, 0))
        for k in 400...401 { clickFrames.add(at: k, excessDb: 13, bands: 1...1) }
        let click = try clickFrames.decided()
        #expect(click[300..<400].allSatisfy { !$0.frame.speech }, "the echo alone is no speech")
        #expect(click[399].detail.echoStage == .tracked, "the echo model tracks the echo")
        #expect(!click[400].detail.lateOnset, "the late start hidden under the echo")
        #expect(click[401].detail.runFrames == 2 && click[401].detail.decayWaited, "held two frames, waited")
        #expect(click[400...].allSatisfy { !$0.frame.speech }, "the click opened speech")
        var voiceFrames = EchoBandFrames(count: 412, quietFrom: 380, seed: 56)
        for k in 400...401 {
            voiceFrames.add(at: k, excessDb: 13)
            voiceFrames.add(at: k, excessDb: 13, bands: 1...1)
        }
        let voice = try voiceFrames.decided()
        #expect(voice[401].frame.speech && !voice[400].frame.speech, "the voice heard at its second frame")
    }

    /// A user far under the agent's echo (its loudspeaker cuts under 400 Hz; the user 30–34 dB
    /// under the agent's level) stands out under 400 Hz and in the echo's dips while his level is
    /// more than 20 dB under the echo's loudest. The talker gate's loudest level is the echo's; it
    /// widens for a frame that stands out over the expected echo by more than the enter threshold,
    /// so he is heard within 300 ms (100–280 ms; with the 20 dB gate alone: 790 ms at −50 dBFS,
    /// never at −52 and −54), and the echo alone is no speech.
    @Test(arguments: [-50.0, -52, -54])
    func aUserFarUnderTheEchoIsNotGatedAsBabble(userDbfs: Double) throws {
        let agent = speechLike(12 * rate, dbfs: -20, f0: 200, seed: 47)
        var mic = smallSpeaker(agent, cutHz: 400, delayMs: 200, gainDb: 0)
        for (k, v) in noise(mic.count, dbfs: -70, seed: 48).enumerated() { mic[k] += v }
        let user = speechLike(3 * rate, dbfs: userDbfs, f0: 110, seed: 49)
        for (k, v) in user.enumerated() { mic[8 * rate + k] += v }
        let run = try decide(mic, agent)
        #expect(run[..<800].allSatisfy { !$0.frame.speech }, "the echo alone is no speech")
        let first = try #require((0..<300).first { abs(user[$0 * 160]) > 0 }) + 800
        let heard = (first..<1100).first { run[$0].frame.speech }
        #expect((heard ?? .max) - first <= 30, "heard \(heard.map { "\(10 * ($0 - first)) ms" } ?? "never")")
        // Where he was heard, the gate as it was (20 dB under the loudest level) refused him.
        if let heard {
            let level = run[heard].frame.level
            #expect(level < run[heard].detail.loudest - 20, "\(level) vs \(run[heard].detail.loudest) dBFS")
        }
    }

    /// An agent that speaks in short words with long gaps, into a quiet microphone: the window model's
    /// settled median (its headphones rule) is then learnt mostly from the gaps, where the echo has
    /// died away, and lies far under the echo. Once the delay is found an echo has arrived, so that
    /// median no longer stands in for it: until the tracked gain has learnt (the gaps give it few
    /// frames) the upper envelope does, and the echo alone never starts speech. (With the median in
    /// use past the found delay: speech on the echo 2.7 s in; generated item
    /// 010_s1304_bargein_m20 had a false barge-in so.)
    @Test func aSparseAgentsEchoIsNotSpeechWhileTheTrackedGainLearns() throws {
        let voice = speechLike(8 * rate, dbfs: -20, f0: 190, seed: 22)
        // Words of 120 ms every 420 ms.
        let agent = voice.indices.map { k in k % (rate * 42 / 100) < rate * 12 / 100 ? voice[k] : 0 }
        var mic = echo(of: agent, delayMs: [100], gainDb: -20)
        for (k, v) in noise(mic.count, dbfs: -80, seed: 23).enumerated() { mic[k] += v }
        let run = try decide(mic, agent)
        #expect(run.allSatisfy { !$0.frame.speech }, "false speech at \(run.firstIndex { $0.frame.speech } ?? -1)")
        let found = try #require(run.firstIndex { $0.detail.echoDelayFrames != nil })
        let tracked = try #require(run.firstIndex { $0.detail.echoStage == .tracked })
        #expect(tracked > found, "the window model is still in use after the delay is found (\(found), \(tracked))")
    }

    /// When the delay is first found, the last second teaches the tracked gain at once: the tracked
    /// model is in use from that frame (not `learnSeconds` of echo later), with a gain near the
    /// echo's, and the echo alone still never starts speech.
    @Test func theTrackedGainLearnsFromTheLastSecondWhenTheDelayIsFound() throws {
        let agent = speechLike(6 * rate, dbfs: -20, f0: 190, seed: 17)
        var mic = echo(of: agent, delayMs: [70], gainDb: -12)
        for (k, v) in noise(mic.count, dbfs: -65, seed: 18).enumerated() { mic[k] += v }
        let run = try decide(mic, agent)
        let found = try #require(run.firstIndex { $0.detail.echoDelayFrames != nil })
        #expect(run[found].detail.echoStage == .tracked, "\(run[found].detail.echoStage.map { "\($0)" } ?? "-")")
        #expect(run[found - 1].detail.echoStage != .tracked)
        // The echo path's gain is −12 dB and its loudspeaker top (3 kHz) takes more off the upper bands.
        #expect(run[found].detail.echoGains[1] > -20 && run[found].detail.echoGains[1] < -6)
        #expect(run.allSatisfy { !$0.frame.speech })
    }

    /// In a room whose reverberation is well under the direct path, the tail's level is learnt where
    /// the reference stopped, and the expected echo in the echo's dips drops with it: a user 6 or 9 dB
    /// under the echo (−26 dBFS) is found in them within 300 ms, and the echo alone is never speech.
    /// (With the tail at the direct path's level, as before: 350 ms and never.)
    @Test(arguments: [-32.0, -35])
    func aUserUnderTheEchoIsFoundInItsDipsOnceTheTailIsLearnt(userDbfs: Double) throws {
        let agent = speechLike(14 * rate, dbfs: -20, f0: 200, seed: 19)
        var mic = echo(of: agent, delayMs: [60], gainDb: -6)
        for (k, v) in noise(mic.count, dbfs: -65, seed: 20).enumerated() { mic[k] += v }
        let user = speechLike(3 * rate, dbfs: userDbfs, f0: 120, seed: 21)
        for (k, v) in user.enumerated() { mic[8 * rate + k] += v }
        let run = try decide(mic, agent)
        let first = try #require((0..<300).first { abs(user[$0 * 160]) > 0 }) + 800
        let heard = (first..<1100).first { run[$0].frame.speech }
        let when = heard.map { "\(10 * ($0 - first)) ms" } ?? "never"
        #expect((heard ?? .max) - first <= 30, "heard \(when) after the user's first syllable")
        #expect(run[..<first].allSatisfy { !$0.frame.speech }, "nothing before the user")
    }

    /// From `tailEarlyFrames` frames of the room's tail until the median has its 0.3 s, the tail
    /// stands at the loudest level those frames showed: in a room without reverberation the expected
    /// echo in the agent's pauses falls to the noise after five such frames, not thirty. (With the
    /// tail at the direct path's level until thirty, it stood up to 30 dB over the microphone there, and
    /// a user in those pauses under it: the talking grid's slow cells.)
    @Test func theTailStandsAtTheLoudestOfItsFirstFramesUntilTheMedianHasLearnt() {
        var model = VADEchoModel(configuration: VADConfiguration())
        // Words of 0.4 s at −20 dB per band, pauses of 0.3 s of digital silence; the echo 60 ms later,
        // 6 dB down, over noise at −65 dB.
        let playing = { (k: Int) in k >= 0 && k % 70 < 40 }
        var early = 0
        for k in 0..<1400 {
            let reference = SIMD8<Double>(repeating: playing(k) ? 1e-2 : 0)
            let mic = SIMD8<Double>(repeating: playing(k - 6) ? -26 : -65)
            let learnt = model.tailLearnt
            let e = model.update(mic: mic, reference: reference)
            // A pause's frames after the echo has stopped and the direct path (at any lag up to 12
            // frames) has left it.
            guard (1...12).allSatisfy({ !playing(k - $0) }), e.stage == .tracked else { continue }
            if learnt >= 5 && learnt < model.learnFrames {
                early += 1
                for b in 0..<8 { #expect(e.echo[b] < -55, "frame \(k), band \(b): \(e.echo[b]) dB") }
            }
        }
        #expect(early >= 10, "\(early) pause frames between five and thirty frames of the tail")
    }

    /// The reference's maximum over a window of frames from the blocks of eight (what the model
    /// takes per frame for the search window and its tail) is the maximum frame by frame, for every
    /// window within the rings, as the stream passes the blocks' and the rings' ends; and so is the
    /// tracked echo's reverberant tail.
    @Test func theBlockMaximumIsTheFrameByFrameMaximum() {
        var model = VADEchoModel(configuration: VADConfiguration())
        var rng = TestRNG(seed: 21)
        for k in 0..<700 {
            let reference = SIMD8<Double>((0..<8).map { _ in Double.random(in: 1e-12...1, using: &rng) })
            _ = model.update(mic: SIMD8(repeating: -60), reference: reference)
            let last = model.frames - 1
            for _ in 0..<4 {
                let hi = last - Int.random(in: 0...20, using: &rng)
                let lo = hi - Int.random(in: 0...(model.searchMax + model.tail - 20), using: &rng)
                var fast = SIMD8<Double>(repeating: -140)
                model.windowMax(lo, hi, into: &fast)
                var slow = SIMD8<Double>(repeating: -140)
                if hi >= 0 {
                    for a in max(lo, 0)...hi { slow = pointwiseMax(slow, model.history[model.slot(model.frames - a)]) }
                }
                #expect(fast == slow, "frame \(k), window \(lo)…\(hi)")
            }
            // The tracked echo's reverberant tail from the blocks of reference + decay · frame is the
            // tail lag by lag (to rounding: 1e-9 dB).
            let start = Int.random(in: model.searchMin...model.searchMax, using: &rng)
            let parts = model.trackedParts(from: start)
            var direct = SIMD8<Double>(repeating: -140), tail = direct
            if start <= model.frames {
                for d in start...min(start + model.tail, model.frames) {
                    let v = model.history[model.slot(d)] - model.decay * Double(d - start)
                    if d <= start + 2 { direct = pointwiseMax(direct, v) } else { tail = pointwiseMax(tail, v) }
                }
            }
            #expect(parts.direct == direct, "frame \(k)")
            for b in 0..<8 { #expect(abs(parts.tail[b] - tail[b]) < 1e-9, "frame \(k), band \(b)") }
        }
    }

    /// Frames marked `unexplained` teach the gains nothing; the same frames otherwise lift them.
    @Test func unexplainedFramesTeachNoGain() {
        var taught = VADEchoModel(configuration: VADConfiguration())
        var kept = taught
        let reference = SIMD8<Double>(repeating: 1e-3)  // −30 dB per band
        var last = (VADEchoModel.Estimate(), VADEchoModel.Estimate())
        for k in 0..<800 {
            // The echo at −50 dB for 2 s, then 20 dB louder (a user the detector has not declared).
            let mic = SIMD8<Double>(repeating: k < 200 ? -50 : -30)
            last.0 = taught.update(mic: mic, reference: reference)
            last.1 = kept.update(mic: mic, reference: reference, unexplained: k >= 200)
        }
        for b in 0..<8 {
            #expect(last.1.gains[b] < -15, "band \(b): \(last.1.gains[b]) dB")
            #expect(last.0.gains[b] > last.1.gains[b] + 10, "band \(b): \(last.0.gains[b]) dB")
        }
    }

    /// The window model's envelope stands per band once that band has learnt from `learnFrames`
    /// frames where its echo arrived, not once the stage has (it counts frames where any band's did).
    /// An agent that opens on a fricative — its four low bands at −60 dB for 0.15 s, then a vowel at
    /// −20 — with its echo 200 ms later, 10 dB down, over noise at −90 dB that jitters by 10 dB in the
    /// top band (counted as arrivals before any echo): the stage opens while the low bands have heard
    /// only the fricative's weak echo under a window that already holds the vowel, 50 dB under it.
    /// The vowel's echo must stay under what the model expects and its margin (before the rule, 34 dB
    /// over them).
    @Test func aBandsWindowEnvelopeStandsOnceThatBandHasLearnt() {
        var model = VADEchoModel(configuration: VADConfiguration())
        var windowFrames = 0
        var vowelFrames = 0
        for k in 0..<80 {
            var reference = SIMD8<Double>(repeating: 1e-2)
            for b in 0..<4 where k < 15 { reference[b] = 1e-6 }
            var mic = SIMD8<Double>(repeating: -90)
            mic[7] = k % 10 == 0 ? -90 : -80
            if k >= 20 {
                for b in 0..<8 { mic[b] = b < 4 && k < 35 ? -70 : -30 }
            }
            let e = model.update(mic: mic, reference: reference)
            guard e.stage == .window else { continue }
            windowFrames += 1
            if k >= 35 { vowelFrames += 1 }
            for b in 0..<4 {
                #expect(e.echo[b] + e.margins[b] >= mic[b], "frame \(k), band \(b): \(e.echo[b]) dB")
            }
        }
        #expect(windowFrames >= 30 && vowelFrames >= 20, "\(windowFrames) window frames, \(vowelFrames) with the vowel")
    }

    /// The frames where the reference's loudest band (as the model sees it) rises over −55 dBFS
    /// after at least 200 ms under it: the onsets the guard follows.
    private func referenceOnsets(_ agent: [Float]) -> [Int] {
        var analyzer = VADBandPairAnalyzer(sampleRate: rate, frameLength: 160)
        var loudest: [Double] = []
        agent.withUnsafeBufferPointer { a in
            analyzer.process(mic: a, reference: a) { loudest.append(10 * log10($1.max() + 1e-20)) }
        }
        var onsets: [Int] = []
        var quiet = 100
        for (k, level) in loudest.enumerated() {
            if level > -55 {
                if quiet >= 20 { onsets.append(k) }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return onsets
    }

    /// The guard: from two frames before the echo of an utterance that follows a pause is due
    /// until `echo_onset_guard_ms` after, no start; not before (only the tracked echo is there);
    /// 0 turns it off.
    @Test func theGuardCoversTheEchoOfEachNewUtterance() throws {
        let agent = speechLike(10 * rate, dbfs: -20, f0: 180, seed: 8)
        let mic = echo(of: agent, delayMs: [60], gainDb: -6)
        let run = try decide(mic, agent)
        let onsets = referenceOnsets(agent)
        #expect(onsets.count >= 3)
        for k in onsets where k > 200 {
            let delay = try #require(run[k].detail.echoDelayFrames)
            #expect(abs(delay - 6) <= 1, "found \(delay) frames")
            #expect(!run[k + delay - 3].detail.onsetGuard, "onset at frame \(k): no guard before the echo")
            #expect(run[k + delay - 2].detail.onsetGuard && run[k + delay].detail.onsetGuard, "onset at frame \(k)")
            #expect(!run[k + delay + 8 + 1].detail.onsetGuard, "the guard ends 80 ms after the delay")
        }
        var off = VADConfiguration()
        off.echoOnsetGuardMilliseconds = 0
        let open = try decide(mic, agent, off)
        #expect(!open[(onsets.last! + 7)...].contains { $0.detail.onsetGuard })
    }

    /// A user who starts as the agent's next utterance does, 250 ms before its echo arrives, is
    /// heard at once: the guard waits for the echo (it began at the reference's onset and held the
    /// user for the whole delay, then the echo covered him: 600 ms late in the sample agent's grid).
    @Test func aUserWhoStartsWithTheAgentsNextUtteranceIsHeardBeforeItsEcho() throws {
        let agent = speechLike(10 * rate, dbfs: -20, f0: 180, seed: 8)
        var mic = echo(of: agent, delayMs: [250], gainDb: -10)
        for (k, v) in noise(mic.count, dbfs: -65, seed: 9).enumerated() { mic[k] += v }
        let onset = try #require(referenceOnsets(agent).last { $0 > 500 && $0 + 60 < mic.count / 160 })
        let user = speechLike(rate / 2, dbfs: -26, f0: 120, seed: 10)
        let first = try #require(user.firstIndex { $0 != 0 })
        let start = onset * 160 - first
        for (k, v) in user.enumerated() { mic[start + k] += v }
        let run = try decide(mic, agent)
        #expect(!run[(onset - 100)..<onset].contains { $0.frame.speech }, "the echo alone is no speech")
        let heard = try #require(run[onset...].firstIndex { $0.frame.speech })
        #expect(heard - onset <= 8, "heard \((heard - onset) * 10) ms after the user's first sound")
        #expect(run[onset + 25].detail.onsetGuard, "the echo's onset is still guarded")
    }

    /// A delay whose correlation no longer stands out says nothing of when the echo comes: the room
    /// changed (350 → 100 ms at 11 s), or the delay was found on a user's words before he was heard
    /// (generated item 010_s3701: 300 ms found for 65). While the delay stands out the guard begins
    /// two frames before the echo is due; while it does not, at the reference's onset, until the
    /// delay moves.
    @Test func aDelayInDoubtGuardsFromTheReferencesOnset() throws {
        let agent = speechLike(20 * rate, dbfs: -20, f0: 210, seed: 3)
        var mic = echo(of: agent, delayMs: [Double](repeating: 350, count: 11) + [100], gainDb: -6)
        for (k, v) in noise(mic.count, dbfs: -65, seed: 4).enumerated() { mic[k] += v }
        let run = try decide(mic, agent)
        let onsets = referenceOnsets(agent)
        let old = { (k: Int) in run[k].detail.echoDelayFrames.map { abs($0 - 35) <= 1 } ?? false }
        let settled = onsets.filter { $0 > 300 && $0 < 1060 && old($0) }
        #expect(!settled.isEmpty)
        for k in settled {
            #expect(!run[k].detail.onsetGuard, "onset at frame \(k): the delay stands out")
            #expect(!run[k].detail.echoDelayInDoubt, "onset at frame \(k): the delay stands out")
            #expect(run[k + 34].detail.onsetGuard, "onset at frame \(k)")
        }
        let doubted = onsets.filter { $0 > 1100 && old($0) }
        #expect(!doubted.isEmpty, "the old delay still in use at an onset after the change")
        for k in doubted {
            #expect(run[k].detail.onsetGuard, "onset at frame \(k): the delay in doubt")
            #expect(run[k].detail.echoDelayInDoubt, "onset at frame \(k): the detail says the delay is in doubt")
        }
    }

    /// A loudspeaker's distortion puts sound into bands the reference leaves quiet, and it rings in
    /// the room after the reference stops (generated items 001_s2004, 006_s1703: 1000–3000 Hz
    /// 10–19 dB over the expected echo for three frames after a word). Here, in a dry room (the
    /// model learns that the echo stops with the reference), the echo's last frames hold 2 dB more
    /// than the expected echo and its margin in two bands (not enough to stand out: they are echo),
    /// and once the model's expectation falls away those bands fall 2 dB a frame (a room of RT60
    /// 300 ms): no speech. Without the ring they stood 10–20 dB over it (speech with seeds 31 and 33).
    @Test(arguments: [UInt64(31), 32, 33])
    func anEchoThatRingsOnOverTheModelIsNotSpeech(seed: UInt64) throws {
        // The agent stops in its last word's loudest syllable (the model's echo falls with it at once).
        var agent = speechLike(8 * rate, dbfs: -20, f0: 160, seed: seed) + [Float](repeating: 0, count: 2 * rate)
        let stop = try #require((7 * rate..<8 * rate).max { abs(agent[$0]) < abs(agent[$1]) })
        for k in stop..<agent.count { agent[k] = 0 }
        var analyzer = VADBandPairAnalyzer(sampleRate: rate, frameLength: 160)
        var far: [SIMD8<Double>] = []
        agent.withUnsafeBufferPointer { a in analyzer.process(mic: a, reference: a) { far.append($1) } }
        // The echo, band by band: 60 ms later, 3 dB down, over a floor at −75 dB.
        var mic = far.indices.map { k in
            VADBandFrame(bands: (k >= 6 ? far[k - 6] * pow(10, -0.3) : SIMD8()) + SIMD8(repeating: pow(10, -7.5)))
        }
        // Near the echo's end: 60 ms after the reference's last loud frame.
        let end = try #require(far.lastIndex { $0.max() > 1e-6 }) + 6
        var decider = try VADDecider(configuration: VADConfiguration())
        var detail = VADDecider.Detail()
        var speech: [Int] = []
        var ringing = SIMD8<Double>()
        var expectedBefore = -Double.infinity
        var rung = 0
        for k in mic.indices {
            if k >= end - 6 && rung < 12 {
                // What the model expects in this frame (a copy of the decider peeks): while it expects
                // the echo, 2 dB more than the echo and its margin in two bands; once its expectation
                // falls away (10 dB in a frame), those bands ring on.
                var probe = decider
                _ = probe.process(mic: mic[k], reference: far[k], detail: &detail)
                if rung == 0 && detail.echoes[4] > expectedBefore - 10 {
                    expectedBefore = detail.echoes[4]
                    for b in [4, 5] {
                        mic[k].bands[b] = pow(10, (detail.echoes[b] + detail.echoMargins[b] + 2) / 10)
                        ringing[b] = mic[k].bands[b]
                    }
                } else {
                    rung += 1
                    for b in [4, 5] {
                        ringing[b] *= pow(10, -0.2)
                        mic[k].bands[b] += ringing[b]
                    }
                }
            }
            if decider.process(mic: mic[k], reference: far[k], detail: &detail).speech { speech.append(k) }
        }
        #expect(speech.isEmpty, "speech at \(speech.prefix(5).map { "\(Double($0) / 100) s" })")
        // What was heard does not deafen the detector: a user who starts as the ring dies away (at
        // −40 dB a band, 20 dB under the echo's last frames) is heard within 40 ms.
        for k in (end + 14)..<(end + 60) {
            for b in 0..<6 { mic[k].bands[b] += 1e-4 }
        }
        var again = try VADDecider(configuration: VADConfiguration())
        let heard = mic.indices.map { again.process(mic: mic[$0], reference: far[$0]).speech }
        #expect(heard[..<(end + 14)].allSatisfy { !$0 })
        #expect(heard[(end + 14)...(end + 17)].contains(true), "the user heard within 40 ms")
    }

    /// An earcon after speech (a tone alone in one band) reaches the other bands through their
    /// filters' stopbands with the tone's own gain: the loudspeaker that cuts the agent's voice
    /// under 500 Hz by 20–40 dB passes a 700 Hz tone almost whole, and its leak into the bands under
    /// 300 Hz stood over their expected echo (before the leakage rules: speech 0.14 s into the 700
    /// and 1000 Hz tones); a 160 Hz tone, under the cut, taught the bands over 300 Hz its low gain,
    /// and the next words were the user's (speech 0.3 s into them). The echo alone
    /// is never speech — and a user who talks over the tone is still heard.
    @Test(arguments: [160.0, 700, 1000])
    func theEchoOfAToneIsNotTheUser(hz: Double) throws {
        let silence = [Float](repeating: 0, count: rate)
        let agent =
            speechLike(6 * rate, dbfs: -20, f0: 140, seed: 41) + silence + tone(hz, seconds: 2, dbfs: -16) + silence
            + speechLike(4 * rate, dbfs: -20, f0: 140, seed: 42)
        var mic = smallSpeaker(agent, cutHz: 500, delayMs: 60, gainDb: -6)
        for (k, v) in noise(mic.count, dbfs: -70, seed: 43).enumerated() { mic[k] += v }
        let run = try decide(mic, agent)
        let speech = run.indices.filter { run[$0].frame.speech }
        #expect(speech.isEmpty, "speech at \(speech.prefix(5).map { "\(Double($0) / 100) s" })")
        #expect(run[1000].detail.echoStage == .tracked)
        // A user from 7.5 s (the tone's middle; about 8 dB under the 700 and 1000 Hz tones' echo) is heard
        // within 60 ms.
        let user = speechLike(rate, dbfs: -30, f0: 120, seed: 44)
        for (k, v) in user.enumerated() { mic[15 * rate / 2 + k] += v }
        let talking = try decide(mic, agent)
        let first = try #require((750..<850).first { abs(user[($0 - 750) * 160]) > 0 })
        let heard = try #require((first..<850).first { talking[$0].frame.speech })
        #expect(heard - first <= 6, "heard \(10 * (heard - first)) ms after the user's first syllable")
        #expect(talking[..<first].allSatisfy { !$0.frame.speech })
    }

    /// The leakage table is what the steep filters pass: a tone at a band's centre, through the
    /// band analysis, shows in every other band within 1 dB of the table (where the filters pass
    /// more than −80 dB of it), at 16, 24 and 48 kHz. (The filters' analog design was 4–30 dB off at
    /// 16 kHz for the three top bands.)
    @Test(arguments: [16_000, 24_000, 48_000])
    func theLeakageTableIsWhatTheFiltersPass(sampleRate: Int) {
        let splits = VADBandPairAnalyzer.splitsHz
        let table = VADEchoModel.leakageTable(sampleRate: sampleRate)
        var compared = 0
        for k in 0..<8 {
            let low = k == 0 ? 80 : splits[k - 1]
            let high = k == 7 ? 8000 : splits[k]
            let centre = (low * high).squareRoot()
            let x = (0..<sampleRate).map { Float(0.3 * sin(2 * Double.pi * centre * Double($0) / Double(sampleRate))) }
            var analyzer = VADBandPairAnalyzer(sampleRate: sampleRate, frameLength: sampleRate / 100)
            var bands = SIMD8<Double>()
            var frames = 0
            x.withUnsafeBufferPointer { p in
                analyzer.process(mic: p, reference: p) { m, _ in
                    frames += 1
                    if frames > 20 { bands += m.bands }
                }
            }
            for b in 0..<8 where b != k && table[k][b] > -80 {
                let measured = 10 * log10(bands[b] / bands[k])
                #expect(
                    abs(measured - table[k][b]) <= 1, "band \(k) into \(b): \(measured) dB, table \(table[k][b]) dB")
                compared += 1
            }
        }
        #expect(compared >= 20)
    }
}
