import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// A triangle wave (period 40 samples) whose amplitude changes by section: quiet, loud, silence,
/// soft, very loud — integers, so any implementation sees the same samples.
private func sections() -> [Float] {
    let rate = 16_000.0
    return (0..<56_000).map { n in
        let t = Double(n) / rate
        let a = t < 0.5 ? 3 : t < 1.5 ? 800 : t < 2.0 ? 0 : t < 3.0 ? 40 : 2000
        let tri = (n % 40 < 20 ? n % 40 : 40 - n % 40) - 10
        return Float(tri * a) / 32768
    }
}

private func pipecatEdges(
    _ p: PipecatVADParameters, _ confidences: [Float], _ volumes: [Double], blocks: [Int]? = nil
) throws -> [FrameworkVADEdge] {
    var d = try PipecatVADDecider(p)
    var out: [FrameworkVADEdge] = []
    var at = 0
    for n in blocks ?? [confidences.count] {
        confidences[at..<at + n].withUnsafeBufferPointer { c in
            volumes[at..<at + n].withUnsafeBufferPointer { v in d.process(confidences: c, volumes: v) { out.append($0) }
            }
        }
        at += n
    }
    return out
}

private func liveKitEdges(_ p: LiveKitVADParameters, _ raw: [Float], blocks: [Int]? = nil) throws -> [FrameworkVADEdge]
{
    var d = try LiveKitVADDecider(p)
    var out: [FrameworkVADEdge] = []
    var at = 0
    for n in blocks ?? [raw.count] {
        raw[at..<at + n].withUnsafeBufferPointer { c in d.process(c) { out.append($0) } }
        at += n
    }
    return out
}

@Suite struct PipecatVolumeMeasure {
    /// Reference values: pipecat 1.14's AudioVolumeTracker and exp_smoothing (the `loudness`
    /// package's BS.1770 measure) over the same samples, window by window.
    @Test func matchesPipecatsOwnMeasureWindowByWindow() throws {
        var meter = try PipecatVolume(sampleRate: 16_000, windowSamples: 512)
        var volumes: [Double] = []
        sections().withUnsafeBufferPointer { meter.process($0) { volumes.append($0) } }
        #expect(volumes.count == 109)
        let expected: [Int: Double] = [
            11: 0.0, 12: 0.0877, 13: 0.15786, 20: 0.690821014272, 30: 0.8954409345393948, 46: 0.9234820600226242,
            47: 0.9228856480180994, 60: 0.5461536497536192, 70: 0.5998939091910708, 80: 0.6560143588581309,
            100: 0.9055844561135177, 108: 0.98271758058459,
        ]
        for (k, v) in expected { #expect(abs(volumes[k] - v) < 1e-9, "window \(k): \(volumes[k]), pipecat \(v)") }
    }

    @Test func isTheSameWhateverTheBlockSizes() throws {
        let x = sections()
        var whole = try PipecatVolume(sampleRate: 16_000, windowSamples: 512)
        var expected: [Double] = []
        x.withUnsafeBufferPointer { whole.process($0) { expected.append($0) } }
        var rng = TestRNG(seed: 33)
        for _ in 0..<4 {
            var meter = try PipecatVolume(sampleRate: 16_000, windowSamples: 512)
            var got: [Double] = []
            var at = 0
            for n in randomBlocks(total: x.count, maxBlock: 3000, rng: &rng) {
                x[at..<at + n].withUnsafeBufferPointer { meter.process($0) { got.append($0) } }
                at += n
            }
            #expect(got == expected)
        }
    }

    @Test func refusesRatesSileroDoesNotRunAt() {
        #expect(throws: AudioPipelineError.self) { try PipecatVolume(sampleRate: 44_100, windowSamples: 512) }
    }
}

@Suite struct PipecatDecision {
    @Test func secondsBecomeWindowsRoundedHalfToEvenAsPythonRounds() {
        var p = PipecatVADParameters()
        #expect(p.startWindows == 6)  // 0.2 / 0.032 = 6.25
        p.startSecs = 0.08  // 2.5 windows: Python's round gives 2
        #expect(p.startWindows == 2)
        p.startSecs = 0.112  // 3.5 windows: 4
        #expect(p.startWindows == 4)
    }

