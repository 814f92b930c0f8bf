import AudioPipelineBench
import AudioPipelineCore
import Foundation
import Testing

/// A row with the given p50 and spread (other figures derived), for budget and comparison tests.
func row(_ name: String, p50: Double, spread: Double = 0.01, peerOf: String? = nil) -> BenchRow {
    var r = BenchRow(
        name: name, description: "", p50: p50, p90: p50 * 1.1, p99: p50 * 1.5, p999: p50 * 2, max: p50 * 3,
        mean: p50, allocationsPerChunk: 0, cpuNsPerChunk: p50, coreShare: p50 / 2e7, realtime: 2e7 / p50,
        chunksPerSecond: 1e9 / p50, chunks: 1000, batch: 1, spread: spread, overheadNs: 40)
    r.peerOf = peerOf
    return r
}

func report(mic: Double = 2000, speaker: Double = 1800, spread: Double = 0.01, settings: [String: String] = [:])
    -> BenchReport
{
    let micPath = BenchPath(
        chunkMilliseconds: 20, description: "mic", total: row("total", p50: mic, spread: spread),
        stages: [row("resample", p50: mic * 0.8, spread: spread), row("vad", p50: 600, spread: spread)],
        peers: [row("ios-code", p50: 80_000, spread: spread, peerOf: "total")])
    let speakerPath = BenchPath(
        chunkMilliseconds: 20, description: "speaker", total: row("total", p50: speaker, spread: spread),
        stages: [row("decode", p50: 200, spread: spread)], peers: [])
    return BenchReport(
        machine: BenchMachine.current(), settings: settings,
        timer: .init(resolutionNs: 20, readNs: 20, micOverheadNs: 40, micOverheadShare: 0.02, allocationsCounted: true),
        paths: .init(mic: micPath, speaker: speakerPath), peakMemoryBytes: 1 << 20, seconds: 1, warnings: [])
}

@Suite struct BenchBudgetTests {
    @Test func readsPathsStagesStatisticsAndUnits() throws {
        let b = try BenchBudget.parse("mic.p99<1ms, speaker.decode.p50<500ns,mic.p99.9<2.5us,speaker.max<1s")
        #expect(b.map(\.path) == ["mic", "speaker", "mic", "speaker"])
        #expect(b.map(\.stage) == [nil, "decode", nil, nil])
        #expect(b.map(\.statistic) == ["p99", "p50", "p999", "max"])
        #expect(b.map(\.limitNs) == [1e6, 500, 2500, 1e9])
        #expect(try BenchBudget.parse("mic.vad.p90<3µs")[0].limitNs == 3000)
    }

    @Test func refusesWhatItCannotRead() {
        for bad in [
            "mic.p99", "mic.p99<", "mic<1ms", "phone.p99<1ms", "mic.p42<1ms", "mic.decode.p50<1ms",
            "mic.p99<1", "mic.p99<0ms", "mic.p99<-1ms", "mic.p99<nanms", "mic.p99<1e400ms", "mic.p99<1h",
            "mic.p99<<1ms", "", "mic.p99<1ms,", "mic.resample.vad.p99<1ms",
        ] {
            #expect(throws: AudioPipelineError.self, "\(bad)") { try BenchBudget.parse(bad) }
            do { _ = try BenchBudget.parse(bad) } catch {
                #expect(error.code == .invalidConfiguration)
                #expect(error.message.contains("--budget"), "\(error.message)")
            }
        }
    }

    @Test func failsOnlyTheBudgetsExceeded() throws {
        let r = report(mic: 2000, speaker: 1800)
        // mic p99 = 3000 ns, speaker p50 = 1800 ns, mic.resample p50 = 1600 ns
        let budgets = try BenchBudget.parse("mic.p99<2us,speaker.p50<2us,mic.resample.p50<1us,mic.p99<4us")
        let failures = BenchBudget.failures(budgets, in: r)
        #expect(failures.count == 2)
        #expect(failures[0].hasPrefix("mic.p99<2us: 3.00 µs"))
        #expect(failures[1].hasPrefix("mic.resample.p50<1us"))
        // A stage this run did not measure fails rather than passes.
        let missing = BenchBudget.failures(try BenchBudget.parse("mic.quantise.p50<1ms"), in: r)
        #expect(missing == ["mic.quantise.p50<1ms: not measured with these settings"])
    }
}

