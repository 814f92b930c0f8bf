import AudioPipelineAdapters
import AudioPipelineCore
import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineWorkflows

/// A mono PCM16 WAV of `frames` pseudo-random samples (seeded), written without any library.
func writeTestWav(_ path: String, frames: Int, rate: Int = 48_000, channels: Int = 2, seed: UInt64 = 1) throws {
    var rng = TestRNG(seed: seed)
    let dataBytes = frames * channels * 2
    var d = Data()
    func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { d.append(contentsOf: $0) } }
    func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { d.append(contentsOf: $0) } }
    d.append(contentsOf: Array("RIFF".utf8)); u32(36 + dataBytes); d.append(contentsOf: Array("WAVEfmt ".utf8))
    u32(16); u16(1); u16(channels); u32(rate); u32(rate * channels * 2); u16(channels * 2); u16(16)
    d.append(contentsOf: Array("data".utf8)); u32(dataBytes)
    for _ in 0..<(frames * channels) { u16(Int(UInt16(truncatingIfNeeded: rng.next() >> 50))) }
    try d.write(to: URL(fileURLWithPath: path))
}

@Suite struct Shards {
    let paths = (0..<1000).map { "dir\($0 % 7)/file-\($0).wav" }

    @Test(arguments: [1, 2, 3, 4, 7, 16])
    func theShardsAreDisjointAndCoverEveryInput(count: Int) throws {
        var owner: [String: Int] = [:]
        for i in 1...count {
            let shard = try Shard(index: i, count: count)
            for p in paths where shard.contains(p) {
                #expect(owner[p] == nil, "\(p) is in shards \(owner[p] ?? 0) and \(i)")
                owner[p] = i
            }
        }
        #expect(owner.count == paths.count)
        if count > 1 {
            // Every shard gets a fair part (a bad hash would pile them into a few).
            let sizes = (1...count).map { i in owner.values.filter { $0 == i }.count }
            #expect(sizes.min()! > paths.count / count / 2, "\(sizes)")
        }
    }

    @Test func membershipDependsOnThePathOnlyNotOnOrderOrRun() throws {
        let shard = try Shard(index: 2, count: 3)
        let forward = paths.filter(shard.contains)
        let backward = paths.reversed().filter(shard.contains)
        #expect(Set(forward) == Set(backward))
        // FNV-1a 64 of "a": a fixed value, so every machine and every run agrees.
        #expect(Shard.hash("a") == 0xaf63_dc4c_8601_ec8c)
    }

