import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// Knocks and thumps: transients whose energy lasts 15–60 ms, two or three frames, decaying as
/// they go — longer than a keyboard click, which `onsetDrop` and the transient rule already catch.
/// Band frames built directly (exact quarter powers, which filtered audio blurs).
@Suite struct VADKnockTests {
    /// The decisions and details of the microphone's `frames`, without a reference.
    static func decide(_ frames: [VADBandFrame]) throws -> [(speech: Bool, detail: VADDecider.Detail)] {
        var decider = try VADDecider(configuration: VADConfiguration())
        var detail = VADDecider.Detail()
        return frames.map { frame in
            let f = decider.process(mic: frame, detail: &detail)
            return (f.speech, detail)
        }
    }

    /// With a reference, a run whose first frame rose more than `leadInRiseMax` over the frame
    /// before (a knock's attack, over the agent's echo) holds one frame more: a knock that holds its
    /// level two frames and is gone opens no speech, a voice that rises as abruptly and goes on is
    /// heard one frame later; one that rises less, at its second frame as before.
    @Test func aKnocksAttackOverTheEchoHoldsOneFrameMore() throws {
        // (From 600 Hz up: standing out under 1 kHz, as a voice does — `voiceUnder1k` holds a sound
        // only above it a frame more, the next test.)
        func frames(excessDb: Double, frames n: Int) -> EchoBandFrames {
            var f = EchoBandFrames(count: 420, quietFrom: 380, seed: 61)
            for k in 400..<(400 + n) { f.add(at: k, excessDb: excessDb, bands: 3...7) }
            return f
        }
        let knock = frames(excessDb: 20, frames: 2)
        let knockDecided = try knock.decided()
        #expect(knockDecided[300..<400].allSatisfy { !$0.frame.speech }, "the echo alone is no speech")
        #expect(knockDecided[401].detail.runFrames == 2 && knockDecided[401].detail.attackWaited)
        #expect(knockDecided[400...].allSatisfy { !$0.frame.speech }, "a knock of two frames opened speech")
        let voice = frames(excessDb: 20, frames: 20)
        let voiceDecided = try voice.decided()
        #expect(!voiceDecided[401].frame.speech && voiceDecided[402].frame.speech, "the voice heard at its third frame")
        let softer = frames(excessDb: 13, frames: 20)
        let softerDecided = try softer.decided()
        #expect(softerDecided[401].frame.speech && !softerDecided[401].detail.attackWaited, "heard at its second frame")
    }

    /// With a reference, a run of frames that stand out only above 1 kHz (no band under it
    /// `voiceUnder1k` over noise ⊕ echo: a knock on a desk, a keyboard click) holds one frame more:
    /// such a sound of two frames, rising less than `leadInRiseMax`, opens no speech; one that goes on
    /// (a word's hiss) is heard at its third frame; the same sound standing out from 600 Hz up, at its
    /// second.
    @Test func aSoundOnlyAbove1kHzOverTheEchoHoldsOneFrameMore() throws {
        func frames(frames n: Int, bands: ClosedRange<Int>) throws -> [(
            frame: VADDecider.Frame, detail: VADDecider.Detail
        )] {
            var f = EchoBandFrames(count: 420, quietFrom: 380, seed: 64)
            for k in 400..<(400 + n) { f.add(at: k, excessDb: 13, bands: bands) }
            return try f.decided()
        }
        let knock = try frames(frames: 2, bands: 6...7)
        #expect(knock[300..<400].allSatisfy { !$0.frame.speech }, "the echo alone is no speech")
        #expect(knock[401].detail.runFrames == 2 && knock[401].detail.highOnlyWaited, "held two frames, waited")
        #expect(!knock[401].detail.attackWaited, "not for its attack")
        #expect(knock[400...].allSatisfy { !$0.frame.speech }, "a knock only above 1 kHz opened speech")
        let hiss = try frames(frames: 20, bands: 6...7)
        #expect(!hiss[401].frame.speech && hiss[402].frame.speech, "a hiss that goes on heard at its third frame")
        let voice = try frames(frames: 2, bands: 3...7)
        #expect(voice[401].frame.speech && !voice[401].detail.highOnlyWaited, "heard at its second frame")
    }