@Suite struct BenchComparisonTests {
    @Test func flagsOnlyChangesBeyondTheRunsSpread() {
        let base = report(mic: 2000, speaker: 1800, spread: 0.03)
        // mic +15 % (beyond 3 % and the 10 % floor): a regression; speaker +2 % (within): noise.
        let slower = report(mic: 2300, speaker: 1836, spread: 0.03)
        let c = BenchComparison(base: base, new: slower)
        #expect(c.regressions.map(\.key).contains("mic.total"))
        #expect(!c.regressions.map(\.key).contains("speaker.total"))
        #expect(c.changes.first { $0.key == "speaker.total" }?.flagged == false)
        #expect(c.text.contains("REGRESSION"))
        // The same change inside a noisy run's spread is not flagged.
        let noisy = BenchComparison(base: report(spread: 0.3), new: report(mic: 2300, speaker: 1800, spread: 0.3))
        #expect(noisy.regressions.isEmpty)
        #expect(noisy.text.contains("no regression"))
    }

    @Test func fasterIsNotARegressionAndPeersNeverAre() {
        var new = report(mic: 1500, speaker: 1800)
        new.paths.mic.peers[0].p50 = 200_000  // the peer got slower: not ours
        let c = BenchComparison(base: report(), new: new)
        #expect(c.regressions.isEmpty)
        #expect(c.changes.first { $0.key == "mic.total" }?.flagged == true)
        #expect(c.changes.first { $0.key == "mic.peer:ios-code" }?.regression == false)
    }

    @Test func saysWhenTheRunsMeasuredDifferentThings() {
        var new = report(settings: ["profile": "atoms"])
        new.paths.speaker.stages = []
        let c = BenchComparison(base: report(settings: ["profile": "openai-realtime"]), new: new)
        #expect(c.settingsDiffer == ["profile: openai-realtime → atoms"])
        #expect(c.unmatched == ["speaker.decode"])
    }
}

@Suite struct BenchMeasureTests {
    @Test func nearestRankPercentiles() {
        let v = (1...1000).map(Double.init)
        #expect(BenchMeasure.percentile(v, 0.5) == 500)
        #expect(BenchMeasure.percentile(v, 0.99) == 990)
        #expect(BenchMeasure.percentile(v, 0.999) == 999)
        #expect(BenchMeasure.percentile(v, 1) == 1000)
        #expect(BenchMeasure.percentile([7], 0.5) == 7)
    }

    @Test func batchesChunksWhenTheClockIsCoarseForTheStage() {
        // A clock with a 10 µs step cannot time a ~100 ns body alone: samples batch many chunks.
        let coarse = BenchMeasure(iterations: 20_000, secondsPerRow: 0, warmup: 100, resolutionNs: 10_000, readNs: 20)
        var n = 0
        let r = coarse.run("tiny", "", chunkSeconds: 0.02) { for k in 0..<50 { n &+= k } }
        #expect(r.batch >= 50)
        #expect(r.chunks >= 20_000 - r.batch * 5)
        let fine = BenchMeasure(iterations: 2000, secondsPerRow: 0, warmup: 100, resolutionNs: 1, readNs: 0.01)
        let slow = fine.run("slow", "", chunkSeconds: 0.02) { usleep(50) }
        #expect(slow.batch == 1)
        #expect(slow.p50 >= 50_000)
        #expect(slow.p50 <= slow.p90 && slow.p90 <= slow.p99 && slow.p99 <= slow.p999 && slow.p999 <= slow.max)
    }

    @Test func countsAllocationsInProcessWhereItCan() {
        #if canImport(Glibc)
            // This test target links the interposer: counting is on unless a sanitizer has the allocator.
            #expect(BenchClock.countsAllocations || BenchClock.isSanitizedBuild)
        #endif
        guard BenchClock.countsAllocations else { return }
        let m = BenchMeasure(iterations: 1000, secondsPerRow: 0, warmup: 10, resolutionNs: 20, readNs: 20)
        let allocating = m.run("array", "", chunkSeconds: 0.02) { blackHole([Int](repeating: 1, count: 64)) }
        #expect(allocating.allocationsPerChunk == 1)
        let buffer = UnsafeMutablePointer<Int>.allocate(capacity: 64)
        defer { buffer.deallocate() }
        let quiet = m.run("none", "", chunkSeconds: 0.02) { buffer.update(repeating: 2, count: 64) }
        #expect(quiet.allocationsPerChunk == 0)
    }
}