    @Test(arguments: ["3/2", "0/0", "junk", "1/0", "-1/3", "2", "1/2/3", "", "1/ 2", "99999999999999999999/2"])
    func badShardsAreUsageErrors(text: String) {
        #expect(throws: AudioPipelineError.self) { _ = try Shard.parse(text, environment: [:]) }
        do {
            _ = try Shard.parse(text, environment: [:])
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains("--shard"))
        }
    }

    @Test func autoReadsASlurmArrayHonouringItsMinimumIndex() throws {
        let env = ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_COUNT": "4"]
        #expect(try Shard.parse("auto", environment: env) == Shard(index: 1, count: 4))
        let last = ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4"]
        #expect(try Shard.parse("auto", environment: last) == Shard(index: 4, count: 4))
        // What Slurm 22.05 sets for --array=0-6:2 (task 4 is the third of four).
        let stepped = [
            "SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "6",
            "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "4",
        ]
        #expect(try Shard.parse("auto", environment: stepped) == Shard(index: 3, count: 4))
        // ... and for --array=1,3,5,8: no step places task 8, so it is refused, not mis-sharded.
        let list = [
            "SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "8",
            "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "4",
        ]
        #expect(throws: AudioPipelineError.self) { _ = try Shard.parse("auto", environment: list) }
        // Values at Int's ends are refused with the variable's name, never overflow the arithmetic.
        for (name, value) in [
            ("SLURM_ARRAY_TASK_MAX", "9223372036854775807"), ("SLURM_ARRAY_TASK_MIN", "-9223372036854775808"),
            ("SLURM_ARRAY_TASK_STEP", "9223372036854775807"), ("SLURM_ARRAY_TASK_COUNT", "9223372036854775807"),
            ("SLURM_ARRAY_TASK_ID", "-9223372036854775808"),
        ] {
            var env = ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "-1"]
            env[name] = value
            #expect {
                _ = try Shard.parse("auto", environment: env)
            } throws: { ($0 as? AudioPipelineError)?.message.contains("\(name)=\(value) is out of range") == true }
        }
        let huge = ["JOB_COMPLETION_INDEX": "9223372036854775807"]
        #expect(throws: AudioPipelineError.self) { _ = try Shard.parse("auto", shards: 4, environment: huge) }
    }

    @Test func autoReadsAKubernetesIndexedJobWithShards() throws {
        #expect(
            try Shard.parse("auto", shards: 8, environment: ["JOB_COMPLETION_INDEX": "7"]) == Shard(index: 8, count: 8))
        #expect(throws: AudioPipelineError.self) {
            _ = try Shard.parse("auto", environment: ["JOB_COMPLETION_INDEX": "0"])
        }
        #expect(throws: AudioPipelineError.self) {
            _ = try Shard.parse("auto", shards: 4, environment: ["JOB_COMPLETION_INDEX": "4"])
        }
    }

    @Test func autoWithoutAnEngineSaysSo() {
        do {
            _ = try Shard.parse("auto", environment: [:])
            Issue.record("no error")
        } catch {
            #expect(error.message.contains("SLURM_ARRAY_TASK_ID") && error.message.contains("JOB_COMPLETION_INDEX"))
        }
        #expect(throws: AudioPipelineError.self) {
            _ = try Shard.parse("auto", environment: ["SLURM_ARRAY_TASK_ID": "1"])
        }
        #expect(throws: AudioPipelineError.self) {
            _ = try Shard.parse("auto", environment: ["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "2"])
        }
    }
}

@Suite struct BatchInputLists {
    @Test func plainListsTakeCRLFABOMBlankLinesAndComments() throws {
        let dir = TempDir()
        let text = "\u{FEFF}# corpus\r\na.wav\r\n\r\n  sub/b.wav  \r\n# done\r\n/abs/c.wav\r\n"
        try text.write(toFile: dir.file("list.txt"), atomically: true, encoding: .utf8)
        let inputs = try BatchSelection.readList(dir.file("list.txt"))
        #expect(inputs.map(\.path) == [dir.file("a.wav"), dir.file("sub/b.wav"), "/abs/c.wav"])
        #expect(inputs.map(\.relativePath) == ["a.wav", "sub/b.wav", "c.wav"])
    }

    @Test func csvListsHaveAnInputColumnAndOptionallyAnOutput() throws {
        let dir = TempDir()
        try "output,input\r\nout/x.wav,in/a.wav\r\n,in/b.wav\r\n".write(
            toFile: dir.file("list.csv"), atomically: true, encoding: .utf8)
        let inputs = try BatchSelection.readList(dir.file("list.csv"))
        #expect(inputs.map(\.path) == [dir.file("in/a.wav"), dir.file("in/b.wav")])
        #expect(inputs.map(\.output) == [dir.file("out/x.wav"), nil])
    }