    /// With a reference, a thump over the echo whose second frame keeps its score (its energy left
    /// for the band under 150 Hz, where the echo is weak) but lies `runFallUnderHighest` under its
    /// first in power over noise ⊕ echo and in level opens no speech; the same first frame followed
    /// by one as loud (a voice) is heard at its second frame.
    @Test func aThumpsFallOverTheEchoOpensNoSpeech() throws {
        // Frame 400: 14 dB over the echo at 150 Hz–3 kHz (a rise under `leadInRiseMax`); 401: 13 dB
        // under 150 Hz and 10 dB at 150–300 Hz — a score within `onsetDrop` of the first, about
        // 5 dB less power over the echo and 5 dB less level.
        var thumpFrames = EchoBandFrames(count: 412, quietFrom: 380, seed: 65)
        thumpFrames.add(at: 400, excessDb: 14, bands: 1...5)
        thumpFrames.add(at: 401, excessDb: 13, bands: 0...0)
        thumpFrames.add(at: 401, excessDb: 10, bands: 1...1)
        let thump = try thumpFrames.decided()
        #expect(thump[300..<400].allSatisfy { !$0.frame.speech }, "the echo alone is no speech")
        #expect(thump[401].detail.runFrames == 2 && thump[401].detail.fallWaited, "held two frames, waited")
        #expect(thump[400...].allSatisfy { !$0.frame.speech }, "the thump opened speech")
        var voiceFrames = EchoBandFrames(count: 412, quietFrom: 380, seed: 65)
        for k in 400...401 { voiceFrames.add(at: k, excessDb: 14, bands: 1...5) }
        let voice = try voiceFrames.decided()
        #expect(voice[401].frame.speech && !voice[401].detail.fallWaited, "the voice heard at its second frame")
    }

    /// With a reference, a knock whose decay falls more than `onsetDrop` after its first frame and
    /// then holds starts the run again; the new run is still the knock's and holds one frame more.
    @Test func aRunStartedAgainFromAKnockHoldsOneFrameMore() throws {
        var knock = EchoBandFrames(count: 420, quietFrom: 380, seed: 62)
        knock.add(at: 400, excessDb: 26)
        knock.add(at: 401, excessDb: 20)
        knock.add(at: 402, excessDb: 20)
        let decided = try knock.decided()
        #expect(decided[401].detail.onsetRestart, "the decay started the run again")
        #expect(decided[402].detail.runFrames == 2 && decided[402].detail.attackWaited)
        #expect(decided[400...].allSatisfy { !$0.frame.speech }, "the knock's restarted run opened speech")
    }

    /// Four bands over a noise floor of −80 dBFS each (within 0.3 dB from frame to frame), and from
    /// frame `lead` on the frames `sound` gives: its level in dB over the floor and its quarters'
    /// shares of the energy above 300 Hz.
    static func noisy(_ sound: [(db: Double, spread: SIMD4<Double>)], lead: Int = 300) -> [VADBandFrame] {
        var rng = TestRNG(seed: 63)
        var frames: [VADBandFrame] = []
        for k in 0..<(lead + sound.count + 30) {
            var bands = SIMD4<Double>()
            for b in 0..<4 { bands[b] = power(-80 + Double.random(in: -0.3...0.3, using: &rng)) }
            var quarters = SIMD4<Float>(repeating: Float(bands[1] + bands[2] + bands[3]))
            if k >= lead && k < lead + sound.count {
                let s = sound[k - lead]
                let extra = bands * power(s.db)
                bands += extra
                quarters += SIMD4<Float>(s.spread * 4 * (extra[1] + extra[2] + extra[3]))
            }
            frames.append(VADBandFrame(bands: bands, quarters: quarters))
        }
        return frames
    }

