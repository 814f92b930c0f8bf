import AudioPipelineAdapters
import AudioPipelineCore
import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineWorkflows

/// The session simulator streams its tracks: a run on tracks read from their files as the session
/// plays gives the same report and the same output files as a run on the whole signals loaded
/// into memory (as `SessionTracks.load` did before it streamed), whatever the tick; the readers give
/// the same samples whatever the block sizes; a long session's tracks are not held.
@Suite struct SessionStreaming {
    static let rate = 16_000

    /// Writes the conversation of `SessionSimulation` as files: the agent at 24 kHz (two
    /// responses), the user at 16 kHz talking over the first; the microphone of a recorded session
    /// (the agent's echo plus the user) and its reference at 8 kHz, shorter than the microphone.
    static func files(_ dir: TempDir) throws {
        let agentRate = 24_000
        var agent = SessionSimulation.place(
            SessionSimulation.voice(seconds: 3, rate: agentRate, f0: 110), at: 0.2, seconds: 8, rate: agentRate)
        for (i, v) in SessionSimulation.voice(seconds: 2, rate: agentRate, f0: 120).enumerated() {
            agent[5 * agentRate + i] = v
        }
        try writeWAV(agent, rate: agentRate, to: dir.file("agent.wav"))
        let user = SessionSimulation.place(
            SessionSimulation.voice(seconds: 1, rate: rate, f0: 210, level: 0.3), at: 1.5, seconds: 8, rate: rate)
        try writeWAV(user, rate: rate, to: dir.file("user.wav"))
        let played = SessionSimulation.place(
            SessionSimulation.voice(seconds: 3, rate: 8_000, f0: 110), at: 0.5, seconds: 6, rate: 8_000)
        try writeWAV(played, rate: 8_000, to: dir.file("ref.wav"))
        let echo = SessionSimulation.place(
            SessionSimulation.voice(seconds: 3, rate: rate, f0: 110, level: 0.06), at: 0.54, seconds: 8, rate: rate)
        try writeWAV(zip(echo, user).map { $0 + $1 }, rate: rate, to: dir.file("mic.wav"))
        try "1.5\t2.5\tspeech\n".write(toFile: dir.file("user.txt"), atomically: true, encoding: .utf8)
    }

    /// A synthetic session over a lossy, jittery network; with an arrival trace; a recorded one.
    enum Case: String, CaseIterable {
        case network, trace, recorded
    }

    static func configuration(_ dir: TempDir, _ kind: Case, tickMs: Double) throws -> SessionConfiguration {
        var c = SessionConfiguration()
        c.jitter.tickMs = tickMs
        switch kind {
        case .recorded:
            c.recorded = dir.file("mic.wav")
            c.reference = dir.file("ref.wav")
            c.userLabels = dir.file("user.txt")
        case .network, .trace:
            c.agent = dir.file("agent.wav")
            c.user = dir.file("user.wav")
            c.deviceRate = 44_100
            if kind == .network {
                c.network = NetworkConditions(delayMs: 60, jitterMs: 30, lossPercent: 3)
            } else {
                // Packets out of media order, overlapping, and past the audio's end.
                let rows = (0..<200).map { k in
                    let media = Double(k) * 40 + (k % 7 == 0 ? -30 : 0)
                    return "\(k),\(media),\(media + 50 + Double(k % 5) * 25),60,\(media),\(k / 100)"
                }
                try (["seq,send_ms,arrival_ms,duration_ms,media_ms,utt"] + rows).joined(separator: "\n")
                    .write(toFile: dir.file("trace.csv"), atomically: true, encoding: .utf8)
                c.trace = dir.file("trace.csv")
            }
        }
        return c
    }

    /// The tracks as `SessionTracks.load` made them before it streamed: every file whole in memory.
    static func wholeTracks(_ c: SessionConfiguration, profile: WireProfile) throws -> SessionTracks {
        if let recorded = c.recorded, let reference = c.reference {
            let mic = try AudioLoader.mono(path: recorded)
            let played = try AudioLoader.reference(path: reference, rate: mic.rate, length: mic.samples.count)
            let speech = try SessionTracks.readLabels(c.userLabels!, durationS: nil)
            return SessionTracks(deviceRate: mic.rate, user: mic.samples, reference: played.samples, userSpeech: speech)
        }
        let audio = try AudioLoader.mono(path: c.agent!, rate: profile.serverRate)
        let trace = try c.trace.map { try ArrivalTrace.readPackets(path: $0, sampleRate: profile.serverRate) }
        let agent = SessionAgent.fromAudio(audio.samples, rate: audio.rate, configuration: c, trace: trace)
        let user = try AudioLoader.mono(path: c.user!, rate: c.deviceRate).samples
        let speech = UserSpeech.derive(user, rate: c.deviceRate)
        return SessionTracks(deviceRate: c.deviceRate, agent: agent, user: user, userSpeech: speech)
    }