    @Test func csvListsWithoutAnInputColumnAreRefusedNotReadAsPaths() throws {
        let dir = TempDir()
        func error(_ name: String, _ text: String) throws -> String? {
            try text.write(toFile: dir.file(name), atomically: true, encoding: .utf8)
            do {
                _ = try BatchSelection.readList(dir.file(name))
                return nil
            } catch {
                #expect(error.code == .invalidData)
                return error.message
            }
        }
        // Named .csv, or CSV-shaped (a header that is no file, every line with as many commas).
        let named = try error("list.csv", "# corpus\npath,output\na.wav,o/a.wav\n")
        #expect(named?.contains("list.csv:2: missing column 'input'") == true, "\(named ?? "no error")")
        let shaped = try error("list.txt", "file,out\na.wav,b.wav\nc.wav,d.wav\n")
        #expect(shaped?.contains("list.txt:1: missing column 'input'") == true, "\(shaped ?? "no error")")
        // An empty input field names its line.
        let empty = try error("empty.csv", "input,output\n# x\n,o.wav\n")
        #expect(empty?.contains("empty.csv:3: the 'input' field is empty") == true, "\(empty ?? "no error")")
        let emptyJSON = try error("empty.jsonl", "{\"input\": \"a.wav\"}\n{\"input\": \" \"}\n")
        #expect(emptyJSON?.contains("empty.jsonl:2: needs a non-empty") == true, "\(emptyJSON ?? "no error")")
        // Line numbers count the comment and blank lines before a bad row.
        let row = try error("rows.csv", "input,output\n# note\n\na.wav,b.wav,c.wav\n")
        #expect(row?.contains("rows.csv:4: 3 fields, the header has 2") == true, "\(row ?? "no error")")
        // A path list whose names hold commas stays a path list: its first path exists.
        #expect(FileManager.default.createFile(atPath: dir.file("take 1,2.wav"), contents: Data()))
        try "take 1,2.wav\ntake 3,4.wav\n".write(toFile: dir.file("paths.txt"), atomically: true, encoding: .utf8)
        let paths = try BatchSelection.readList(dir.file("paths.txt"))
        #expect(paths.map(\.path) == [dir.file("take 1,2.wav"), dir.file("take 3,4.wav")])
    }

    @Test func jsonLinesListsHaveAnInputKey() throws {
        let dir = TempDir()
        try "{\"input\": \"a.wav\", \"output\": \"o/a.wav\"}\n\n{\"input\": \"b.wav\"}\n".write(
            toFile: dir.file("list.jsonl"), atomically: true, encoding: .utf8)
        let inputs = try BatchSelection.readList(dir.file("list.jsonl"))
        #expect(inputs.map(\.path) == [dir.file("a.wav"), dir.file("b.wav")])
        #expect(inputs.map(\.output) == [dir.file("o/a.wav"), nil])
        try "{\"input\": \"a.wav\"}\n{\"file\": \"b.wav\"}\n".write(
            toFile: dir.file("bad.jsonl"), atomically: true, encoding: .utf8)
        do {
            _ = try BatchSelection.readList(dir.file("bad.jsonl"))
            Issue.record("no error")
        } catch {
            #expect(error.message.contains("bad.jsonl:2") && error.message.contains("input"))
        }
    }
}

@Suite struct BatchPlans {
    func touch(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: path, contents: Data())
    }

    @Test func aDirectoryWalkIsSortedFilteredAndNeverEntersTheOutputDirectory() throws {
        let dir = TempDir()
        for f in [
            "in/b.wav", "in/a.flac", "in/notes.txt", "in/.hidden.wav", "in/sub/c.wav", "in/out/old.wav",
            "in/sub/skip-me.wav",
        ] {
            try touch(dir.file(f))
        }
        var r = BatchRequest(
            paths: [dir.file("in")], extensions: BatchSelection.audioExtensions,
            outputDirectory: dir.file("in/out"), outputExtension: "wav")
        r.selection.recursive = true
        r.selection.exclude = ["skip-*"]
        let items = try r.plan()
        #expect(items.map(\.input.relativePath) == ["a.flac", "b.wav", "sub/c.wav"])
        #expect(items.map(\.output) == ["a", "b", "sub/c"].map { dir.file("in/out/\($0).wav") })
        r.selection.recursive = false
        r.selection.include = ["*.flac"]
        #expect(try r.plan().map(\.input.relativePath) == ["a.flac"])
    }

    @Test func twoInputsWritingOneOutputAreRefusedNamingBoth() throws {
        let dir = TempDir()
        try touch(dir.file("in/a.wav"))
        try touch(dir.file("in/a.flac"))
        let r = BatchRequest(
            paths: [dir.file("in")], extensions: ["wav", "flac"], outputDirectory: dir.file("o"),
            outputExtension: "wav")
        do {
            _ = try r.plan()
            Issue.record("no error")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains("a.wav") && error.message.contains("a.flac"), "\(error.message)")
        }
        var named = r
        named.nameTemplate = "{dir}/{name}.{ext}"
        #expect(try named.plan().compactMap(\.output) == [dir.file("o/a.flac.wav"), dir.file("o/a.wav.wav")])
    }

    @Test func aFileNamedTwiceIsDoneOnce() throws {
        let dir = TempDir()
        try touch(dir.file("in/a.wav"))
        let r = BatchRequest(
            paths: [dir.file("in/a.wav"), dir.file("in"), dir.file("in/../in/a.wav")], extensions: ["wav"],
            outputDirectory: dir.file("o"), outputExtension: "wav")
        #expect(try r.plan().map(\.input.path) == [dir.file("in/a.wav")])
    }

    @Test func anOutputThatIsAnInputIsRefused() throws {
        let dir = TempDir()
        try touch(dir.file("a.wav"))
        let r = BatchRequest(
            paths: [dir.file("a.wav")], extensions: ["wav"], outputDirectory: dir.path,
            outputExtension: "wav")
        #expect(throws: AudioPipelineError.self) { _ = try r.plan() }
    }

    @Test func anEmptySetIsAUsageError() throws {
        let dir = TempDir()
        let r = BatchRequest(
            paths: [dir.path], extensions: ["wav"], outputDirectory: dir.file("o"), outputExtension: "wav")
        do {
            _ = try r.plan()
            Issue.record("no error")
        } catch {
            #expect(error.code == .invalidConfiguration && ExitStatus(error.code) == .usage)
        }
    }

    @Test func outputsNeverLeaveTheirDirectory() {
        let input = BatchInput(path: "/x/../a.wav", relativePath: "../../a.wav")
        #expect(OutputTree.path(for: input, directory: "/o", ext: "wav") == "/o/a.wav")
        #expect(
            OutputTree.path(for: input, directory: "/o", ext: "wav", template: "../{stem}-16k.{ext}") == "/o/a-16k.wav")
    }
}

