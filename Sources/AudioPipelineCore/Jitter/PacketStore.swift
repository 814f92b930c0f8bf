/// The jitter buffer's queued audio: a pool of fixed 64-sample blocks chained per packet, and the
/// queued packets as a ring of slot indices sorted by (utterance, media).
///
/// Everything is allocated once, at init, and sized by the configuration: `capacity` samples of
/// audio (rounded up to whole blocks, every page touched at init so a real-time thread takes no
/// page faults on its first packets) and `maximumPackets` packet slots. Blocks make any packet
/// size and any arrival order fit without fragmentation; a packet that does not fit is refused
/// (the buffer counts it as overflow), never half stored.
///
/// A plain value holding raw pointers, owned by one `JitterBuffer` (which frees it in its `deinit`
/// with `deallocate()`): copying it would alias the storage, so it is never copied. It does no
/// accounting of its own beyond what it holds; statistics and playout policy are the buffer's.
///
/// The reading methods are `@inline(__always)`: a non-mutating call on a struct stored in a class
/// passes a copy of the whole struct (about 100 bytes here, measured at ~10 ns per push and per
/// pull), which inlining removes; the mutating ones get the property's address.
struct PacketStore {
    /// One queued packet.
    struct Slot {
        var sequence: Int64 = 0
        var utterance: Int64 = 0
        var media: Int64 = 0
        var length = 0
        var firstBlock: Int32 = -1
        /// Samples of this packet already consumed (from its start), and the block holding that position.
        var consumed = 0
        var readBlock: Int32 = -1

        /// Media time one past the packet's last sample.
        @inline(__always) var end: Int64 { media + Int64(length) }
    }

    static let blockSize = 64

    let blockCount: Int
    let maximumPackets: Int
    private let audio: UnsafeMutablePointer<Float>
    private let nextBlock: UnsafeMutablePointer<Int32>
    private let freeBlocks: UnsafeMutablePointer<Int32>
    private var freeBlockCount: Int
    private let slots: UnsafeMutablePointer<Slot>
    private let freeSlots: UnsafeMutablePointer<Int32>
    private var freeSlotCount: Int
    /// Queued packets sorted by (utterance, media): a ring of slot indices.
    private let order: UnsafeMutablePointer<Int32>
    private var orderHead = 0
    /// Packets queued.
    private(set) var count = 0
    /// Samples queued (whole packets, consumed parts included).
    private(set) var queuedSamples = 0

    /// - Throws: `invalidConfiguration` when `capacity` needs more blocks than an `Int32` counts.
    init(capacity: Int, maximumPackets: Int) throws(AudioPipelineError) {
        let blockCount = (capacity + Self.blockSize - 1) / Self.blockSize
        guard blockCount < Int(Int32.max) else {
            throw AudioPipelineError(.invalidConfiguration, "jitter buffer: capacity is too large")
        }
        self.blockCount = blockCount
        self.maximumPackets = maximumPackets
        audio = .allocate(capacity: blockCount * Self.blockSize)
        // Touch every page now: a real-time thread must not take page faults on its first packets.
        audio.initialize(repeating: 0, count: blockCount * Self.blockSize)
        nextBlock = .allocate(capacity: blockCount)
        freeBlocks = .allocate(capacity: blockCount)
        for i in 0..<blockCount { freeBlocks[i] = Int32(blockCount - 1 - i) }
        freeBlockCount = blockCount
        slots = .allocate(capacity: maximumPackets)
        slots.initialize(repeating: Slot(), count: maximumPackets)
        freeSlots = .allocate(capacity: maximumPackets)
        for i in 0..<maximumPackets { freeSlots[i] = Int32(maximumPackets - 1 - i) }
        freeSlotCount = maximumPackets
        order = .allocate(capacity: maximumPackets)
    }

    /// Frees the storage; the store must not be used afterwards.
    func deallocate() {
        audio.deallocate()
        nextBlock.deallocate()
        freeBlocks.deallocate()
        slots.deinitialize(count: maximumPackets)
        slots.deallocate()
        freeSlots.deallocate()
        order.deallocate()
    }

    // MARK: - The ordered ring

    /// Position in `order` of the `i`-th queued packet.
    @inline(__always) private func ring(_ i: Int) -> Int {
        let r = orderHead + i
        return r >= maximumPackets ? r - maximumPackets : r
    }

    /// The `i`-th queued packet in (utterance, media) order.
    @inline(__always) func packet(_ i: Int) -> Slot { slots[Int(order[ring(i)])] }

    /// The first queued packet, if any.
    @inline(__always) var front: Slot? { count > 0 ? slots[Int(order[orderHead])] : nil }