@inline(never) func blackHole<T>(_ x: T) { withExtendedLifetime(x) {} }

@Suite struct BenchRunTests {
    func settings(_ profile: WireProfile.BuiltIn) throws -> BenchSettings {
        var s = BenchSettings(profile: try .builtIn(profile), profileName: profile.rawValue)
        (s.iterations, s.warmup, s.repeats) = (200, 20, 2)
        return s
    }

    @Test func measuresEveryStageOfBothPaths() throws {
        var s = try settings(.openaiRealtime)
        s.withReference = true
        let r = try BenchRun.run(s)
        #expect(r.paths.mic.total != nil && r.paths.speaker.total != nil)
        #expect(r.paths.mic.stages.map(\.name) == ["convert", "resample", "quantise", "chunk+frame", "vad"])
        #expect(r.paths.speaker.stages.map(\.name) == ["decode", "widen", "jitter", "convert"])
        #expect(r.paths.mic.stages.map(\.name).dropFirst() == BenchBudget.stages["mic"]![...].dropFirst())
        for (key, row) in r.rows {
            #expect(row.p50 > 0 && row.p50 <= row.p90 && row.p90 <= row.p99 && row.p99 <= row.p999, "\(key)")
            #expect(row.p999 <= row.max, "\(key)")
            #expect(row.chunks >= 200 - 2 * row.batch, "\(key)")
            #expect((row.allocationsPerChunk != nil) == r.timer.allocationsCounted, "\(key)")
        }
        // Without libsamplerate given, the peers are the Foundation ones; every ratio is set.
        #expect(r.paths.mic.peers.map(\.peerOf) == ["quantise", "chunk+frame", "chunk+frame"])
        #expect(r.paths.mic.peers.allSatisfy { ($0.ratio ?? 0) > 0 })
        #expect(r.settings["withReference"] == "true")
    }

    @Test func theJSONHasEveryLatencyEntryAndNullWhenNotMeasured() throws {
        let r = try BenchRun.run(try settings(.atoms))
        let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(r)) as? [String: Any]
        let paths = try #require(json?["paths"] as? [String: Any])
        #expect(json?["machine"] is [String: Any])
        for name in ["mic", "speaker"] {
            let path = try #require(paths[name] as? [String: Any])
            let stages = try #require(path["stages"] as? [[String: Any]])
            for entry in [try #require(path["total"] as? [String: Any])] + stages {
                for key in ["p50", "p90", "p99", "p999", "max"] { #expect(entry[key] is Double, "\(key)") }
                #expect(entry.keys.contains("allocationsPerChunk"))
            }
        }
        var noCount = r
        noCount.paths.mic.stages[0].allocationsPerChunk = nil
        let text = String(decoding: try JSONEncoder().encode(noCount), as: UTF8.self)
        #expect(text.contains(#""allocationsPerChunk":null"#))
        let back = try JSONDecoder().decode(BenchReport.self, from: try JSONEncoder().encode(noCount))
        #expect(back.paths.mic.stages[0].allocationsPerChunk == nil)
        #expect(back.paths.mic.total?.p50 == r.paths.mic.total?.p50)
    }

    @Test func aBinaryProfileSaysItsSpeakerPathWasNotMeasured() throws {
        let r = try BenchRun.run(try settings(.deepgram))
        #expect(r.paths.mic.total != nil)
        #expect(r.paths.speaker.total == nil)
        #expect(r.paths.speaker.note?.contains("not measured") == true)
        #expect(BenchText.render(r).contains("not measured"))
    }

    @Test func everyBuiltInJSONProfileDecodesOnTheFastPath() throws {
        for p in [WireProfile.BuiltIn.openaiRealtime, .geminiLive, .datagrid, .atoms] {
            var s = try settings(p)
            s.peers = false
            let r = try BenchRun.run(s)
            // The fast path allocates nothing in an optimised build; the fallback parse would.
            #if !DEBUG
                let counted = r.timer.allocationsCounted
            #else
                let counted = false
            #endif
            if counted {
                #expect(r.paths.speaker.stages.first { $0.name == "decode" }?.allocationsPerChunk == 0, "\(p)")
            }
            #expect(r.paths.speaker.total != nil, "\(p)")
        }
    }

