import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// Drives a JitterBuffer with the kit's tick model: deliver arrivals ≤ t, then pull one tick.
private final class Harness {
    struct Packet {
        var seq: Int64
        var utt: Int64
        var media: Int64
        var samples: [Float]
        var arrival: Int64
    }

    let jb: JitterBuffer
    var pending: [Packet] = []
    var output: [Float] = []
    /// (output position of the piece start, piece)
    var pieces: [(at: Double, piece: JitterBuffer.Piece)] = []
    var results: [Int64: JitterBuffer.PushResult] = [:]
    var flushes: [(time: Int64, through: Int64)] = []

    init(_ c: JitterBuffer.Configuration) throws {
        jb = try JitterBuffer(configuration: c)
    }

    func add(seq: Int64, utt: Int64 = 0, media: Int64, samples: [Float], arrival: Int64) {
        pending.append(Packet(seq: seq, utt: utt, media: media, samples: samples, arrival: arrival))
    }

    func tick() {
        pending.sort { ($0.arrival, $0.seq) < ($1.arrival, $1.seq) }
        while let p = pending.first, p.arrival <= jb.clock {
            pending.removeFirst()
            results[p.seq] = p.samples.withUnsafeBufferPointer {
                jb.push($0, sequence: p.seq, utterance: p.utt, media: p.media, arrival: p.arrival)
            }
        }
        while let f = flushes.first, f.time <= jb.clock {
            flushes.removeFirst()
            jb.flush(throughUtterance: f.through, time: f.time)
        }
        let start = Double(output.count)
        var tick = [Float](repeating: .nan, count: jb.configuration.tick)
        tick.withUnsafeMutableBufferPointer { jb.pull(into: $0) }
        output += tick
        for p in jb.lastPieces { pieces.append((start + p.outputStart, p)) }
    }

    func run(ticks: Int) { for _ in 0..<ticks { tick() } }

    /// Runs until everything has arrived and the queue is empty, plus `extra` ticks.
    func runToEnd(extra: Int = 2, limit: Int = 1_000_000) {
        var n = 0
        while (!pending.isEmpty || jb.queued > 0) && n < limit { tick(); n += 1 }
        run(ticks: extra)
    }
}

/// Rate 8 kHz, 10 ms ticks (80 samples), 20 ms packets (160 samples).
private func config(stretch: Bool = true, capacitySeconds: Double = 120) -> JitterBuffer.Configuration {
    var c = JitterBuffer.Configuration(sampleRate: 8000, tickMilliseconds: 10, capacitySeconds: capacitySeconds)
    c.timeStretch = stretch
    return c
}

/// A ramp: sample value = its media index (identifies every sample in the output).
private func ramp(_ media: Int64, _ n: Int) -> [Float] { (0..<n).map { Float(media + Int64($0)) } }
private func constant(_ n: Int) -> [Float] { [Float](repeating: 1, count: n) }

/// Media samples played, in output order, from the pieces.
private func playedMedia(_ h: Harness, packetMedia: (Int64) -> Int64) -> [Int64] {
    h.pieces.flatMap { p in (0..<p.piece.length).map { packetMedia(p.piece.sequence) + Int64(p.piece.offset + $0) } }
}

@Suite struct JitterBufferTests {
    @Test func inOrderAtConstantDelayPlaysEverySampleOnce() throws {
        let h = try Harness(config(stretch: false))
        for k in 0..<100 {
            h.add(
                seq: Int64(k), media: Int64(k * 160), samples: ramp(Int64(k * 160), 160), arrival: Int64(k * 160 + 400))
        }
        h.runToEnd()
        let s = h.jb.statistics
        #expect(s.samplesPlayed == 16_000 && s.samplesLate == 0 && s.samplesConcealed == 0 && s.underruns == 0)
        #expect(firstDifference(playedMedia(h) { $0 * 160 }, Array(0..<16_000)) == nil)
        // The output carries the samples unchanged between the fade-in and the fade-out.
        let start = Int(h.pieces[0].at)
        let fade = h.jb.configuration.fade
        let body = Array(h.output[(start + fade)..<(start + 16_000 - fade)])
        #expect(firstDifference(body, (fade..<(16_000 - fade)).map { Float($0) }) == nil)
        #expect(h.output[start] < Float(0 + 1) && h.output[start + 16_000 - 1] < Float(16_000 - 1) / 2)
        // Starts at first arrival + the initial jitter margin (no statistics yet), on the tick grid.
        #expect(start >= 400 + h.jb.configuration.initialTarget && start < 400 + h.jb.configuration.initialTarget + 80)
    }