    /// start_secs 0.064 (2 windows), stop_secs 0.096 (3), chunks of 20 ms: a window's counts are
    /// checked once the chunk holding its end arrives, and the edge is reported at that chunk's end.
    @Test func startsAndStopsAfterTheirCountsAsThePublishedLogicSays() throws {
        var p = PipecatVADParameters()
        p.startSecs = 0.064
        p.stopSecs = 0.096
        let c: [Float] = [0.1, 0.9, 0.2, 0.9, 0.9, 0.9, 0.1, 0.1, 0.9, 0.1, 0.1, 0.1, 0.1]
        let v = [Double](repeating: 1, count: c.count)
        let edges = try pipecatEdges(p, c, v)
        // Window 1 alone falls back to QUIET at window 2; windows 3-4 confirm (start at window 4);
        // the dip at 6-7 is bridged by window 8; 9-11 end it (stop at window 11).
        #expect(edges == [.init(window: 4, started: true), .init(window: 11, started: false)])
    }

    @Test func theVolumeGateAndTheFloat32ThresholdDecideToo() throws {
        var p = PipecatVADParameters()
        p.startSecs = 0
        p.stopSecs = 0
        // 0.7 as float32 is just below 0.7: pipecat compares the model's float32 output in float32.
        let c: [Float] = [Float(0.7), 0.9, 0.1]
        #expect(try pipecatEdges(p, c, [1, 1, 1]).first == .init(window: 0, started: true))
        #expect(try pipecatEdges(p, c, [0.59, 0.59, 0.59]).isEmpty)  // below min_volume 0.6
    }

    @Test func chunksLongerThanAWindowCheckOnlyAtTheirEnd() throws {
        var p = PipecatVADParameters()
        p.startSecs = 0.064
        p.chunkSamples = 2048  // 4 windows per call
        let c: [Float] = [0.9, 0.9, 0.1, 0.1, 0.9, 0.9, 0.9, 0.1]
        // Windows 0-1 speak but the count is checked after window 3, by when it fell back to QUIET.
        #expect(try pipecatEdges(p, c, [Double](repeating: 1, count: c.count)).isEmpty)
    }

    @Test func edgesDoNotDependOnHowTheWindowsArrive() throws {
        var rng = TestRNG(seed: 7)
        let c = (0..<3000).map { _ in Float.random(in: 0...1, using: &rng) }
        let v = (0..<3000).map { _ in Double.random(in: 0.4...1, using: &rng) }
        var p = PipecatVADParameters()
        p.startSecs = 0.064
        let whole = try pipecatEdges(p, c, v)
        #expect(!whole.isEmpty)
        for _ in 0..<4 {
            #expect(try pipecatEdges(p, c, v, blocks: randomBlocks(total: c.count, maxBlock: 200, rng: &rng)) == whole)
        }
    }
}

@Suite struct LiveKitDecision {
    /// The plugin filters the model's output (p = 0.35·p + 0.65·raw): one window at 1.0 then zeros
    /// gives 1, 0.35, 0.1225, 0.043 … so with activation 0.3 and no minimum speech it starts at once,
    /// speaks two windows, and stops after two windows below the deactivation threshold (0.15).
    @Test func filtersThenCountsDurationsAsTheDocsSay() throws {
        var p = LiveKitVADParameters()
        p.activationThreshold = 0.3
        p.minSpeechDuration = 0
        p.minSilenceDuration = 0.064  // two windows of 32 ms
        let edges = try liveKitEdges(p, [1, 0, 0, 0, 0, 0])
        // Windows 2 (0.1225) and 3 (0.043) are silence: 0.032 + 0.032 reaches 0.064 at window 3.
        #expect(edges == [.init(window: 0, started: true), .init(window: 3, started: false)])
    }

    @Test func theDeactivationThresholdFollowsTheActivationUnlessGiven() {
        var p = LiveKitVADParameters()
        #expect(abs(p.effectiveDeactivation - 0.35) < 1e-12)
        p.activationThreshold = 0.1
        #expect(p.effectiveDeactivation == 0.01)
        p.deactivationThreshold = 0.05
        #expect(p.effectiveDeactivation == 0.05)
    }

    @Test func edgesDoNotDependOnHowTheWindowsArrive() throws {
        var rng = TestRNG(seed: 9)
        let c = (0..<3000).map { _ in Float.random(in: 0...1, using: &rng) }
        let whole = try liveKitEdges(LiveKitVADParameters(), c)
        #expect(!whole.isEmpty)
        for _ in 0..<4 {
            let blocks = randomBlocks(total: c.count, maxBlock: 200, rng: &rng)
            #expect(try liveKitEdges(LiveKitVADParameters(), c, blocks: blocks) == whole)
        }
    }
}