    @Test func refusesImpossibleSettings() throws {
        for change in [
            { (s: inout BenchSettings) in s.chunkMilliseconds = 0 }, { $0.deviceRate = 0 }, { $0.deviceChannels = 0 },
            { $0.seconds = .nan }, { $0.iterations = 0 }, { $0.chunkMilliseconds = .infinity }, { $0.warmup = -1 },
        ] {
            var s = try settings(.openaiRealtime)
            change(&s)
            #expect(throws: AudioPipelineError.self) { try BenchRun.run(s) }
        }
    }

    @Test func warnsAboutANoisyRun() {
        var r = report(spread: 0.01)
        r.paths.speaker.total?.spread = 0.35
        let w = BenchRunWarnings.of(r)
        #expect(w.contains { $0.contains("speaker.total") && $0.contains("35 %") })
        #expect(!w.contains { $0.contains("mic.total") })
    }
}

@Suite struct BenchReadmeExample {
    /// The README's on-device test, as written there (but for a shorter run).
    @Test func hotPathFitsOnThisDevice() throws {
        var settings = BenchSettings(profile: try .builtIn(.openaiRealtime), profileName: "openai-realtime")
        (settings.deviceRate, settings.seconds, settings.withReference) = (48_000, 0.5, true)
        let report = try BenchRun.run(settings)
        #expect(BenchText.render(report).contains("mic path"))
        #expect(BenchBudget.failures(try BenchBudget.parse("mic.p99<1s,speaker.p99<1s"), in: report).isEmpty)
    }
}

/// A report as `BenchRun` makes one: the mic's convert made of resample and quantise, the VAD beside
/// the total; peers under the rows they stand beside.
func layeredReport(scale: Double = 1, spread: Double = 0.01) -> BenchReport {
    var r = report(mic: 1700 * scale, speaker: 1550 * scale, spread: spread)
    // Batches as the bench chooses them: at least 1 µs a timed sample.
    func part(_ name: String, _ p50: Double, _ of: String?, batch: Int = 1) -> BenchRow {
        var x = row(name, p50: p50 * scale, spread: spread)
        x.partOf = of
        x.batch = batch
        return x
    }
    r.paths.mic.stages = [
        part("convert", 1580, "total"), part("resample", 1540, "convert"), part("quantise", 24, "convert", batch: 42),
        part("chunk+frame", 105, "total", batch: 10), part("vad", 700, nil, batch: 2),
    ]
    r.paths.mic.peers = [
        row("ios-map", p50: 516, spread: spread, peerOf: "quantise"),
        row("ios-code+src-fastest", p50: 88_482, spread: spread, peerOf: "total"),
    ]
    r.paths.speaker.stages = [part("decode", 202, "total", batch: 5)]
    return r
}

