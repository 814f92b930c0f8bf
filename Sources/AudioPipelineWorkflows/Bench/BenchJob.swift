import AudioPipelineAdapters
import AudioPipelineBench
import AudioPipelineCore
import Foundation

/// `audiopipe bench`'s options, by the names the other commands use.
public struct BenchOptions: Sendable {
    /// The device's rate, Hz.
    public var deviceRate = 48_000
    /// The device's interleaved channels.
    public var deviceChannels = 1
    /// The wire profile, by name (`ProfileLoader`).
    public var profile = "openai-realtime"
    /// Audio per chunk, ms.
    public var chunkMs = 20.0
    /// The resampler, by the name `--resampler` takes.
    public var resampler = ResamplerChoice.default.rawValue
    /// The vector kernels: `best` or `portable`.
    public var kernels = "best"
    /// PCM conventions of both paths.
    public var compatibility: PCMCompatibility = .standard
    /// Dither of the mic path's quantisation.
    public var dither: Dither = .none
    /// The VAD beside the mic path.
    public var vad = VADConfiguration()
    /// The VAD also gets the far-end reference.
    public var withReference = false
    /// The jitter buffer of the speaker path.
    public var jitter = JitterSettings()
    /// Measuring time over all rows, s.
    public var seconds = 12.0
    /// Chunks per row (fixed), instead of `seconds`.
    public var iterations: Int?
    /// Chunks run before timing each row.
    public var warmup = 200
    /// The CPU to pin the measuring thread to (Linux); nil: not pinned.
    public var cpu: Int?
    /// Budgets to check (`mic.p99<1ms,…`, `BenchBudget`); nil: none.
    public var budget: String?
    /// Run the peers beside ours.
    public var peers = true
    /// Also write the rows as CSV / the latency plot as SVG (atomically) to these paths.
    public var csvPath: String?
    /// The plot's path (see `csvPath`).
    public var plotPath: String?

    /// The defaults `audiopipe bench` runs with.
    public init() {}

    /// Every option, as `audiopipe bench` gives them (those left out keep their defaults).
    public init(
        deviceRate: Int = 48_000, deviceChannels: Int = 1, profile: String = "openai-realtime", chunkMs: Double = 20,
        resampler: String = ResamplerChoice.default.rawValue, kernels: String = "best",
        compatibility: PCMCompatibility = .standard, dither: Dither = .none, vad: VADConfiguration = VADConfiguration(),
        withReference: Bool = false, jitter: JitterSettings = JitterSettings(), seconds: Double = 12,
        iterations: Int? = nil, warmup: Int = 200, cpu: Int? = nil, budget: String? = nil, peers: Bool = true,
        csvPath: String? = nil, plotPath: String? = nil
    ) {
        self.deviceRate = deviceRate
        self.deviceChannels = deviceChannels
        self.profile = profile
        self.chunkMs = chunkMs
        self.resampler = resampler
        self.kernels = kernels
        self.compatibility = compatibility
        self.dither = dither
        self.vad = vad
        self.withReference = withReference
        self.jitter = jitter
        self.seconds = seconds
        self.iterations = iterations
        self.warmup = warmup
        self.cpu = cpu
        self.budget = budget
        self.peers = peers
        self.csvPath = csvPath
        self.plotPath = plotPath
    }
}

/// The bench as a job: options to `BenchSettings` (the profile, the resampler from the catalogue,
/// libsamplerate as the peer resampler), the run, budgets, CSV and the latency plot.
public enum BenchJob {
    /// The settings, or a usage error naming the option.
    public static func settings(_ o: BenchOptions) throws(AudioPipelineError) -> BenchSettings {
        let profile = try ProfileLoader.load(o.profile)
        var s = BenchSettings(profile: profile, profileName: o.profile)
        s.deviceRate = o.deviceRate
        s.deviceChannels = o.deviceChannels
        s.chunkMilliseconds = o.chunkMs
        guard o.kernels == "best" || o.kernels == "portable" else {
            throw AudioPipelineError(.invalidConfiguration, "--kernels must be best or portable, not '\(o.kernels)'")
        }
        s.kernel = o.kernels == "best" ? .best : .portable
        let choice = try ResamplerChoice.selection(o.resampler)
        guard choice.count == 1 else {
            throw AudioPipelineError(.invalidConfiguration, "--resampler: the bench measures one resampler, not all")
        }
        s.resampler = choice[0].factory(kernel: s.kernel)
        s.resamplerName = o.resampler + (s.kernel == .portable && o.resampler.hasPrefix("native") ? " portable" : "")
        s.peerResampler = ("src-fastest", ResamplerChoice.srcFastest.factory())
        s.compatibility = o.compatibility
        s.vad = o.vad
        s.withReference = o.withReference
        s.dither = o.dither
        s.jitter = try o.jitter.configuration(sampleRate: profile.serverRate)
        s.seconds = o.seconds
        s.iterations = o.iterations
        s.warmup = o.warmup
        s.peers = o.peers
        if let rule = try ProfileLoader.template(o.profile)?.serverAudio {
            s.serverMessage = { ExampleMessage.build(rule, base64: $0) }
            s.serverAudioPath = rule.path
        }
        try s.validate()
        if let cpu = o.cpu, !(0...4095).contains(cpu) {
            throw AudioPipelineError(.invalidConfiguration, "--cpu must be in 0…4095")
        }
        return s
    }

