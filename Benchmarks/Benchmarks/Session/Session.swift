// A whole barge-in conversation simulated offline (SessionSimulator, issue #19): ten minutes of an
// agent answering in 8-second responses at 24 kHz, a user talking over every second one, the
// default synthetic network (40 ms, no jitter), echo path and noise floor, the 48 kHz device and
// the openai-realtime profile; no output files (the library's in-memory run). Goal: ≤ 2 s per
// ten-minute conversation (300× realtime). The tracks are built once, before measurement. Not a
// hot-path stage: it keeps a few bytes per tick and builds each response's packet schedule, so it
// is exempt from the zero-allocation check ("(allocates)").

import AudioPipelineCore
import AudioPipelineWorkflows
import BenchSupport
import Benchmark
import Foundation

let benchmarks: @Sendable () -> Void = {
    configureDefaults(maxSeconds: 20)

    func voice(_ count: Int, rate: Int, f0: Double, level: Double) -> [Float] {
        (0..<count).map { k in
            let t = Double(k) / Double(rate)
            var v = 0.0
            for h in 1...6 { v += sin(2 * Double.pi * f0 * Double(h) * t) / Double(h) }
            return Float(v * (0.6 + 0.4 * sin(2 * Double.pi * 4 * t)) * level)
        }
    }

    func conversation(seconds: Int) throws -> (SessionConfiguration, SessionTracks) {
        var c = SessionConfiguration()
        c.agent = "in-memory"
        let agentRate = 24_000, deviceRate = c.deviceRate
        var agent = [Float](repeating: 0, count: seconds * agentRate)
        var user = [Float](repeating: 0, count: seconds * deviceRate)
        var speech: [SpeechSegment] = []
        let response = voice(6 * agentRate, rate: agentRate, f0: 110, level: 0.2)
        let reply = voice(deviceRate * 3 / 2, rate: deviceRate, f0: 210, level: 0.3)
        for (k, start) in stride(from: 1, to: seconds - 8, by: 8).enumerated() {
            agent.replaceSubrange(start * agentRate..<(start * agentRate + response.count), with: response)
            if k % 2 == 1 {
                let at = (start + 3) * deviceRate
                user.replaceSubrange(at..<(at + reply.count), with: reply)
                speech.append(SpeechSegment(start: Double(start + 3), end: Double(start + 3) + 1.5))
            }
        }
        let packets = SessionAgent.fromAudio(agent, rate: agentRate, configuration: c)
        return (c, SessionTracks(deviceRate: deviceRate, agent: packets, user: user, userSpeech: speech))
    }

    Benchmark(
        "Session simulate 10 min conversation AudioPipeline (allocates)",
        configuration: .init(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal], warmupIterations: 1, maxDuration: .seconds(20),
            maxIterations: 5)
    ) { benchmark in
        let (c, tracks) = try conversation(seconds: 600)
        let simulator = try SessionSimulator(configuration: c)
        benchmark.startMeasurement()
        let report = try simulator.run(tracks, outputDirectory: nil)
        benchmark.stopMeasurement()
        precondition(report.bargeIns.count >= 30, "the conversation has its barge-ins")
        blackHole(report)
    }
}