    @Test func reorderedPacketsInTimeArePlayedInMediaOrder() throws {
        let h = try Harness(config(stretch: false))
        for k in 0..<50 {
            // Packets 10 and 11 (and 30, 31) swap places in arrival.
            let swap: Int64 = (k == 10 || k == 30) ? 30 : (k == 11 || k == 31) ? -30 : 0
            h.add(
                seq: Int64(k), media: Int64(k * 160), samples: ramp(Int64(k * 160), 160),
                arrival: Int64(k * 160 + 400) + swap)
        }
        h.runToEnd()
        #expect(firstDifference(playedMedia(h) { $0 * 160 }, Array(0..<8_000)) == nil)
        #expect(h.jb.statistics.samplesLate == 0)
    }

    @Test func tooLatePacketIsCountedAndNeverPlayedAndTheHoleIsJumped() throws {
        var c = config(stretch: false)
        c.holeWait = 0
        let h = try Harness(c)
        for k in 0..<60 {
            let arrival = Int64(k * 160 + 400) + (k == 20 ? 8000 : 0)  // packet 20 is a second late
            h.add(seq: Int64(k), media: Int64(k * 160), samples: ramp(Int64(k * 160), 160), arrival: arrival)
        }
        h.runToEnd()
        let s = h.jb.statistics
        #expect(h.results[20] == .late)
        #expect(s.packetsLate == 1 && s.samplesLate == 160)
        let played = playedMedia(h) { $0 * 160 }
        #expect(firstDifference(played, Array(0..<3200) + Array(3360..<9600)) == nil)
        // The delay (the 60 ms start margin) was above the jitter target, so the hole was jumped at
        // once: nothing concealed.
        #expect(s.underruns == 0 && s.samplesConcealed == 0)
    }

    @Test func duplicatePacketIsRefused() throws {
        let h = try Harness(config(stretch: false))
        for k in 0..<20 {
            h.add(
                seq: Int64(k), media: Int64(k * 160), samples: ramp(Int64(k * 160), 160), arrival: Int64(k * 160 + 400))
        }
        h.add(seq: 99, media: 5 * 160, samples: ramp(5 * 160, 160), arrival: 5 * 160 + 410)
        h.runToEnd()
        #expect(h.results[99] == .duplicate && h.jb.statistics.packetsDuplicate == 1)
        #expect(firstDifference(playedMedia(h) { $0 == 99 ? 800 : $0 * 160 }, Array(0..<3200)) == nil)
    }

    /// `packets` 20 ms packets of 1.0 arriving 50 ms after they were sent, except that from packet 20
    /// on nothing arrives for `stall` samples; then everything held up arrives at once.
    private func addStalled(_ h: Harness, packets: Int, stall: Int) {
        for k in 0..<packets {
            let arrival = k < 20 ? Int64(k * 160 + 400) : max(Int64(k * 160 + 400), Int64(20 * 160 + 400 + stall))
            h.add(seq: Int64(k), media: Int64(k * 160), samples: constant(160), arrival: arrival)
        }
    }

    @Test func stallConcealsWithFadesAndNoClicks() throws {
        var c = config(stretch: false)
        c.maximumStall = .max
        let h = try Harness(c)
        // 40 packets; from packet 20 on, everything is stuck for 300 ms (a TCP stall) and then arrives.
        addStalled(h, packets: 40, stall: 2400)
        h.runToEnd()
        let s = h.jb.statistics
        #expect(s.samplesLate == 0 && s.samplesPlayed == 6400)
        #expect(s.underruns == 1)
        // The 300 ms stall minus the margin the buffer had (its 60 ms start target, within a tick).
        let margin = h.jb.configuration.initialTarget
        #expect(s.samplesConcealed >= 2400 - margin - 80 && s.samplesConcealed <= 2400 - margin + 80)
        // A constant signal of 1.0: every step in the output is a fade step, never a jump.
        var largestStep: Float = 0
        for k in 1..<h.output.count { largestStep = max(largestStep, abs(h.output[k] - h.output[k - 1])) }
        #expect(largestStep <= 1 / Float(h.jb.configuration.fade) + 1e-6)
        // Silence in the middle of the stall.
        let firstGap = h.pieces.first { $0.piece.sequence == 20 }!.at
        #expect(h.output[Int(firstGap) - 1000] == 0)
    }

