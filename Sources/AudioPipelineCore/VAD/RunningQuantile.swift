/// A running quantile over the last `window` values, on a histogram of 0.25 dB bins from −140 dB
/// to +20 dB. The quantile bin moves by small steps as values come and go: O(1) amortised.
struct RunningQuantile {
    static let low = -140.0
    static let step = 0.25
    static let bins = 640
    /// The histogram's counts (`bins` of them), then the window's ring of bins: one buffer, so that
    /// `add` checks one array's uniqueness once, not two arrays' at each write (with a reference a
    /// frame adds to dozens — floors, talker, the echo model's gains and spreads per band —: `add`
    /// and its settling were 9 % of the frame's time; one buffer took 3–4 % off the frame). 16-bit
    /// entries: a bin index is under 640 and a count at most the window, which the detector's
    /// settings keep under 12 000 frames (`init` checks 65 535); the ~75 histograms a frame with a
    /// reference touches then take half the cache lines (the frame where the agent talks 1–1.5 %
    /// faster, 2026-12-05).
    private var storage: [UInt16]
    private let window: Int
    private var head = 0
    private var count = 0
    private var index = 0
    private var below = 0
    /// `power` of every bin's centre, computed once (`exp10` is a libm `pow` call on Linux).
    static let binPowers = (0..<bins).map { power(low + (Double($0) + 0.5) * step) }
    /// `power` of bin `index`'s centre (kept only `withPower`).
    private var indexPower = binPowers[0]
    let quantile: Double
    let withPower: Bool
    /// A second quantile of the same window, or NaN: a value and its spread learnt from the same
    /// values (the echo model's gain and its 75th percentile per band) share one histogram and one
    /// ring: one add where there were two (the frame where the agent talks, p50 2.33 → 2.29 µs).
    let upperQuantile: Double
    private var upperIndex = 0
    private var upperBelow = 0

    init(window: Int, quantile: Double, withPower: Bool = false, upperQuantile: Double = .nan) {
        precondition(window <= Int(UInt16.max), "RunningQuantile: a window of \(window) values needs wider counts")
        self.window = max(1, window)
        storage = [UInt16](repeating: 0, count: Self.bins + self.window)
        self.quantile = quantile
        self.withPower = withPower
        self.upperQuantile = upperQuantile
    }

    var isEmpty: Bool { count == 0 }
    var size: Int { count }

    /// The bin of `v` dB (NaN counts as the lowest). Truncation of a non-negative value is its
    /// floor, and ×4 is exactly ÷0.25: no division and no libm `floor` call (SSE2 has no `roundsd`).
    @inline(__always) static func bin(_ v: Double) -> Int {
        let x = (v - low) * (1 / step)
        return x >= 0 ? (x < Double(bins) ? Int(x) : bins - 1) : 0
    }

    mutating func add(_ v: Double) {
        let b = Self.bin(v)
        // (The position and counts in locals, written back after: the closure holds `storage`
        // mutably, which excludes any other access to `self` inside it.)
        let bins = Self.bins
        let window = window
        var head = head
        var count = count
        var below = below
        var upperBelow = upperBelow
        if count == 0 {
            // An empty window (a new stream, a reset): the walk to its quantiles starts at the one
            // value's bin, where it would end, not at bin 0 — from there it took up to 640 steps, and
            // the frame that first fed a band's histograms 2–3 µs more (a session's first frame, the
            // first frames the echo model learnt from). `below` counts the values under `index`: none.
            index = b
            upperIndex = b
            below = 0
            upperBelow = 0
            if withPower { indexPower = Self.binPowers[b] }
        }
        let index = index
        let upperIndex = upperIndex
        storage.withUnsafeMutableBufferPointer { s in
            let counts = s.baseAddress!
            let ring = counts + bins
            if count == window {
                let old = Int(ring[head])
                counts[old] -= 1
                below &-= old < index ? 1 : 0
                upperBelow &-= old < upperIndex ? 1 : 0
                head = head + 1 == window ? 0 : head + 1
                count -= 1
            }
            var tail = head + count
            if tail >= window { tail -= window }
            ring[tail] = UInt16(b)
            count += 1
            counts[b] += 1
            // Without branches: whether a value lies under the median is a coin's toss, and a
            // mispredicted branch costs more than the add (a value's add 18 → 13 ns on values
            // drawn at random, a Zen 4; `below` stays within 0…window, no overflow to check).
            below &+= b < index ? 1 : 0
            upperBelow &+= b < upperIndex ? 1 : 0
        }
        self.head = head
        self.count = count
        self.below = below
        self.upperBelow = upperBelow
        settle()
    }

    mutating func reset() {
        for i in 0..<Self.bins { storage[i] = 0 }
        head = 0
        count = 0
        index = 0
        below = 0
        upperIndex = 0
        upperBelow = 0
        indexPower = Self.binPowers[0]
    }

    /// Forgets every value and holds `count` copies of `v` instead (at most the window): a floor
    /// lifted to a noise that switched on. The window then fills again from that small count, so
    /// the values that follow outweigh it within a fraction of `count`.
    mutating func refill(_ v: Double, count n: Int) {
        reset()
        for _ in 0..<min(n, window) { add(v) }
    }

    /// Moves `index` to the smallest bin whose cumulative count exceeds quantile·count (and
    /// `upperIndex` likewise for `upperQuantile`).
    private mutating func settle() {
        let was = index
        var index = index
        var below = below
        var upperIndex = upperIndex
        var upperBelow = upperBelow
        let hasUpper = !upperQuantile.isNaN
        let target = Double(count) * quantile
        let upperTarget = Double(count) * upperQuantile
        storage.withUnsafeBufferPointer { counts in
            Self.settle(&index, &below, target: target, counts)
            if hasUpper { Self.settle(&upperIndex, &upperBelow, target: upperTarget, counts) }
        }
        self.index = index
        self.below = below
        self.upperIndex = upperIndex
        self.upperBelow = upperBelow
        if withPower && index != was { indexPower = Self.binPowers[index] }
    }

    @inline(__always)
    private static func settle(
        _ index: inout Int, _ below: inout Int, target: Double, _ counts: UnsafeBufferPointer<UInt16>
    ) {
        while index > 0 && Double(below) > target {
            index -= 1
            below -= Int(counts[index])
        }
        while index < bins - 1 && Double(below + Int(counts[index])) <= target {
            below += Int(counts[index])
            index += 1
        }
    }

    /// The quantile (centre of its bin), or `fallback` when empty.
    func value(or fallback: Double) -> Double {
        count == 0 ? fallback : Self.low + (Double(index) + 0.5) * Self.step
    }

    /// The `upperQuantile` (centre of its bin), or `fallback` when empty.
    func upperValue(or fallback: Double) -> Double {
        count == 0 ? fallback : Self.low + (Double(upperIndex) + 0.5) * Self.step
    }

    /// `value(or:)` and its power (`power(value)`), the power from the table of bins' powers.
    /// Needs `withPower`.
    @inline(__always)
    func valueAndPower(or fallback: Double) -> (db: Double, power: Double) {
        count == 0 ? (fallback, power(fallback)) : (Self.low + (Double(index) + 0.5) * Self.step, indexPower)
    }
}