@Suite struct BatchRuns {
    /// A corpus of `n` short WAVs in `dir/in` (every third in a subdirectory) and one that is not audio.
    func corpus(_ dir: TempDir, _ n: Int, bad: Bool = true) throws {
        try FileManager.default.createDirectory(atPath: dir.file("in/sub"), withIntermediateDirectories: true)
        for i in 0..<n {
            try writeTestWav(
                dir.file(i % 3 == 0 ? "in/sub/f\(i).wav" : "in/f\(i).wav"), frames: 4_800 + i * 37,
                seed: UInt64(i + 1))
        }
        if bad { try "not audio".write(toFile: dir.file("in/broken.wav"), atomically: true, encoding: .utf8) }
    }

    func request(_ dir: TempDir, out: String, jobs: Int) -> BatchRequest {
        var r = BatchRequest(
            paths: [dir.file("in")], extensions: BatchSelection.audioExtensions,
            outputDirectory: dir.file(out), outputExtension: "wav")
        r.selection.recursive = true
        r.options.jobs = jobs
        return r
    }

    func convert() throws -> BatchRunner.Job {
        var o = ConvertOptions()
        (o.sampleRate, o.channels) = (try SampleRate(16_000), 1)
        return BatchJobs.convert(o, raw: nil)
    }

    func files(_ root: String) -> [String: Data] {
        var out: [String: Data] = [:]
        let e = FileManager.default.enumerator(atPath: root)
        while let rel = e?.nextObject() as? String {
            if let d = FileManager.default.contents(atPath: root + "/" + rel), !rel.hasSuffix("sub") { out[rel] = d }
        }
        return out
    }

    @Test func manyWorkersWriteExactlyWhatOneWrites() throws {
        let dir = TempDir()
        try corpus(dir, 24)
        let one = try request(dir, out: "o1", jobs: 1).run(job: try convert()).summary
        let four = try request(dir, out: "o4", jobs: 4).run(job: try convert()).summary
        #expect(one.files == 25 && one.ok == 24 && one.failed == 1 && one.exitCode == 65)
        #expect(four.ok == 24 && four.failed == 1 && four.jobs == 4)
        let a = files(dir.file("o1")), b = files(dir.file("o4"))
        #expect(a.count == 24 && a == b)
        #expect(abs(one.audioSeconds - four.audioSeconds) < 1e-9)
    }