    /// Without a reference, a frame whose sound falls `decayFallWithoutReference` from its first
    /// quarter to its last and lies `decayUnderHighest` under the run's highest is a knock's decay
    /// and opens no speech; the run breaks on the next, lower frame. (A knock's second frame, no
    /// louder than its attack, waits on the attack — `attackWithoutReference` — so the decay is
    /// read at its third.) A voice whose second frame builds up is heard there.
    @Test func aKnocksDecayWithoutAReferenceOpensNoSpeech() throws {
        let even = SIMD4<Double>(repeating: 0.25)
        let falling = SIMD4<Double>(0.4, 0.3, 0.2, 0.1)  // 6 dB from the first quarter to the last
        let building = SIMD4<Double>(0.1, 0.2, 0.3, 0.4)
        let knock = try Self.decide(Self.noisy([(30, even), (29.5, even), (27.5, falling), (20, falling)]))
        #expect(knock[301].detail.attackWaited, "the knock's second frame waited on its attack")
        #expect(knock[302].detail.runFrames == 3 && knock[302].detail.decayWaited, "held three frames, waited")
        #expect(knock[295...].allSatisfy { !$0.speech }, "the knock opened speech")
        let voice = try Self.decide(Self.noisy([(30, even), (30, building)] + Array(repeating: (30, even), count: 20)))
        #expect(!voice[300].speech && voice[301].speech, "the voice heard at its second frame")
        // Falling as much through the frame but as loud as the run's highest: a voice's rise and
        // fall within a frame, not a decay.
        let loud = Array(repeating: (db: 30.0, spread: even), count: 10)
        let held = try Self.decide(Self.noisy([(30, even), (30, even), (30, falling)] + loud))
        #expect(!held[302].detail.decayWaited && held[302].speech, "a frame as loud as the run's highest waited")
    }

    /// Without a reference, a run's frames count as noise only once the run ends without speech. A
    /// word four frames into a stream, whose second and third frames decay and wait (four onset
    /// frames), is one segment, and the noise's own score through it is the noise's: taken into the
    /// median at once, its onset frames were half of what it held and the exit test chopped the word.
    @Test func aWordAtTheStartKeepsItsOnsetOutOfTheNoiseScore() throws {
        let even = SIMD4<Double>(repeating: 0.25)
        let falling = SIMD4<Double>(0.4, 0.3, 0.2, 0.1)
        let word = [(30.0, even), (27.5, falling), (27.5, falling)] + Array(repeating: (30.0, even), count: 11)
        let decided = try Self.decide(Self.noisy(word, lead: 4))
        // (The second frame waits on the attack — `attackWithoutReference` — the third on its decay.)
        #expect(decided[5].detail.attackWaited && decided[6].detail.decayWaited, "the decaying frames waited")
        #expect(decided[5...6].allSatisfy { !$0.speech })
        #expect(decided[7...17].allSatisfy { $0.speech }, "the word was chopped")
        #expect(decided[7...17].allSatisfy { $0.detail.noiseScore < 3 }, "the onset counted as noise")
    }

    /// Without a reference, a run whose first frame rose more than `attackWithoutReference` over the
    /// frame before (a clink's attack) holds one frame more unless its second frame builds up: a
    /// clink whose second frame is as loud as its first, then rings down, opens no speech (its third
    /// frame falls on the ring's decay). A voice as abrupt is heard at its second frame when that
    /// frame rises `attackRiseWithoutReference` or builds up through its quarters, else at its third.
    @Test func aClinksAttackWithoutAReferenceHoldsOneFrameMore() throws {
        let even = SIMD4<Double>(repeating: 0.25)
        let building = SIMD4<Double>(0.1, 0.2, 0.3, 0.4)
        let ring: [(db: Double, spread: SIMD4<Double>)] = (0..<29).map { (30.5 - 1.2 * Double($0), even) }
        let clink = try Self.decide(Self.noisy([(30, even)] + ring))
        #expect(clink[301].detail.attackWaited && !clink[301].speech, "the clink's second frame waited")
        #expect(clink[295...].allSatisfy { !$0.speech }, "the clink opened speech")
        let steady = Array(repeating: (db: 31.0, spread: even), count: 20)
        let rising = try Self.decide(Self.noisy([(30, even), (32.5, even)] + steady))
        #expect(rising[301].speech && !rising[301].detail.attackWaited, "a voice rising 2.5 dB heard at frame two")
        let built = try Self.decide(Self.noisy([(30, even), (30.5, building)] + steady))
        #expect(built[301].speech, "a voice building through its second frame heard there")
        let flat = try Self.decide(Self.noisy([(30, even), (30.5, even)] + steady))
        #expect(flat[301].detail.attackWaited && !flat[301].speech && flat[302].speech, "heard at its third frame")
    }

