/// What the timeline (`SessionTimeline`) draws of the ticks, kept as they pass in memory that does
/// not grow with the ticks: the runs of agent playout and of VAD speech (their start and end
/// times), and each level lane's maximum per bucket of consecutive ticks — one tick per bucket up
/// to `capacity` ticks (the plot is then the same as from every tick), then 2, 4, … ticks per bucket
/// as the session goes on, always several buckets per pixel column of the plot (the session's
/// length, which sets the columns, is known only at the end; a bucket across a column's edge counts
/// in the column of its middle).
struct SessionTimelineTrace {
    /// The level lanes, in `SessionTick`'s terms.
    enum Level: Int, CaseIterable {
        case heard, mic, echo, vadScore, buffer
    }

    struct Run {
        var start: Double
        var end: Double
    }

    static let capacity = 16_384
    let tickS: Double
    /// Ticks per bucket (a power of two).
    private(set) var ticksPerBucket = 1
    /// Buckets in use; the last may hold fewer than `ticksPerBucket` ticks.
    private(set) var buckets = 0
    private var ticksInLast = 0
    /// Per bucket: the time of its first and last tick, and each level's maximum (`Level` order).
    private var firstS: [Double]
    private var lastS: [Double]
    private var peaks: [[Double]]
    private(set) var maxBufferMs = -Double.infinity
    private(set) var playing = RunLog()
    private(set) var speech = RunLog()

    init(tickS: Double) {
        self.tickS = tickS
        firstS = [Double](repeating: 0, count: Self.capacity)
        lastS = firstS
        peaks = Level.allCases.map { _ in [Double](repeating: -.infinity, count: Self.capacity) }
    }

    /// Start and end times of the runs of ticks where something holds: a run starts a tick before
    /// the end of its first tick and ends a tick before the end of the first tick without it (or
    /// at the end of the last tick).
    struct RunLog {
        private(set) var closed: [Run] = []
        private var openedS: Double?
        private var lastTickS = 0.0

        mutating func add(_ on: Bool, timeS: Double, tickS: Double) {
            if on {
                if openedS == nil { openedS = timeS - tickS }
            } else if let s = openedS {
                closed.append(Run(start: s, end: timeS - tickS))
                openedS = nil
            }
            lastTickS = timeS
        }

        /// Every run, the one still open ending with the last tick.
        var runs: [Run] { closed + (openedS.map { [Run(start: $0, end: lastTickS)] } ?? []) }
    }

    mutating func add(_ t: SessionTick) {
        playing.add(t.playing != nil, timeS: t.timeS, tickS: tickS)
        speech.add(t.vadSpeech, timeS: t.timeS, tickS: tickS)
        maxBufferMs = max(maxBufferMs, t.bufferMs)
        if buckets == 0 || ticksInLast == ticksPerBucket {
            if buckets == Self.capacity { halve() }
            firstS[buckets] = t.timeS
            for l in peaks.indices { peaks[l][buckets] = -.infinity }
            buckets += 1
            ticksInLast = 0
        }
        let b = buckets - 1
        lastS[b] = t.timeS
        ticksInLast += 1
        add(.heard, t.heardDbfs, b)
        add(.mic, t.micDbfs, b)
        add(.echo, t.echoDbfs, b)
        add(.vadScore, t.vadScore.isFinite ? t.vadScore : -10, b)
        add(.buffer, t.bufferMs, b)
    }

    private mutating func add(_ level: Level, _ v: Double, _ b: Int) {
        peaks[level.rawValue][b] = max(peaks[level.rawValue][b], v)
    }

    /// Pairs of buckets become one: twice the ticks per bucket, half the buckets.
    private mutating func halve() {
        for k in 0..<(buckets / 2) {
            firstS[k] = firstS[2 * k]
            lastS[k] = lastS[2 * k + 1]
            for l in peaks.indices { peaks[l][k] = max(peaks[l][2 * k], peaks[l][2 * k + 1]) }
        }
        buckets /= 2
        ticksPerBucket *= 2
        ticksInLast = ticksPerBucket
    }

    /// Where bucket `b` sits on the time axis: the middle of its first and last tick's ends (a
    /// tick's own end when it holds one).
    func timeS(_ b: Int) -> Double { (firstS[b] + lastS[b]) / 2 }

    /// The maximum of `level` over bucket `b`'s ticks.
    func peak(_ level: Level, _ b: Int) -> Double { peaks[level.rawValue][b] }
}