    @Test func failuresAreReportedAndTheResultsFileHasALinePerFile() throws {
        let dir = TempDir()
        try corpus(dir, 5)
        var r = request(dir, out: "o", jobs: 2)
        r.options.reportPath = dir.file("results.jsonl")
        var finished: [BatchResult] = []
        let s = try r.run(result: { finished.append($0) }, job: try convert()).summary
        #expect(finished.count == 6)  // every file, as it finishes: a report sink of the app's own
        let noticed = finished.filter { !$0.notices.isEmpty }
        // (What failed, in the message: once under ThreadSanitizer in CI, 2026-12-06, the count was not 1.)
        #expect(s.failed == 1 && noticed.map(\.input) == [dir.file("in/broken.wav")], "failures: \(s.failures)")
        #expect(noticed.first?.notices.first?.contains("cannot decode") == true)
        #expect(s.failures.count == 1 && s.failures[0].contains("broken.wav"), "failures: \(s.failures)")
        let lines = try String(contentsOfFile: dir.file("results.jsonl"), encoding: .utf8).split(separator: "\n")
        let results = try lines.map { try JSONDecoder().decode(BatchResult.self, from: Data($0.utf8)) }
        #expect(results.count == 6)
        let broken = try #require(results.first { $0.status == "failed" })
        #expect(broken.exitCode == 65 && broken.error?.contains("broken.wav") == true && broken.output != nil)
        for ok in results where ok.status == "ok" {
            #expect(ok.audioSeconds > 0.09 && ok.optionsDigest == r.options.optionsDigest && ok.inputSize > 44)
            #expect(FileManager.default.fileExists(atPath: ok.output!))
        }
    }

    @Test func failFastStopsStartingFiles() throws {
        let dir = TempDir()
        try corpus(dir, 10)
        var r = request(dir, out: "o", jobs: 1)
        r.selection.recursive = false  // broken.wav sorts first among in/'s files
        r.options.failFast = true
        let s = try r.run(job: try convert()).summary
        #expect(s.failed == 1 && s.ok == 0 && s.exitCode == 65, "\(s)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("o/f1.wav")))
    }

    /// Two files fail with different codes; the later one in input order fails first. The exit
    /// status is the earlier file's, whatever the timing (it was the first to finish before:
    /// `audiopipe info good empty missing` exited 66 or 65 from run to run).
    @Test func theExitStatusIsTheEarliestFailingFilesNotTheFirstToFinish() throws {
        let dir = TempDir()
        try corpus(dir, 2, bad: false)
        let r = request(dir, out: "o", jobs: 2)
        let earliest = try #require(try r.plan().first).input.path
        let laterDone = DispatchSemaphore(value: 0)
        let (items, s) = try r.run(progress: { p in if p.done == 1 { laterDone.signal() } }) { item in
            if item.input.path == earliest {
                // The earliest file waits until the later one has failed.
                _ = laterDone.wait(timeout: .now() + 20)
                throw AudioPipelineError(.invalidData, "earliest: bad data")
            }
            throw AudioPipelineError(.inputUnavailable, "later: missing")
        }
        #expect(items.count == 2 && items[0].input.path == earliest && s.failed == 2)
        #expect(s.exitCode == ExitStatus(.invalidData).rawValue, "\(s)")
        #expect(s.failures.first?.contains("later") == true, "the later file finished first: \(s.failures)")
    }

    @Test func resumeRedoesOnlyWhatIsNotDoneWithTheSameOptions() throws {
        let dir = TempDir()
        try corpus(dir, 6, bad: false)
        var r = request(dir, out: "o", jobs: 2)
        (r.options.reportPath, r.options.optionsDigest) = (dir.file("reports/new/r.jsonl"), "A")  // made
        #expect(try r.run(job: try convert()).summary.ok == 6)
        r.options.resume = true
        var again = try r.run(job: try convert()).summary
        #expect(again.skipped == 6 && again.ok == 0)
        // An output removed, an input changed: those two are redone.
        try FileManager.default.removeItem(atPath: dir.file("o/f1.wav"))
        try writeTestWav(dir.file("in/f2.wav"), frames: 999, seed: 99)
        again = try r.run(job: try convert()).summary
        #expect(again.skipped == 4 && again.ok == 2, "\(again)")
        // Other options: everything is redone.
        r.options.optionsDigest = "B"
        #expect(try r.run(job: try convert()).summary.ok == 6)
    }

