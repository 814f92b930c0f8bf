import AudioPipelineCore

/// Measures a voice-agent client's hot path on this machine with the app's own settings: the mic
/// path and the speaker path per chunk, each of their stages, and the common client code beside
/// them. What `audiopipe bench` runs, and what an app or an on-device test target calls:
///
/// ```swift
/// var settings = BenchSettings(profile: try .builtIn(.openaiRealtime), profileName: "openai-realtime")
/// settings.seconds = 5
/// let report = try BenchRun.run(settings)
/// print(report.paths.mic.total?.p99 ?? 0)   // ns per 20 ms chunk
/// ```
public enum BenchRun {
    /// Runs every row; `progress` hears each row's name before it runs.
    public static func run(
        _ settings: BenchSettings, progress: (String) -> Void = { _ in }
    ) throws(AudioPipelineError) -> BenchReport {
        try settings.validate()
        let start = BenchClock.now()
        var m = BenchMeasure(
            iterations: settings.iterations, secondsPerRow: 0, warmup: settings.warmup, repeats: settings.repeats,
            resolutionNs: BenchClock.resolution(), readNs: BenchClock.readCost())
        m.callNs = callCost(m)
        var micRun = try BenchMic(settings, m)
        var speakerRun = try BenchSpeaker(settings, m)
        let rowCount = 6 + (speakerRun == nil ? 0 : 5) + (settings.peers ? 9 : 0)
        m.secondsPerRow = settings.seconds / Double(rowCount)
        micRun.m = m
        speakerRun?.m = m
        let peers = BenchPeers(s: settings, m: m)

        progress("mic")
        var micPath = BenchPath(
            chunkMilliseconds: settings.chunkMilliseconds, description: micRun.description, total: try micRun.total(),
            stages: [], peers: [])
        // What each stage is part of: convert (downmix, resample, quantise) and chunk+frame make up the
        // total; the VAD reads the same chunk beside the path, outside its total.
        micPath.stages = [part(try micRun.convert(), of: "total")]
        if let resample = try micRun.resample() { micPath.stages.append(part(resample, of: "convert")) }
        micPath.stages += [part(try micRun.quantise(), of: "convert"), part(try micRun.frame(), of: "total")]
        micPath.stages.append(try micRun.vad())
        if settings.peers { micPath.peers = try peers.mic(micRun) }

        progress("speaker")
        var speakerPath = BenchPath(
            chunkMilliseconds: settings.chunkMilliseconds,
            description: speakerRun?.description ?? "", total: nil, stages: [], peers: [],
            note: speakerRun == nil
                ? "not measured: the bench has no server audio message for the \(settings.profileName) profile "
                    + "(binary audio, or a custom template without a serverAudio rule)" : nil)
        if let sp = speakerRun {
            speakerPath.total = try sp.total()
            speakerPath.stages = [sp.decode(), sp.widen(), try sp.jitter(), try sp.convert()].map {
                part($0, of: "total")
            }
            if settings.peers { speakerPath.peers = try peers.speaker(sp) }
        }
        ratios(&micPath)
        ratios(&speakerPath)
        let micOverhead = micPath.total?.overheadNs ?? 0
        var report = BenchReport(
            machine: BenchMachine.current(kernel: settings.kernel), settings: settings.summary,
            timer: .init(
                resolutionNs: m.resolutionNs, readNs: m.readNs, micOverheadNs: micOverhead,
                micOverheadShare: micOverhead / Swift.max(micPath.total?.p50 ?? 1, 1),
                allocationsCounted: BenchClock.countsAllocations),
            paths: .init(mic: micPath, speaker: speakerPath), peakMemoryBytes: BenchClock.peakMemory(),
            seconds: Double(BenchClock.now() - start) / 1e9, warnings: [])
        report.warnings = BenchRunWarnings.of(report)
        return report
    }

    /// `row`, marked as part of `whole` (its time is inside that row's).
    static func part(_ row: BenchRow, of whole: String) -> BenchRow {
        var r = row
        r.partOf = whole
        return r
    }

    /// What calling an empty chunk body costs through the measuring loop, per chunk.
    static func callCost(_ m: BenchMeasure) -> Double {
        var probe = m
        probe.iterations = 200_000
        probe.warmup = 1000
        var n = 0
        return probe.run("empty", "", chunkSeconds: 1) { n &+= 1 }.p50
    }

    /// Each peer's p50 ÷ ours for the row it stands beside (above 1: ours is faster).
    static func ratios(_ path: inout BenchPath) {
        for i in path.peers.indices {
            let of = path.peers[i].peerOf
            let ours = of == "total" ? path.total : path.stages.first { $0.name == of }
            if let ours, ours.p50 > 0 { path.peers[i].ratio = path.peers[i].p50 / ours.p50 }
        }
    }
}

/// Why some figures of a report should be read with care: a noisy run, batched samples, overhead.
public enum BenchRunWarnings {
    /// Why some figures should be read with care.
    public static func of(_ r: BenchReport) -> [String] {
        var w: [String] = []
        for (key, row) in r.rows {
            if row.spread > 0.2 {
                w.append(
                    "\(key): p50 varied by \(Int((row.spread * 100).rounded())) % across the run's repeats; "
                        + "the machine was busy or the clock unsteady: rerun (with --cpu N) before trusting it")
            }
            if row.batch > 1 && !key.contains("peer:") && key.hasSuffix(".total") {
                w.append("\(key): \(row.batch) chunks per timed sample (the clock is coarse for it)")
            }
        }
        let batched = r.rows.filter { $0.row.batch > 1 }.map(\.key)
        if !batched.isEmpty {
            w.append(
                "the clock's step is \(Int(r.timer.resolutionNs.rounded())) ns: \(batched.joined(separator: ", ")) "
                    + "timed several chunks per sample (see batch); their percentiles are of batch means")
        }
        if r.timer.micOverheadShare > 0.05 {
            w.append("measuring adds \(Int((r.timer.micOverheadShare * 100).rounded())) % to the mic path's p50")
        }
        if !r.timer.allocationsCounted {
            w.append("allocations are not counted on this platform or build (allocationsPerChunk is null)")
        }
        return w
    }
}