    @Test func aLongOutageStallsAtMostMaximumStallThenRunsOn() throws {
        var c = config(stretch: false)
        c.maximumStall = 800  // 100 ms
        let h = try Harness(c)
        // A 1 s outage from packet 20 on: everything behind it arrives at once afterwards.
        addStalled(h, packets: 100, stall: 8000)
        h.runToEnd()
        let s = h.jb.statistics
        // The stall is capped, the audio that was due meanwhile is late, the rest plays.
        #expect(s.samplesLate > 0 && s.samplesLate < 8000)
        #expect(s.samplesPlayed + s.samplesLate == 16_000)
        // Delay after the outage: at most the start delay + the cap + a tick, not the outage.
        let after = h.pieces.first { $0.piece.sequence >= 20 }!
        let delay = after.at - Double(after.piece.sequence * 160 + Int64(after.piece.offset))
        #expect(delay <= Double(400 + h.jb.configuration.initialTarget + 800 + 160))
    }

    @Test func flushStopsAtOnceDropsQueuedAndStaleAudioAndTheNextUtterancePlays() throws {
        let h = try Harness(config(stretch: false))
        // Utterance 0: a 5 s burst that arrives at once; the user interrupts 1 s in.
        for k in 0..<250 { h.add(seq: Int64(k), utt: 0, media: Int64(k * 160), samples: constant(160), arrival: 100) }
        h.flushes = [(time: 8000 + 35, through: 0)]
        // In flight when the cancel was sent: more of utterance 0, arriving after the flush (stale).
        for k in 250..<260 {
            h.add(seq: Int64(k), utt: 0, media: Int64(k * 160), samples: constant(160), arrival: 8100 + Int64(k))
        }
        // Utterance 1 starts 1 s after the flush.
        for k in 0..<50 {
            h.add(
                seq: Int64(1000 + k), utt: 1, media: 100_000 + Int64(k * 160), samples: constant(160),
                arrival: 16_000 + Int64(k * 160))
        }
        h.runToEnd()
        let s = h.jb.statistics
        #expect(s.flushes == 1 && s.packetsStale == 10)
        #expect((250...259).allSatisfy { h.results[Int64($0)] == .stale })
        // Nothing of utterance 0 plays more than `fade` samples after the flush tick's start.
        let lastOld = h.pieces.filter { $0.piece.sequence < 1000 }.map { $0.at + $0.piece.outputLength }.max()!
        #expect(lastOld <= Double(8080 + h.jb.configuration.fade) && lastOld >= 8000)
        #expect(s.samplesFlushed > 30_000)
        // Utterance 1 plays completely.
        #expect(h.pieces.filter { $0.piece.sequence >= 1000 }.reduce(0) { $0 + $1.piece.length } == 8000)
        #expect(s.samplesLate == 0 && s.packetsOverflow == 0)
    }

    @Test func flushFadeEndsWithinTheTailLimitOfTheFlushTime() throws {
        var c = config(stretch: false)
        c.tick = 160  // 20 ms ticks
        let h = try Harness(c)
        for k in 0..<100 { h.add(seq: Int64(k), media: Int64(k * 160), samples: constant(160), arrival: 100) }
        // Interrupted 19.9 ms before the next tick: only 0.1 ms of the 20 ms limit remains.
        h.flushes = [(time: 1600 - 159, through: 0)]
        h.runToEnd()
        let lastOld = h.pieces.map { $0.at + $0.piece.outputLength }.max()!
        #expect(lastOld <= 1600 + 1)
    }

    @Test func overflowIsCountedNeverSilent() throws {
        let h = try Harness(config(stretch: false, capacitySeconds: 0.5))
        for k in 0..<40 { h.add(seq: Int64(k), media: Int64(k * 160), samples: ramp(Int64(k * 160), 160), arrival: 10) }
        h.runToEnd()
        let s = h.jb.statistics
        let queued = h.results.values.filter { $0 == .queued }.count
        #expect(s.packetsOverflow > 0 && s.packetsOverflow + queued == 40)
        #expect(s.samplesOverflow == s.packetsOverflow * 160)
        #expect(s.maximumQueued <= 4000)
        #expect(s.samplesPlayed == queued * 160)
    }

