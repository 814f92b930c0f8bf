/// What the jitter buffer knows about arrival delays: for every packet `r = arrival − media`.
///
/// Inside an utterance `r` differs from packet to packet only by network jitter, so the estimator
/// keeps, for the utterance being received,
/// - the *baseline* `B`: the smallest `r` over the last `baselineWindow` (a sliding minimum, so
///   slow delay drift is followed), and the largest `r` over the same window (its most delayed
///   recent packet), both with `SlidingExtreme`;
/// - the jitter `j = r − B` of every arrival in a histogram of 1 ms bins over the last
///   `historyWindow` of arrivals (a ring of (time, bin) records, so old ones leave the histogram);
/// and from the histogram the *jitter margin* `T = quantile(j, quantile) + margin`, clamped to
/// [`minimumTarget`, `maximumTarget`] (`initialTarget` before 16 arrivals). The margin is computed
/// lazily: arrivals only mark it stale.
///
/// A plain value with raw storage allocated at init and freed by its owner with `deallocate()`,
/// owned by one `JitterBuffer`; it never allocates afterwards.
struct DelayEstimator {
    static let binCount = 1024

    private let binWidth: Int
    private let histogram: UnsafeMutablePointer<Int32>
    private var histogramTotal = 0
    /// Highest non-empty bin (the quantile walk starts there).
    private var histogramTop = 0
    private let historyTime: UnsafeMutablePointer<Int64>
    private let historyBin: UnsafeMutablePointer<Int16>
    private let historyCapacity: Int
    private var historyHead = 0
    private var historyCount = 0
    private var cachedMargin: Int
    private var marginDirty = true
    // Sliding minimum (the baseline) and maximum of r over the baseline window, for the utterance
    // being received.
    private var recentMinimum: SlidingExtreme
    private var recentMaximumDelay: SlidingExtreme
    /// The utterance being received (the newest one with an arrival), its baseline, and when its
    /// first packet arrived.
    private(set) var receivingUtterance: Int64 = .min
    private(set) var receivingBaseline: Int64 = 0
    private(set) var receivingFirstArrival: Int64 = 0

    // The configuration's windows and margin rules.
    private let baselineWindow: Int
    private let historyWindow: Int
    private let quantile: Double
    private let initialTarget: Int
    private let minimumTarget: Int
    private let maximumTarget: Int
    private let margin: Int

    init(configuration c: JitterBuffer.Configuration) {
        binWidth = max(1, c.sampleRate / 1000)
        histogram = .allocate(capacity: Self.binCount)
        histogram.initialize(repeating: 0, count: Self.binCount)
        historyCapacity = max(256, c.maximumPackets)
        historyTime = .allocate(capacity: historyCapacity)
        historyBin = .allocate(capacity: historyCapacity)
        recentMinimum = SlidingExtreme(maximum: false, capacity: 1024)
        recentMaximumDelay = SlidingExtreme(maximum: true, capacity: 1024)
        cachedMargin = c.initialTarget
        baselineWindow = c.baselineWindow
        historyWindow = c.historyWindow
        quantile = c.quantile
        initialTarget = c.initialTarget
        minimumTarget = c.minimumTarget
        maximumTarget = c.maximumTarget
        margin = c.margin
    }

    /// Frees the storage; the estimator must not be used afterwards.
    func deallocate() {
        histogram.deallocate()
        historyTime.deallocate()
        historyBin.deallocate()
        recentMinimum.deallocate()
        recentMaximumDelay.deallocate()
    }

    /// Forgets the history, the histogram and the utterance being received.
    mutating func reset() {
        histogram.update(repeating: 0, count: Self.binCount)
        histogramTotal = 0
        histogramTop = 0
        historyHead = 0
        historyCount = 0
        recentMinimum.clear()
        recentMaximumDelay.clear()
        receivingUtterance = .min
        cachedMargin = initialTarget
        marginDirty = true
    }

    /// The largest `r` of the utterance being received over the baseline window, if any.
    @inline(__always) var recentMaximum: Int64? { recentMaximumDelay.extreme }

    /// Takes the delay `r` of a packet of `utterance` arriving at `time`. Returns false, and
    /// ignores it, for a straggler of an older utterance than the one being received (it says
    /// nothing about the current baseline).
    mutating func noteArrival(utterance: Int64, r: Int64, time: Int64) -> Bool {
        if utterance < receivingUtterance { return false }
        if utterance != receivingUtterance {
            receivingUtterance = utterance
            recentMinimum.clear()
            recentMaximumDelay.clear()
            receivingFirstArrival = time
        }
        let horizon = time - Int64(baselineWindow)
        recentMinimum.add(r, at: time, dropBefore: horizon)
        recentMaximumDelay.add(r, at: time, dropBefore: horizon)
        receivingBaseline = recentMinimum.extreme!
        // Jitter sample.
        let j = max(0, r - receivingBaseline)
        let bin = Int16(min(Int64(Self.binCount - 1), j / Int64(binWidth)))
        if historyCount == historyCapacity { removeOldestHistory() }
        let slot = (historyHead + historyCount) % historyCapacity
        historyTime[slot] = time
        historyBin[slot] = bin
        historyCount += 1
        histogram[Int(bin)] += 1
        histogramTotal += 1
        if Int(bin) > histogramTop { histogramTop = Int(bin) }
        marginDirty = true
        expireHistory(before: time - Int64(historyWindow))
        return true
    }

    private mutating func removeOldestHistory() {
        let bin = Int(historyBin[historyHead])
        histogram[bin] -= 1
        histogramTotal -= 1
        if bin == histogramTop { while histogramTop > 0 && histogram[histogramTop] == 0 { histogramTop -= 1 } }
        historyHead = (historyHead + 1) % historyCapacity
        historyCount -= 1
        marginDirty = true
    }

    /// Drops the arrivals before `time` from the histogram.
    @inline(__always)
    mutating func expireHistory(before time: Int64) {
        while historyCount > 0 && historyTime[historyHead] < time { removeOldestHistory() }
    }

    /// The jitter margin `T`, samples: recomputed if arrivals came or left since the last call.
    mutating func jitterMargin() -> Int {
        guard marginDirty else { return cachedMargin }
        marginDirty = false
        guard histogramTotal >= 16 else {
            cachedMargin = min(max(initialTarget, minimumTarget), maximumTarget)
            return cachedMargin
        }
        // Smallest bin b with count(j in bins ≤ b) ≥ quantile·total, walking down from the top.
        let allowedAbove = Int(Double(histogramTotal) * (1 - quantile))
        var above = 0
        var b = histogramTop
        while b > 0 {
            let h = Int(histogram[b])
            if above + h > allowedAbove { break }
            above += h
            b -= 1
        }
        let value = (b + 1) * binWidth + margin
        cachedMargin = min(max(value, minimumTarget), maximumTarget)
        return cachedMargin
    }
}
