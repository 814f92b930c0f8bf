import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// One mono track of a session — the user's track, a recorded microphone, a played reference, the
/// agent's audio — at one rate, held in memory (an app's tests, a short file) or read from its file
/// block by block as the session plays (`reader()`), so a session of any length runs in constant
/// memory. A file is measured when it is loaded (`file`): its length at the rate, padded with
/// silence or cut to a given one, and its 10 ms frame levels — all the simulator needs of the whole
/// signal before it starts (where responses and the user's speech are).
public struct SessionSignal: Sendable {
    enum Source: Sendable {
        case samples([Float])
        /// The file as mono at `rate` through `AudioLoader`'s conversion (nil: its own rate).
        case file(path: String, rate: Int?)
    }

    let source: Source
    /// Samples in the signal.
    public let count: Int
    /// A file's 10 ms frame levels, measured when it was loaded.
    private let measured: FrameLevels.Measured?

    /// A signal held in memory.
    public init(_ samples: [Float]) {
        source = .samples(samples)
        count = samples.count
        measured = nil
    }

    private init(path: String, rate: Int?, count: Int, measured: FrameLevels.Measured) {
        source = .file(path: path, rate: rate)
        self.count = count
        self.measured = measured
    }

    /// Whether the samples are held in memory (else the file is read again as the session plays).
    public var isHeld: Bool {
        if case .samples = source { return true }
        return false
    }

    /// Files of at most this many samples (at the rate read) are held in memory after they are
    /// measured, sparing a second read (a room sweep runs the same short tracks many times):
    /// 2 Mi samples, 8 MB, 44 s at 48 kHz.
    public static let holdLimit = 1 << 21

    /// What `file` found: the signal, its rate, and what the file lacked (`AudioLoader.mono`'s
    /// warnings, and `AudioLoader.reference`'s when the length had to change).
    public struct Loaded: Sendable {
        /// The samples (in memory or read from the file as needed).
        public var signal: SessionSignal
        /// Their rate, Hz.
        public var rate: Int
        /// What the file lacked or what was changed.
        public var warnings: [String]
    }

    /// Reads `path` once as mono at `rate` (nil: its own), through the conversion `AudioLoader.mono`
    /// uses, measuring its length and frame levels; padded with silence or cut to `length` when
    /// given (a reference on its microphone's timeline). Holds the samples when there are at most
    /// `holdLimit` of them.
    public static func file(
        path: String, rate: Int?, length: Int? = nil, holdLimit: Int = SessionSignal.holdLimit
    ) throws(AudioPipelineError) -> Loaded {
        var meter = FrameLevels.Meter(rate: rate ?? 0)
        var held: [Float]? = []
        var total = 0
        let read = try AudioLoader.monoBlocks(path: path, rate: rate) { (outRate) throws(AudioPipelineError) in
            meter = FrameLevels.Meter(rate: outRate)
        } _: { (block) throws(AudioPipelineError) in
            let keep = length.map { max(0, min(block.count, $0 - total)) } ?? block.count
            meter.add(UnsafeBufferPointer(rebasing: block[0..<keep]))
            total += block.count
            if let n = held?.count, n + keep <= holdLimit {
                held?.append(contentsOf: block[0..<keep])
            } else {
                held = nil
            }
        }
        let count = length ?? total
        if count > total { meter.addSilence(count - total) }
        var warnings = read.warnings
        if let length, let w = AudioLoader.lengthWarning(path: path, reference: total, microphone: length) {
            warnings.append(w)
        }
        let signal: SessionSignal
        if var samples = held, count <= holdLimit {
            if samples.count < count { samples += [Float](repeating: 0, count: count - samples.count) }
            signal = SessionSignal(samples)
        } else {
            signal = SessionSignal(path: path, rate: rate, count: count, measured: meter.finish())
        }
        return Loaded(signal: signal, rate: read.rate, warnings: warnings)
    }