    @Test(arguments: Case.allCases, [5.0, 10, 20])
    func aStreamedRunEqualsTheRunOnWholeSignals(kind: Case, tickMs: Double) throws {
        let dir = TempDir()
        try Self.files(dir)
        let c = try Self.configuration(dir, kind, tickMs: tickMs)
        let simulator = try SessionSimulator(configuration: c)
        let streamed = try SessionTracks.load(c, profile: simulator.profile, holdLimit: 0)
        #expect(!streamed.user.isHeld && streamed.reference?.isHeld != true)
        if case .signal(let audio)? = streamed.agent?.audio { #expect(!audio.isHeld) }
        var a = try simulator.run(streamed, outputDirectory: dir.file("streamed"))
        var b = try simulator.run(
            try Self.wholeTracks(c, profile: simulator.profile), outputDirectory: dir.file("whole"))
        #expect(a.bargeIns.count >= 1 && a.messagesSent > 100)
        // The whole signals were loaded without the files' warnings (the reference's rate and length).
        #expect(a.warnings == streamed.warnings && b.warnings.isEmpty)
        #expect(kind != .recorded || a.warnings.contains { $0.contains("padded with silence") })
        a.output = nil
        a.warnings = []
        b.output = nil
        #expect(a == b)
        for file in ["heard.wav", "mic.wav", "sent.jsonl", "events.jsonl", "timeline.svg"] {
            let x = try Data(contentsOf: URL(fileURLWithPath: dir.file("streamed/" + file)))
            let y = try Data(contentsOf: URL(fileURLWithPath: dir.file("whole/" + file)))
            #expect(x == y, "\(file) differs")
        }
    }

    /// A file's signal read in blocks of any size (1 included) is `AudioLoader`'s whole signal,
    /// padded with silence or cut to the length asked for, then silence.
    @Test(arguments: [nil, 2_000, 120_000] as [Int?])
    func aSignalReadsTheWholeSignalWhateverTheBlocks(length: Int?) throws {
        let dir = TempDir()
        try Self.files(dir)
        let whole = try AudioLoader.mono(path: dir.file("ref.wav"), rate: Self.rate).samples
        let loaded = try SessionSignal.file(path: dir.file("ref.wav"), rate: Self.rate, length: length, holdLimit: 0)
        #expect(!loaded.signal.isHeld && loaded.signal.count == length ?? whole.count)
        var expected = Array(whole.prefix(length ?? whole.count))
        expected += [Float](repeating: 0, count: loaded.signal.count + 500 - expected.count)
        let levels = FrameLevels.of(Array(expected.prefix(loaded.signal.count)), rate: Self.rate)
        #expect(loaded.signal.frameLevels(rate: Self.rate).dbfs == levels.dbfs)
        var rng = SplitMix64(seed: 7)
        for blocks in [[1], [7, 1, 480, 3], [4096]] {
            let reader = try loaded.signal.reader()
            var got: [Float] = []
            var k = 0
            while got.count < expected.count {
                var block = [Float](repeating: .nan, count: min(blocks[k % blocks.count], expected.count - got.count))
                try block.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
                got += block
                k += Int(rng.next() % 2)
            }
            #expect(got == expected, "blocks \(blocks)")
        }
    }

    /// The agent's packets get the samples cut from the whole audio, in any arrival order the
    /// window serves (reordered, overlapping, before and after the audio).
    @Test func theWindowGivesEachPacketItsSamples() throws {
        let audio = (0..<50_000).map { Float($0 % 1_000) / 1_000 }
        var rng = SplitMix64(seed: 3)
        var packets: [(start: Int, count: Int)] = (0..<400).map { k in
            (start: k * 130 - 300 + Int(rng.next() % 900), count: 1 + Int(rng.next() % 400))
        }
        packets.swapAt(10, 40)
        var keepFrom = [Int](repeating: 0, count: packets.count)
        var earliest = Int.max
        for i in packets.indices.reversed() {
            earliest = min(earliest, packets[i].start)
            keepFrom[i] = earliest
        }
        let window = try AgentAudioWindow(SessionSignal(audio))
        var out: [Float] = []
        for (i, p) in packets.enumerated() {
            try window.samples(start: p.start, count: p.count, keepFrom: keepFrom[i], into: &out)
            let expected = (p.start..<(p.start + p.count)).map { $0 >= 0 && $0 < audio.count ? audio[$0] : 0 }
            #expect(out == expected, "packet \(i) at \(p.start)")
        }
    }

    /// A captured session's packets, read again as they fall due, carry each message's audio.
    @Test func aCapturedSessionsPacketsCarryTheirMessagesAudio() throws {
        let path = samples + "agent-session.jsonl"
        var o = DeframeOptions()
        o.profile = nil
        let agent = try SessionAgent.fromSession(path: path, options: o)
        var messages: [[Int16]] = []
        _ = try SessionWalk(input: path, options: o, needsTimes: true).run { event in
            if case .audio(let samples, _, _, _, _) = event { messages.append(samples) }
        }
        var delivered: [AgentPacket] = []
        var widener = Int16ToFloat32Converter()
        try agent.forEachPacket { p, samples in
            delivered.append(p)
            let message = messages[Int(p.sequence)]
            var expected = [Float](repeating: 0, count: message.count)
            message.withUnsafeBufferPointer { m in
                expected.withUnsafeMutableBufferPointer { _ = widener.process(m, into: $0) }
            }
            #expect(samples == expected, "message \(p.sequence)")
        }
        #expect(delivered == agent.packets && delivered.count == messages.count)
    }

    /// A ten-minute session: no track is held, the agent's schedule holds no audio; its files are
    /// measured (length, speech) all the same.
    @Test func aLongSessionsTracksAreReadAsItPlays() throws {
        let dir = TempDir()
        let second = SessionSimulation.voice(seconds: 1, rate: 24_000, f0: 110)
        let silence = [Float](repeating: 0, count: 24_000)
        for (name, rate) in [("agent.wav", 24_000), ("user.wav", Self.rate)] {
            let out = try AudioOutput(
                path: dir.file(name), type: .wav, encoding: .pcm16,
                format: try StreamFormat(sampleRate: try SampleRate(rate), channels: 1))
            for s in 0..<600 {
                let talk = name == "agent.wav" ? s % 10 < 6 : s % 20 == 14
                try (talk ? second : silence).withUnsafeBufferPointer {
                    try out.write(UnsafeBufferPointer(rebasing: $0[0..<rate]))
                }
            }
            try out.commit()
        }
        var c = SessionConfiguration()
        c.agent = dir.file("agent.wav")
        c.user = dir.file("user.wav")
        c.deviceRate = Self.rate
        let tracks = try SessionTracks.load(c, profile: try ProfileLoader.load(c.profile))
        #expect(!tracks.user.isHeld && tracks.user.count == 600 * Self.rate)
        let agent = try #require(tracks.agent)
        if case .signal(let audio) = agent.audio { #expect(!audio.isHeld && audio.count == 600 * 24_000) }
        #expect(agent.responses == 60 && tracks.userSpeech.count == 30)
    }

    /// The loudspeaker's volume changes part-way (`volumeChangeS`, `volumeChangeDb`): the echo of
    /// what plays from then on is that much louder, what played before is not, and the block sizes
    /// it is played in do not matter.
    @Test(arguments: [160, 997])
    func theVolumeChangesTheEchoFromItsTime(block: Int) throws {
        var e = EchoSettings()
        e.smallSpeaker = false
        e.delayMs = 0
        e.gainDb = -10
        e.volumeChangeS = 1
        e.volumeChangeDb = 12
        try e.validate()
        var room = SessionRoom(settings: e, rate: 16_000, impulseResponse: nil, noiseDbfs: nil, seed: 1)
        let played = (0..<32_000).map { Float(0.1 * sin(Double($0) * 0.3)) }
        var echo = [Float](repeating: 0, count: played.count)
        var done = 0
        while done < played.count {
            let n = min(block, played.count - done)
            played.withUnsafeBufferPointer { p in
                echo.withUnsafeMutableBufferPointer { o in
                    room.echo(
                        UnsafeBufferPointer(rebasing: p[done..<(done + n)]),
                        into: UnsafeMutableBufferPointer(rebasing: o[done..<(done + n)]))
                }
            }
            done += n
        }
        func db(_ r: Range<Int>) -> Double {
            10 * log10(r.reduce(0.0) { $0 + Double(echo[$1] * echo[$1]) } / Double(r.count))
        }
        let before = db(1_000..<15_000), after = db(17_000..<31_000)
        #expect(abs(after - before - 12) < 0.1, "\(before) → \(after) dB")
        #expect(abs(before - (-10 - 23)) < 0.2, "the gain before the change: \(before) dB")
        e.volumeChangeDb = 61
        #expect(throws: AudioPipelineError.self) { try e.validate() }
    }
}