    @Test func sixtySecondTTSBurstIsHeldAndPlayedAtNormalSpeed() throws {
        let h = try Harness(config(stretch: true))
        // 60 s of audio in 20 ms packets delivered within 300 ms.
        for k in 0..<3000 {
            h.add(
                seq: Int64(k), media: Int64(k * 160), samples: ramp(Int64(k * 160), 160),
                arrival: 2000 + Int64(k * 2400 / 3000))
        }
        h.runToEnd()
        let s = h.jb.statistics
        #expect(s.packetsOverflow == 0 && s.samplesLate == 0 && s.samplesConcealed == 0)
        #expect(s.samplesPlayed == 480_000)
        // Not sped up: at most the tick quantisation of the start is taken back.
        #expect(s.samplesRemoved <= 160, "removed \(s.samplesRemoved)")
        #expect(s.maximumQueued >= 470_000)
    }

    @Test func accelerateDrainsExcessDelaySmoothly() throws {
        let h = try Harness(config(stretch: true))
        // A 20 s utterance whose start is stuck until t = 4000 (a TCP stall: everything behind
        // waits): the buffer starts late, then the delay no packet needs is drained by accelerating.
        let n = 1000
        var signal = [Float](repeating: 0, count: n * 160)
        for i in signal.indices { signal[i] = 0.5 * Float(sin(2 * Double.pi * 200 * Double(i) / 8000)) }
        for k in 0..<n {
            let arrival = max(4000, Int64(k * 160 + 400))
            h.add(
                seq: Int64(k), media: Int64(k * 160), samples: Array(signal[(k * 160)..<(k * 160 + 160)]),
                arrival: arrival)
        }
        h.runToEnd()
        let s = h.jb.statistics
        #expect(s.samplesLate == 0)
        #expect(s.ticksAccelerated > 0 && s.samplesRemoved > 2000)
        // Every media sample is accounted for: played in some piece exactly once, in order.
        #expect(firstDifference(playedMedia(h) { $0 * 160 }, Array(0..<Int64(n * 160))) == nil)
        // Steps stay within what a cross-fade between similar waveforms gives (the sine's own
        // largest step is 0.079).
        let start = Int(h.pieces[0].at) + 20
        var largestStep: Float = 0
        for k in (start + 1)..<(start + n * 140) { largestStep = max(largestStep, abs(h.output[k] - h.output[k - 1])) }
        #expect(largestStep < 0.2)
        // Late in the utterance the delay is back near what the packets need (400 + margin).
        let last = h.pieces.last!
        let finalDelay = last.at - Double(last.piece.sequence * 160 + Int64(last.piece.offset))
        #expect(finalDelay < 400 + 300)
    }

    @Test func outputDoesNotDependOnPacketSizesWithTheFixedPolicy() throws {
        func run(packet: Int) throws -> [Float] {
            var c = config(stretch: false)
            c.policy = .fixed(delay: 480)
            let h = try Harness(c)
            var media = 0, seq: Int64 = 0
            while media < 16_000 {
                let m = min(packet, 16_000 - media)
                h.add(seq: seq, media: Int64(media), samples: ramp(Int64(media), m), arrival: 300 + Int64(media))
                media += m
                seq += 1
            }
            h.runToEnd()
            return h.output
        }
        let reference = try run(packet: 160)
        for size in [80, 57, 333, 1] {
            let other = try run(packet: size)
            #expect(firstDifference(other, reference) == nil, "packets of \(size) samples")
        }
    }

    @Test func invalidConfigurationsThrow() {
        var c = config()
        c.quantile = 1
        #expect(throws: AudioPipelineError.self) { try JitterBuffer(configuration: c) }
        c = config()
        c.tick = 0
        #expect(throws: AudioPipelineError.self) { try JitterBuffer(configuration: c) }
        c = config()
        c.capacity = 10
        #expect(throws: AudioPipelineError.self) { try JitterBuffer(configuration: c) }
        c = config()
        c.policy = .fixed(delay: -1)
        #expect(throws: AudioPipelineError.self) { try JitterBuffer(configuration: c) }
    }

    @Test func resetForgetsEverything() throws {
        let h = try Harness(config())
        for k in 0..<20 { h.add(seq: Int64(k), media: Int64(k * 160), samples: constant(160), arrival: 100) }
        h.run(ticks: 5)
        h.jb.reset(startTime: 0)
        #expect(h.jb.queued == 0 && h.jb.statistics == JitterBuffer.Statistics() && h.jb.clock == 0)
    }
}