    /// Runs the bench (pinned to `cpu` if asked), writes the CSV and plot if asked; returns the report
    /// and the budgets it exceeds.
    public static func run(
        _ o: BenchOptions, progress: (String) -> Void = { _ in }
    ) throws(AudioPipelineError) -> (report: BenchReport, failures: [String]) {
        try SamePathGuard.refuse(inputs: [], options: [("--csv", o.csvPath), ("--plot", o.plotPath)])
        let budgets = try o.budget.map { b throws(AudioPipelineError) in try BenchBudget.parse(b) } ?? []
        let s = try settings(o)
        var pinned: String?
        if let cpu = o.cpu {
            pinned = BenchClock.pin(cpu: cpu) ? "\(cpu)" : nil
            if pinned == nil {
                throw AudioPipelineError(.invalidConfiguration, "--cpu \(cpu): cannot pin to that CPU here")
            }
        }
        var report = try BenchRun.run(s, progress: progress)
        report.settings["cpu"] = pinned ?? "not pinned"
        let verdict = BenchVerdict(budgets, report: report)
        report.verdict = verdict
        if let path = o.csvPath { try ByteOutput.write(csv(report), to: path) }
        if let path = o.plotPath { try ByteOutput.write(BenchPlot.svg(report), to: path) }
        return (report, verdict.failures)
    }

    /// Reads a report `bench --json` wrote.
    public static func read(_ path: String) throws(AudioPipelineError) -> BenchReport {
        try JSONFile.decode(BenchReport.self, path, what: "bench report")
    }

    /// One line per row: path, kind (total, stage, peer), name, the latencies (ns) and costs.
    public static func csv(_ r: BenchReport) -> String {
        var w = CSVWriter(header: [
            "path", "kind", "name", "peer_of", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns", "mean_ns",
            "allocations_per_chunk", "cpu_ns_per_chunk", "core_share", "realtime", "chunks_per_second", "chunks",
            "batch", "spread", "ratio",
        ])
        for (key, row) in r.rows {
            let path = String(key.prefix { $0 != "." })
            let kind = row.peerOf != nil ? "peer" : key.hasSuffix(".total") ? "total" : "stage"
            let numbers = [row.p50, row.p90, row.p99, row.p999, row.max, row.mean].map { String(format: "%.1f", $0) }
            w.append(
                [path, kind, row.name, row.peerOf ?? ""] + numbers + [
                    row.allocationsPerChunk.map { String(format: "%.3f", $0) } ?? "",
                    String(format: "%.1f", row.cpuNsPerChunk), String(format: "%.5f", row.coreShare),
                    String(format: "%.1f", row.realtime), String(format: "%.1f", row.chunksPerSecond),
                    "\(row.chunks)", "\(row.batch)", String(format: "%.4f", row.spread),
                    row.ratio.map { String(format: "%.3f", $0) } ?? "",
                ])
        }
        return w.text
    }
}

/// A server audio message for a custom template's `serverAudio` rule: an object holding the
/// rule's match values and the audio at its path (numbers in a path index arrays).
enum ExampleMessage {
    indirect enum Node {
        case text(String)
        case object([(String, Node)])
        case array([Node])
    }

    static func build(_ rule: CustomProfileTemplate.AudioRule, base64: String) -> [UInt8] {
        var root = Node.object([])
        for (path, value) in rule.match.sorted(by: { $0.key < $1.key }) {
            set(&root, path.split(separator: "."), value)
        }
        set(&root, rule.path.split(separator: "."), base64)
        return Array(render(root).utf8)
    }

    static func set(_ node: inout Node, _ path: [Substring], _ value: String) {
        guard let head = path.first else { return node = .text(value) }
        let rest = Array(path.dropFirst())
        if let index = Int(head), index >= 0, index < 64 {
            var items: [Node] = { if case .array(let a) = node { return a } else { return [] } }()
            while items.count <= index { items.append(.object([])) }
            set(&items[index], rest, value)
            node = .array(items)
        } else {
            var members: [(String, Node)] = { if case .object(let o) = node { return o } else { return [] } }()
            let i =
                members.firstIndex { $0.0 == head }
                ?? {
                    members.append((String(head), .object([]))); return members.count - 1
                }()
            set(&members[i].1, rest, value)
            node = .object(members)
        }
    }

    static func render(_ node: Node) -> String {
        switch node {
        case .text(let s): return quote(s)
        case .array(let a): return "[" + a.map(render).joined(separator: ",") + "]"
        case .object(let o): return "{" + o.map { quote($0.0) + ":" + render($0.1) }.joined(separator: ",") + "}"
        }
    }

    static func quote(_ s: String) -> String {
        String(decoding: (try? JSONEncoder().encode(s)) ?? Data(#""""#.utf8), as: UTF8.self)
    }
}