    /// Removes the first queued packet, returning its blocks and slot to the pool.
    mutating func releaseFront() {
        let index = Int(order[orderHead])
        var b = slots[index].firstBlock
        while b >= 0 {
            freeBlocks[freeBlockCount] = b
            freeBlockCount += 1
            b = nextBlock[Int(b)]
        }
        queuedSamples -= slots[index].length
        freeSlots[freeSlotCount] = Int32(index)
        freeSlotCount += 1
        orderHead = ring(1)
        count -= 1
    }

    /// Records that the first queued packet has been consumed up to `consumed` samples (less than
    /// its length).
    @inline(__always) mutating func setFrontConsumed(_ consumed: Int) {
        let index = Int(order[orderHead])
        slots[index].readBlock = locate(slots[index], consumed).block
        slots[index].consumed = consumed
    }

    // MARK: - Input

    /// Where a packet of (`utterance`, `media`) goes in the order, searching from the back (arrivals
    /// are mostly in order); nil when a packet with the same utterance and media is queued.
    @inline(__always)
    func insertionPoint(utterance: Int64, media: Int64) -> Int? {
        var pos = count
        while pos > 0 {
            let s = packet(pos - 1)
            if s.utterance < utterance || (s.utterance == utterance && s.media < media) { break }
            if s.utterance == utterance && s.media == media { return nil }
            pos -= 1
        }
        return pos
    }

    /// Whether a packet of `samples` samples fits (a free slot and enough free blocks).
    @inline(__always)
    func canStore(_ samples: Int) -> Bool {
        freeSlotCount > 0 && (samples + Self.blockSize - 1) / Self.blockSize <= freeBlockCount
    }

    /// Stores a packet (which must fit, `canStore`) at position `pos` of the order.
    @inline(__always)
    mutating func insert(
        _ samples: UnsafeBufferPointer<Float>, sequence: Int64, utterance: Int64, media: Int64, at pos: Int
    ) {
        let n = samples.count
        let needBlocks = (n + Self.blockSize - 1) / Self.blockSize
        freeSlotCount -= 1
        let slotIndex = freeSlots[freeSlotCount]
        var first: Int32 = -1, previous: Int32 = -1
        var copied = 0
        for _ in 0..<needBlocks {
            freeBlockCount -= 1
            let b = freeBlocks[freeBlockCount]
            nextBlock[Int(b)] = -1
            if previous >= 0 { nextBlock[Int(previous)] = b } else { first = b }
            previous = b
            let m = min(Self.blockSize, n - copied)
            (audio + Int(b) * Self.blockSize).update(from: samples.baseAddress! + copied, count: m)
            copied += m
        }
        slots[Int(slotIndex)] = Slot(
            sequence: sequence, utterance: utterance, media: media, length: n, firstBlock: first, consumed: 0,
            readBlock: first)
        // Insert at pos: shift the tail one place back.
        var i = count
        while i > pos {
            order[ring(i)] = order[ring(i - 1)]
            i -= 1
        }
        order[ring(pos)] = slotIndex
        count += 1
        queuedSamples += n
    }

    // MARK: - Reading

    /// The block holding sample `offset` of a packet and that block's first sample, walking on from
    /// the packet's read position (or from its start for an earlier offset).
    @inline(__always)
    func locate(_ s: Slot, _ offset: Int) -> (block: Int32, blockStart: Int) {
        var block = s.readBlock
        var blockStart = s.consumed - s.consumed % Self.blockSize
        if offset < s.consumed { block = s.firstBlock; blockStart = 0 }
        while offset - blockStart >= Self.blockSize {
            block = nextBlock[Int(block)]
            blockStart += Self.blockSize
        }
        return (block, blockStart)
    }

    /// Copies up to `limit` contiguous samples of `utterance` from media time `position` into `dst`
    /// without consuming them; returns the count. Stops at a gap, at another utterance or at the end.
    @inline(__always)
    func gather(
        utterance: Int64, from position: Int64, into dst: UnsafeMutablePointer<Float>, limit: Int
    ) -> Int {
        var got = 0
        var position = position
        var i = 0
        while got < limit && i < count {
            let s = packet(i)
            if s.utterance != utterance || s.media > position { break }
            if s.end > position {
                var offset = Int(position - s.media)
                var (block, blockStart) = locate(s, offset)
                while got < limit && offset < s.length {
                    let inBlock = offset - blockStart
                    let m = min(Self.blockSize - inBlock, s.length - offset, limit - got)
                    (dst + got).update(from: audio + Int(block) * Self.blockSize + inBlock, count: m)
                    got += m
                    offset += m
                    position += Int64(m)
                    if inBlock + m == Self.blockSize {
                        block = nextBlock[Int(block)]
                        blockStart += Self.blockSize
                    }
                }
            }
            i += 1
        }
        return got
    }
}