    @Test func aShardRunsOnlyItsInputsAndTheShardsTogetherRunAll() throws {
        let dir = TempDir()
        try corpus(dir, 12, bad: false)
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var paths: [String] = []
        }
        let seen = Seen()
        for i in 1...3 {
            var r = request(dir, out: "o", jobs: 2)
            r.options.shard = try Shard(index: i, count: 3)
            let s = try r.run { item in
                seen.lock.lock()
                seen.paths.append(item.input.relativePath)
                seen.lock.unlock()
                return FileOutcome(audioSeconds: 1)
            }.summary
            #expect(s.shard == "\(i)/3")
        }
        #expect(seen.paths.count == 12 && Set(seen.paths).count == 12)
    }

    @Test func moreJobsThanCoresAllRunAtOnce() throws {
        let dir = TempDir()
        try corpus(dir, 8, bad: false)
        let r = request(dir, out: "o", jobs: 8)
        // Every job waits until all eight have started: were fewer running at once, they would time out.
        let arrived = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let gate = Thread {
            for _ in 0..<8 { guard arrived.wait(timeout: .now() + 20) == .success else { return } }
            for _ in 0..<8 { release.signal() }
        }
        gate.start()
        let s = try r.run { _ in
            arrived.signal()
            guard release.wait(timeout: .now() + 20) == .success else { throw CancellationError() }
            return FileOutcome(audioSeconds: 1)
        }.summary
        #expect(s.ok == 8 && s.jobs == 8, "\(s.failures)")
    }

    /// A run removes the empty directories it made for its outputs, not another run's: two runs in
    /// one process (an app's batches, tests in parallel) share the registry, and the other's output
    /// directory, made and not yet written into, must stay (removing every empty one once failed a
    /// file of `failuresAreReportedAndTheResultsFileHasALinePerFile` under ThreadSanitizer).
    @Test func aRunRemovesOnlyTheEmptyDirectoriesAboveItsOwnOutputs() throws {
        let dir = TempDir()
        let mine = dir.file("mine/sub/out.wav")
        let theirs = dir.file("theirs/out.wav")
        try OutputTree.makeParent(of: mine)
        try OutputTree.makeParent(of: theirs)
        TemporaryFiles.removeEmptyDirectories(among: OutputTree.parents(of: [mine]))
        #expect(!FileManager.default.fileExists(atPath: dir.file("mine")))
        #expect(FileManager.default.fileExists(atPath: dir.file("theirs")))
        TemporaryFiles.removeEmptyDirectories(among: OutputTree.parents(of: [theirs]))
        #expect(!FileManager.default.fileExists(atPath: dir.file("theirs")))
    }

    @Test func staleTemporariesOfAKilledRunAreRemoved() throws {
        let dir = TempDir()
        try corpus(dir, 3, bad: false)
        try FileManager.default.createDirectory(atPath: dir.file("o"), withIntermediateDirectories: true)
        // A writer that is gone holds no lock on its temporary file; a live one (here: us) does.
        let stale = dir.file("o/.f1.wav.tmp-1-77"), live = dir.file("o/.f2.wav.tmp-1-78")
        let other = dir.file("o/.unrelated.tmp-1-1")
        for f in [stale, live, other] { FileManager.default.createFile(atPath: f, contents: Data("x".utf8)) }
        let held = open(live, O_RDONLY)
        defer { close(held) }
        #expect(flock(held, LOCK_EX | LOCK_NB) == 0)
        _ = try request(dir, out: "o", jobs: 1).run(job: try convert())
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: live) && FileManager.default.fileExists(atPath: other))
    }
}