@Suite struct BenchTextTests {
    @Test func rowsFitOneHundredColumnsAndWideShowsEverything() {
        var r = layeredReport()
        r.verdict = BenchVerdict(try! BenchBudget.parse("mic.p99<1ms,speaker.decode.p50<100ns"), report: r)
        let text = BenchText.render(r)
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 100 }, "\(text)")
        // Indented under what they are part of; the peer under the row it stands beside.
        #expect(text.contains("\n  total ") && text.contains("\n    convert ") && text.contains("\n      resample "))
        #expect(text.contains("\n        vs ios-map ") && text.contains("\n    vs ios-code+src-fastest "))
        #expect(text.contains("\n  vad (not in total) "))
        #expect(text.contains("total = convert + chunk+frame; vad runs beside the path on the same chunks"))
        // The share of the total: convert 1580 of 1700 ns.
        #expect(text.contains("92.9 %"))
        #expect(!text.contains("chunks/s"))
        let wide = BenchText.render(r, wide: true)
        #expect(wide.contains("chunks/s") && wide.contains("spread") && wide.contains("p90"))
        // The verdict, passing or not.
        #expect(text.contains("budget: OVER (1 of 2 met)"))
        #expect(text.contains("speaker.decode.p50<100ns") && text.contains("OVER by 102 ns"))
        #expect(text.contains("real time (p99.9 of a 20.0 ms chunk): mic 3.40 µs = 0.02 %"))
    }

    @Test func theVerdictIsInTheJSONPassingOrNot() throws {
        var r = layeredReport()
        r.verdict = BenchVerdict(try BenchBudget.parse("mic.p99<1ms,mic.quantise.p50<1ns"), report: r)
        let back = try JSONDecoder().decode(BenchReport.self, from: try JSONEncoder().encode(r))
        #expect(back.verdict?.passed == false)
        #expect(back.verdict?.budgets.map(\.passed) == [true, false])
        #expect(back.verdict?.failures == ["mic.quantise.p50<1ns: 24 ns, over by 23 ns"])
        #expect(back.verdict?.realTime.map(\.keepsUp) == [true, true])
        #expect(back.paths.mic.stages.map(\.partOf) == ["total", "convert", "convert", "total", nil])
        r.verdict = BenchVerdict([], report: r)
        #expect(r.verdict?.passed == true && BenchText.render(r).contains("budget: none given"))
        // A report of an older version has neither: it still reads.
        var old = try #require(
            try JSONSerialization.jsonObject(with: try JSONEncoder().encode(layeredReport())) as? [String: Any])
        old["verdict"] = nil
        let legacy = try JSONDecoder().decode(BenchReport.self, from: try JSONSerialization.data(withJSONObject: old))
        #expect(legacy.verdict == nil)
    }

    @Test func wrapsWordsAtTheWidth() {
        let text = (0..<40).map { "word\($0)" }.joined(separator: " ")
        let lines = BenchText.wrap("  " + text, width: 30, indent: "  ").split(separator: "\n")
        #expect(lines.count > 5 && lines.allSatisfy { $0.count <= 30 })
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("    ") })
        #expect(BenchText.wrap("a    b", width: 30, indent: "") == "a    b", "a short line as it is")
        #expect(BenchText.percent(-0.0) == "+0.0 %" && BenchText.percent(-0.00001) == "+0.0 %")
    }
}

@Suite struct BenchNoiseTests {
    /// Rerun-like differences (within the runs' spread, a clock step or two on a tiny row, and the
    /// few per cent two processes differ by) are not flagged; a 20 % slowdown of any one stage is.
    @Test func rerunsAreNoiseAndATwentyPercentSlowdownIsNot() {
        let base = layeredReport(spread: 0.015)
        var rerun = layeredReport(scale: 1.04, spread: 0.02)  // 4 % slower all over: another process
        rerun.paths.mic.stages[2].p50 = 26  // quantise 24 → 26 ns: one clock step of its batch
        #expect(BenchComparison(base: base, new: rerun).changes.filter(\.flagged).isEmpty)
        for (path, stage) in [("mic", 0), ("mic", 1), ("mic", 2), ("mic", 3), ("mic", 4), ("speaker", 0)] {
            var slow = base
            if path == "mic" {
                slow.paths.mic.stages[stage].p50 *= 1.2
            } else {
                slow.paths.speaker.stages[stage].p50 *= 1.2
            }
            let c = BenchComparison(base: base, new: slow)
            #expect(c.regressions.count == 1, "\(path) \(stage): \(c.text)")
        }
    }

    /// The clock's floor: a row whose timed samples span few clock steps tolerates more.
    @Test func aRowNearTheClocksResolutionToleratesAFewSteps() {
        var base = layeredReport()
        base.timer.resolutionNs = 100
        var slow = base
        slow.paths.mic.stages[2].p50 = 24 * 1.15
        let c = BenchComparison(base: base, new: slow)
        let quantise = try! #require(c.changes.first { $0.key == "mic.quantise" })
        // 4 steps of 100 ns over a 24 ns × 42-chunk sample: 39.7 %.
        #expect(abs(quantise.clockFloor - 400.0 / (24 * 42)) < 1e-9)
        #expect(!quantise.flagged)
        #expect(c.text.contains("noise: half the runs' mean spread + 4 clock steps"))
        #expect(c.text.split(separator: "\n").allSatisfy { $0.count <= 100 })
    }
}
