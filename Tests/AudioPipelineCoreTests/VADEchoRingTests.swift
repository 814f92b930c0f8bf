import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// The ring rule with a reference (`VADDecider+EchoRing.swift`): a clink ringing down over the
/// agent's echo opens no speech; a voice whose first frames fall as much, but which stands out under
/// 300 Hz, is heard. Band frames built directly (`EchoBandFrames`), the agent talking throughout.
@Suite struct VADEchoRingTests {
    /// The agent's echo with `sound` from frame 400: per frame, its level (dBFS) in the bands of the
    /// range given, and its level under 300 Hz (bands 0–1) where `under300` has one.
    static func decided(_ sound: [(db: Double, bands: ClosedRange<Int>)], under300: [Double] = []) throws
        -> [(frame: VADDecider.Frame, detail: VADDecider.Detail)]
    {
        var frames = EchoBandFrames(count: 460, quietFrom: 460, seed: 71)
        for (k, s) in sound.enumerated() { frames.add(at: 400 + k, levelDb: s.db, bands: s.bands) }
        for (k, db) in under300.enumerated() { frames.add(at: 400 + k, levelDb: db, bands: 0...1) }
        return try frames.decided()
    }

    /// A clink (1–7 kHz, bands 4–7) at −30 dBFS a band, ringing down 1.5 dB a frame for 250 ms:
    /// its attack holds it a frame (`leadInRiseMax`), then every frame lies on its decay.
    @Test func aClinkRingingOverTheEchoOpensNoSpeech() throws {
        let ring: [(db: Double, bands: ClosedRange<Int>)] = (0..<25).map { (-30 - 1.5 * Double($0), 4...7) }
        let decided = try Self.decided(ring)
        #expect(decided[300..<400].allSatisfy { !$0.frame.speech }, "the echo alone is no speech")
        #expect(decided[400..<425].contains { $0.detail.declineWaited }, "no frame waited on the ring's decay")
        #expect(decided[400...].allSatisfy { !$0.frame.speech }, "the clink's ring opened speech")
    }

    /// A clink whose second frame is as loud as its first (its attack late in the first frame):
    /// the frame within `declineSlope` of the highest right after it holds the highest, and the
    /// ring's decay is read from there. And one whose partials beat, 3 dB up over the frame before
    /// every third frame on the way down (`ringRiseOverEcho`).
    @Test func aClinksFlatSecondFrameAndItsBeatsKeepItsDecay() throws {
        let down: [(db: Double, bands: ClosedRange<Int>)] = (0..<24).map { (-30.1 - 1.5 * Double($0), 4...7) }
        let flat = [(db: -30.0, bands: 4...7)] + down
        #expect(try Self.decided(flat)[400...].allSatisfy { !$0.frame.speech }, "the flat second frame opened speech")
        let beats: [(db: Double, bands: ClosedRange<Int>)] = (0..<25).map { k in
            let beat: Double = k > 0 && k % 3 == 0 ? 5 : 0
            let db: Double = -30 - 2 * Double(k) + beat
            return (db, 4...7)
        }
        #expect(try Self.decided(beats)[400...].allSatisfy { !$0.frame.speech }, "the beating ring opened speech")
    }

    /// A voice as abrupt, falling 1.5 dB from its first frame to its second and then holding, with
    /// its fundamental under 300 Hz (−20 dBFS there, 20 dB over the echo): heard within three frames,
    /// as before the rule. The same sound with nothing under 300 Hz is a ring by every test the rule
    /// has, and waits.
    @Test func aVoiceStandingOutUnder300HzIsHeardThoughItFalls() throws {
        let high = [(db: -30.0, bands: 2...7)] + Array(repeating: (db: -31.5, bands: 2...7), count: 40)
        let low = [-20.0] + Array(repeating: -21.5, count: 40)
        let decided = try Self.decided(high, under300: low)
        let heard = decided[400...].firstIndex { $0.frame.speech }
        #expect(heard.map { $0 <= 402 } == true, "the voice was heard at frame \(heard.map(String.init) ?? "never")")
        #expect(decided[400..<403].allSatisfy { !$0.detail.declineWaited })
        let highDecided = try Self.decided(high)
        #expect(highDecided[400..<403].contains { $0.detail.declineWaited }, "a fall with nothing under 300 Hz waited")
    }

    /// A run that begins under the frame before in its bands — a ring the echo-onset guard held
    /// back a frame, counted with that frame as its lead-in — reads the frame before as its
    /// highest: its first frame already lies on the decay. One that rises over the frame before
    /// starts its highest there.
    @Test func aRunBegunUnderTheFrameBeforeReadsItAsItsHighest() throws {
        var decider = try VADDecider(configuration: VADConfiguration())
        var reading = VADDecider.OnsetReading()
        reading.withReference = true
        reading.count = 8
        reading.above300 = 2
        reading.excess = SIMD8(-5, -5, 0, 0, 14, 16, 18, 17)
        let ring = power(-30.0)
        reading.powers = SIMD8(1e-9, 1e-9, 1e-9, 1e-9, ring, ring, ring, ring)
        reading.previousPowers = reading.powers * power(1.0)
        decider.startEchoRing(reading: reading, restart: false)
        #expect(decider.echoRing.bands == SIMD8(0, 0, 0, 0, 1, 1, 1, 1), "the bands over enter_db")
        #expect(abs(decider.echoRing.highest - (-30 + db(4.0) + 1)) < 1e-9, "the frame before's level")
        #expect(decider.echoRingDeclines(excess: reading.excess, above300: 2), "the first frame lay on no decay")
        reading.previousPowers = reading.powers * power(-1.0)
        decider.startEchoRing(reading: reading, restart: false)
        #expect(abs(decider.echoRing.highest - (-30 + db(4.0))) < 1e-9, "this frame's level")
        #expect(!decider.echoRingDeclines(excess: reading.excess, above300: 2))
    }

    /// With the onset check off (`onset_drop_db` 0) the ring opens speech as it did before the rule.
    @Test func theRuleIsOffWithTheOnsetCheck() throws {
        var frames = EchoBandFrames(count: 460, quietFrom: 460, seed: 71)
        for k in 0..<25 { frames.add(at: 400 + k, levelDb: -30 - 1.5 * Double(k), bands: 4...7) }
        var off = VADConfiguration()
        off.onsetDrop = 0
        #expect(try frames.decided(by: off)[400...].contains { $0.frame.speech })
    }
}