@Suite struct BatchFromSwift {
    /// The README's example, as written there (with a corpus made here).
    @Test func theReadmeExampleRuns() throws {
        let dir = TempDir()
        try FileManager.default.createDirectory(atPath: dir.file("calls/a"), withIntermediateDirectories: true)
        try writeTestWav(dir.file("calls/a/one.wav"), frames: 48_000)
        try writeTestWav(dir.file("calls/two.wav"), frames: 24_000)
        var options = ConvertOptions()
        (options.sampleRate, options.channels) = (try SampleRate(16_000), 1)
        var batch = BatchRequest(
            paths: [dir.file("calls")], extensions: BatchSelection.audioExtensions,
            outputDirectory: dir.file("calls16k"), outputExtension: "wav")
        batch.selection.recursive = true
        batch.options.reportPath = dir.file("calls16k.jsonl")
        let (_, summary) = try batch.run { [options] item in
            let r = try FileConverter.convert(input: item.input.path, output: item.output!, options: options)
            return FileOutcome(audioSeconds: r.inputSeconds, clippedSamples: r.clippedSamples)
        }
        #expect(summary.text.hasPrefix("2 files: 2 ok, 0 failed, 0 skipped"), "\(summary.text)")
        #expect(abs(summary.audioSeconds - 1.5) < 1e-9)
        #expect(FileManager.default.fileExists(atPath: dir.file("calls16k/a/one.wav")))
    }
}

@Suite struct Canonicalization {
    @Test func theFastCanonicalizerAgreesWithURLResolution() throws {
        let dir = TempDir()
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir.file("real/sub"), withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: dir.file("link"), withDestinationPath: dir.file("real"))
        fm.createFile(atPath: dir.file("real/sub/a.wav"), contents: Data())
        try fm.createSymbolicLink(atPath: dir.file("real/b.wav"), withDestinationPath: dir.file("real/sub/a.wav"))
        let paths = [
            "real/sub/a.wav", "link/sub/a.wav", "real/../real/sub/a.wav", "real/b.wav", "missing/dir/x.wav",
            "real/./sub/a.wav", "/", "/tmp", ".",
        ].map { $0.hasPrefix("/") || $0 == "." ? $0 : dir.file($0) }
        var c = SamePathGuard.Canonicalizer()
        for p in paths + paths {
            #expect(c.canonical(p) == SamePathGuard.canonical(p), "\(p)")
        }
        // A file still to be written, in a directory reached through a link: the directory resolves
        // (URL resolution gives up on a path whose last part does not exist yet).
        #expect(c.canonical(dir.file("link/sub/new.wav")) == SamePathGuard.canonical(dir.file("real/sub")) + "/new.wav")
    }
}

@Suite struct PathArithmetic {
    @Test(arguments: [
        ("a/b.wav", "a/b.wav", "a", "b.wav", "b"), ("b.wav", "b.wav", "", "b.wav", "b"),
        ("/b.wav", "/b.wav", "/", "b.wav", "b"), ("a//b/c.flac", "a/b/c.flac", "a/b", "c.flac", "c"),
        ("a/b/", "a/b", "a", "b", "b"), ("x", "x", "", "x", "x"), (".hidden", ".hidden", "", ".hidden", ".hidden"),
        ("a.b.wav", "a.b.wav", "", "a.b.wav", "a.b"), ("dir.x/name", "dir.x/name", "dir.x", "name", "name"),
        ("/", "/", "/", "", ""),
    ])
    func splitsNormalizesAndStems(_ c: (String, String, String, String, String)) {
        let n = PathParts.normalized(c.0)
        #expect(n == c.1)
        #expect(PathParts.split(n) == (c.2, c.3))
        #expect(PathParts.stem(PathParts.split(n).name) == c.4)
    }
}

/// The read block a file conversion takes: a sixteenth of a file of known length, between 4096
/// frames and the option's most; the most for a stream of unknown length.
@Suite struct ConversionBlockSize {
    @Test func followsTheFileLengthWithinItsBounds() {
        #expect(FileConversion.blockFrames(most: 65_536, fileFrames: nil) == 65_536)
        #expect(FileConversion.blockFrames(most: 65_536, fileFrames: 48_000) == 4096)
        #expect(FileConversion.blockFrames(most: 65_536, fileFrames: 16 * 20_480) == 20_480)
        #expect(FileConversion.blockFrames(most: 65_536, fileFrames: 28_800_000) == 65_536)
        #expect(FileConversion.blockFrames(most: 100, fileFrames: 48_000) == 100)
        #expect(FileConversion.blockFrames(most: 65_536, fileFrames: 0) == 4096)
    }
}
