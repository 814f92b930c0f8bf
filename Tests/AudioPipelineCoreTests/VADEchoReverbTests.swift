import Testing

@testable import AudioPipelineCore

/// The echo model's room tail: the decay measured in the agent's pauses, and the tail's level learnt
/// against the decay in use (VADEchoModel+Reverb.swift, VADEchoModel+Learning.swift).
struct VADEchoReverbTests {
    /// Words of 0.4 s at −20 dB per band and pauses of 0.5 s of digital silence; the echo six
    /// frames (60 ms) later, 6 dB down, and its tail falling `fall` dB a frame to noise at −65 dB.
    private static func playing(_ k: Int) -> Bool { k >= 0 && k % 90 < 40 }

    private static func mic(_ k: Int, fall: Double) -> SIMD8<Double> {
        var since = 0
        while since < 90 && !playing(k - 6 - since) { since += 1 }
        return SIMD8(repeating: max(-65, -26 - fall * Double(since)))
    }

    private static func reference(_ k: Int) -> SIMD8<Double> {
        SIMD8(repeating: playing(k) ? 1e-2 : 0)
    }

    /// The room's fall is measured: a tail falling 0.6 dB a frame (RT60 1 s) moves the decay from
    /// the configured room's (450 ms) to within a bin of the room's, and the model says so.
    @Test func aRoomThatRingsLongerIsMeasured() {
        var model = VADEchoModel(configuration: VADConfiguration())
        var last = VADEchoModel.Estimate()
        for k in 0..<1800 { last = model.update(mic: Self.mic(k, fall: 0.6), reference: Self.reference(k)) }
        #expect(abs(model.decay - 0.6) < 0.1, "decay \(model.decay) dB a frame")
        #expect(
            last.reverbMeasured && abs((last.reverbMilliseconds ?? 0) - 1000) < 200, "\(last.reverbMilliseconds ?? 0)")
    }

    /// When the measured fall moves the decay faster, the tail's level is learnt anew: offsets learnt
    /// against a slower tail stand under the direct path, and with the faster decay they would
    /// expect the room's tail that far too low (generated item 016_s4401: a slow early reading, the
    /// offsets 9–15 dB under, a false barge-in mid-utterance once the decay had moved). The state an
    /// early slow reading leaves is set here; the room's tail then falls 1.2 dB a frame (RT60 500 ms).
    @Test func aFasterDecayLearnsTheTailAnew() {
        var model = VADEchoModel(configuration: VADConfiguration())
        var primed = false
        var movedAt: Int?
        var checked = 0
        for k in 0..<3600 {
            let mic = Self.mic(k, fall: 1.2)
            if !primed && model.tailLearnt >= model.learnFrames && model.decayLearnt > VADEchoModel.decayEarlyFrames {
                model.decay = model.slowestDecay
                model.rebuildDecayedBlocks()
                for b in 0..<8 {
                    model.tailOffsets[b].reset()
                    for _ in 0..<400 { model.tailOffsets[b].add(-15) }
                }
                model.tailOffsetMax = SIMD8(repeating: -15)
                primed = true
            }
            let before = model.decay
            let e = model.update(mic: mic, reference: Self.reference(k))
            if primed && movedAt == nil && model.decay > before { movedAt = k }
            // The pauses' frames after the move where the room's tail stands 6 dB over the noise and
            // the direct path (any lag up to twelve frames) has left the microphone.
            guard movedAt != nil, e.stage == .tracked, (1...12).allSatisfy({ !Self.playing(k - $0) }),
                mic[0] > -59
            else { continue }
            checked += 1
            for b in 0..<8 {
                #expect(e.echo[b] >= mic[b] - 6, "frame \(k), band \(b): expected \(e.echo[b]) dB, mic \(mic[b]) dB")
            }
        }
        #expect(primed, "the tail never learnt")
        let moved = movedAt.map { "\($0)" } ?? "never"
        #expect(abs(model.decay - 1.2) < 0.15, "decay \(model.decay) dB a frame, moved at frame \(moved)")
        #expect(checked >= 50, "\(checked) pause frames after the move")
    }

    /// A measured fall that stands faster than the decay in use for fewer than `decayHoldFrames`
    /// learning frames in a row does not move it (a median flipping between two bins would move it,
    /// and forget the tail, every other frame); a slower one moves it on the frame it is measured.
    @Test func aFasterDecayWaitsForTheFallToHold() {
        var model = VADEchoModel(configuration: VADConfiguration())
        for b in 0..<8 {
            for _ in 0..<10 { model.micQuiet[b].add(-70) }
        }
        let parts = (direct: SIMD8<Double>(repeating: -140), tail: SIMD8<Double>(repeating: -30))
        let m = SIMD8<Double>(repeating: -30)
        let measured = { (model: VADEchoModel) in
            min(model.configuredDecay, max(model.slowestDecay, -model.decayFit.slope(or: 0)))
        }
        // A fall of 0.6 dB a frame, learnt.
        for _ in 0..<VADEchoModel.decayEarlyFrames {
            model.learnDecay(mic: m, change: SIMD8(repeating: -0.6), parts: parts)
        }
        #expect(abs(model.decay - 0.6) < 0.1, "decay \(model.decay)")
        // Faster changes: the median turns within the window, the decay one hold later.
        var turned: Int?
        var moves: [Int] = []
        for k in 0..<200 {
            let before = model.decay
            model.learnDecay(mic: m, change: SIMD8(repeating: -1.2), parts: parts)
            if turned == nil && measured(model) > 1.05 * before { turned = k }
            if model.decay != before { moves.append(k) }
        }
        let turnedAt = turned ?? 200
        #expect(moves == [turnedAt + VADEchoModel.decayHoldFrames - 1], "turned at \(turnedAt), moved at \(moves)")
        #expect(abs(model.decay - 1.2) < 0.1, "decay \(model.decay)")
        // Slower changes again: the decay follows the median down on the frame it turns.
        var followed = 0
        for _ in 0..<400 {
            let before = model.decay
            model.learnDecay(mic: m, change: SIMD8(repeating: -0.6), parts: parts)
            let slower = measured(model)
            if slower < 0.95 * before {
                #expect(model.decay == slower, "decay \(model.decay), measured \(slower)")
                followed += 1
            }
        }
        #expect(followed >= 1 && abs(model.decay - 0.6) < 0.1, "decay \(model.decay), followed \(followed)")
    }
}