    /// Without a reference, a run that has only fallen since its highest — `declineSlope` a frame
    /// or more, no frame rising more than `declineRise` over the one before — opens no speech: a
    /// clink ringing down from 30 dB over the noise by 1.2 dB a frame never does, nor one whose
    /// partials beat (1 dB up every third frame on its way down). A voice whose third frame falls
    /// as much (its second waits on its attack, `attackWithoutReference`) waits one frame more and
    /// is heard at its fourth, which rises; one that rises 2.5 dB from its first frame, at its second
    /// as before; one that dips and rises 2.5 dB with its next syllable, there.
    @Test func aRingingSoundWithoutAReferenceOpensNoSpeech() throws {
        let even = SIMD4<Double>(repeating: 0.25)
        let clink = try Self.decide(Self.noisy((0..<30).map { (30 - 1.2 * Double($0), even) }))
        // (Its second frame waits on its attack, `attackWithoutReference`; its third on its decay.)
        #expect(clink[301].detail.attackWaited && clink[302].detail.declineWaited, "the ring's third frame waited")
        #expect(clink[295...].allSatisfy { !$0.speech }, "the ring opened speech")
        // Down 1.5 dB, 1.5 dB, up 1 dB: 2 dB every three frames.
        let cycle: [Double] = [0, 1.5, 3]
        let beats: [(db: Double, spread: SIMD4<Double>)] = (0..<30).map { k in
            let db = 30 - 2 * Double(k / 3) - cycle[k % 3]
            return (db, even)
        }
        #expect(zip(beats.dropFirst(), beats).contains { $0.0.db > $0.1.db }, "the beats rise")
        let beating = try Self.decide(Self.noisy(beats))
        #expect(beating[295...].allSatisfy { !$0.speech }, "the beating ring opened speech")
        let steady = Array(repeating: (db: 31.0, spread: even), count: 20)
        let voice = try Self.decide(Self.noisy([(30, even), (30.5, even), (29.3, even)] + steady))
        #expect(voice[302].detail.declineWaited && !voice[302].speech && voice[303].speech, "heard at its fourth frame")
        let rising = try Self.decide(Self.noisy([(27.5, even)] + Array(repeating: (30, even), count: 20)))
        #expect(rising[301].speech && !rising[301].detail.declineWaited, "heard at its second frame")
        let dip: [(db: Double, spread: SIMD4<Double>)] = [(30, even), (28.5, even), (26, even), (28.5, even)]
        let syllable = dip + Array(repeating: (30, even), count: 20)
        let next = try Self.decide(Self.noisy(syllable))
        // (Its second frame waits on the attack; the third, 4 dB under the highest, starts the run
        // again, keeping its decay; the fourth rises 2.5 dB over it.)
        #expect(next[301].detail.attackWaited && next[301...302].allSatisfy { !$0.speech }, "its dip waited")
        #expect(next[303].speech, "the syllable that rose 2.5 dB, under the ring's slope, was not heard")
        var off = VADConfiguration()
        off.onsetDrop = 0
        var decider = try VADDecider(configuration: off)
        let offFrames = Self.noisy((0..<30).map { (30 - 1.2 * Double($0), even) }).map { decider.process(mic: $0) }
        #expect(offFrames[301].speech, "with the onset check off the ring is heard as before")
    }
}
