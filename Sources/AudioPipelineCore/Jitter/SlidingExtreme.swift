/// Sliding minimum or maximum of timed values: a monotonic deque in fixed storage (allocated at
/// init, freed by the owner with `deallocate()`). When full (more values in the window than
/// `capacity`), the newest value replaces the last one, so the extreme itself is never lost.
///
/// `DelayEstimator` keeps two: the smallest arrival − media offset of the utterance being
/// received over the baseline window (its baseline delay) and the largest (its most delayed
/// recent packet). A plain value with raw storage, like `PacketStore`: no reallocation, no
/// exclusivity checks, pages touched once.
struct SlidingExtreme {
    let keepsMaximum: Bool
    let capacity: Int
    private let times: UnsafeMutablePointer<Int64>
    private let values: UnsafeMutablePointer<Int64>
    private var head = 0, count = 0

    init(maximum: Bool, capacity: Int) {
        keepsMaximum = maximum
        self.capacity = capacity
        times = .allocate(capacity: capacity)
        values = .allocate(capacity: capacity)
    }

    func deallocate() {
        times.deallocate()
        values.deallocate()
    }

    mutating func clear() { head = 0; count = 0 }

    /// The smallest (largest) value in the window, nil when empty.
    var extreme: Int64? { count > 0 ? values[head] : nil }

    /// Adds `value` at `time`, then forgets values older than `horizon` (always keeping the newest).
    mutating func add(_ value: Int64, at time: Int64, dropBefore horizon: Int64) {
        while count > 0 {
            let back = values[(head + count - 1) % capacity]
            guard keepsMaximum ? back <= value : back >= value else { break }
            count -= 1
        }
        if count == capacity { count -= 1 }
        let slot = (head + count) % capacity
        times[slot] = time
        values[slot] = value
        count += 1
        while count > 1 && times[head] < horizon {
            head = (head + 1) % capacity
            count -= 1
        }
    }
}
