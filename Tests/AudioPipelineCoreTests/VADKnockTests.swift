import AudioPipelineCore
import Testing
import _AudioPipelineTestSupport

/// Knocks and thumps over the agent's echo: transients whose energy lasts 15–60 ms, two or three
/// frames, decaying as they go — longer than a keyboard click, which `onsetDrop` and the transient
/// rule already catch. Band frames built directly (`EchoBandFrames`: exact quarter powers, which
/// filtered audio blurs).
@Suite struct VADKnockTests {
    /// With a reference, a run whose first frame rose more than `leadInRiseMax` over the frame
    /// before (a knock's attack, over the agent's echo) holds one frame more: a knock that holds its
    /// level two frames and is gone opens no speech, a voice that rises as abruptly and goes on is
    /// heard one frame later; one that rises less, at its second frame as before.
    @Test func aKnocksAttackOverTheEchoHoldsOneFrameMore() throws {
        func frames(excessDb: Double, frames n: Int) -> EchoBandFrames {
            var f = EchoBandFrames(count: 420, quietFrom: 380, seed: 61)
            for k in 400..<(400 + n) { f.add(at: k, excessDb: excessDb) }
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
}