    /// The levels of its consecutive 10 ms frames at `rate` (the rate it is at): measured when the
    /// file was loaded, else computed from the samples.
    func frameLevels(rate: Int) -> FrameLevels.Measured {
        switch source {
        case .samples(let x):
            return FrameLevels.of(x, rate: rate)
        case .file(let path, _):
            let m = measured!
            precondition(m.frame == FrameLevels.frame(rate: rate), "\(path): measured at another rate")
            return m
        }
    }

    /// A reader from the signal's first sample.
    func reader() throws(AudioPipelineError) -> SessionSignalReader {
        try SessionSignalReader(self)
    }
}

/// A `SessionSignal` from its start, block by block: each `read` fills the next samples, silence
/// after the signal's end. A file is pulled through `MonoPuller` (the same samples as
/// `AudioLoader.mono`); nothing is allocated per read.
final class SessionSignalReader {
    private let samples: [Float]
    private let puller: MonoPuller?
    private let count: Int
    /// Samples handed out so far (silence after the end included).
    private(set) var position = 0

    init(_ signal: SessionSignal) throws(AudioPipelineError) {
        count = signal.count
        switch signal.source {
        case .samples(let x):
            samples = x
            puller = nil
        case .file(let path, let rate):
            samples = []
            if let rate {
                puller = try MonoPuller(path: path, rate: rate, resampler: .default)
            } else {
                puller = try MonoPuller(path: path)
            }
        }
    }

    /// Fills `destination` with the next samples (silence after the end).
    func read(into destination: UnsafeMutableBufferPointer<Float>) throws(AudioPipelineError) {
        let n = max(0, min(destination.count, count - position))
        var got = n
        if let puller {
            // A file shorter than measured (it changed since) ends in silence.
            got = try puller.pull(into: UnsafeMutableBufferPointer(rebasing: destination[0..<n]))
        } else {
            samples.withUnsafeBufferPointer { s in
                for i in 0..<n { destination[i] = s[position + i] }
            }
        }
        for i in got..<destination.count { destination[i] = 0 }
        position += destination.count
    }
}

/// The levels of a signal's consecutive 10 ms frames (the last one may be shorter), dBFS RMS: what
/// `ResponseSplitter` and `UserSpeech` decide on. Computed whole (`of`) or as blocks pass (`Meter`),
/// to the same values (the same sums in the same order).
enum FrameLevels {
    typealias Measured = (frame: Int, dbfs: [Double])

    static func frame(rate: Int) -> Int { max(1, rate / 100) }

    static func of(_ x: [Float], rate: Int) -> Measured {
        var meter = Meter(rate: rate)
        meter.reserve(x.count / frame(rate: rate) + 1)
        x.withUnsafeBufferPointer { meter.add($0) }
        return meter.finish()
    }

    /// Frame levels of the samples added so far; `finish` adds the last, shorter frame.
    struct Meter {
        let frame: Int
        private var levels: [Double] = []
        private var energy: Float = 0
        private var filled = 0

        init(rate: Int) { frame = FrameLevels.frame(rate: rate) }

        mutating func reserve(_ frames: Int) { levels.reserveCapacity(frames) }

        mutating func add(_ x: UnsafeBufferPointer<Float>) {
            var i = 0
            while i < x.count {
                let n = min(frame - filled, x.count - i)
                var e = energy
                for k in i..<(i + n) { e += x[k] * x[k] }
                energy = e
                filled += n
                i += n
                if filled == frame { closeFrame() }
            }
        }

        mutating func addSilence(_ count: Int) {
            var left = count
            while left > 0 {
                let n = min(left, frame - filled)
                filled += n
                left -= n
                if filled == frame { closeFrame() }
            }
        }

        private mutating func closeFrame() {
            levels.append(10 * log10(Double(energy) / Double(filled) + 1e-12))
            energy = 0
            filled = 0
        }

        mutating func finish() -> Measured {
            if filled > 0 { closeFrame() }
            return (frame, levels)
        }
    }
}
