// Playout: how `pull` fills a tick. A flush first (fade-out, then the cancelled audio dropped),
// then steps until the tick is full: start an utterance when its time has come, stretch a whole
// tick when the delay is off target (JitterBuffer+TimeStretch.swift), copy the audio at the
// cursor, and when there is none, decide between ending the utterance, jumping a hole, running on
// in real time and stalling.

extension JitterBuffer {
    /// Applies a pending flush at the start of a tick: if a cancelled utterance is playing, it ends
    /// with a fade-out no longer than `fade` that also ends within `flushTailLimit` of the flush.
    /// Returns the samples of the tick written.
    func applyPendingFlush(into out: UnsafeMutablePointer<Float>) -> Int {
        let n = configuration.tick
        var written = 0
        pendingFlush = false
        if playing && playUtterance <= flushedThrough {
            let budget = Int(max(0, pendingFlushTime + Int64(configuration.flushTailLimit) - clock))
            let f = gather(into: scratch, limit: min(configuration.fade, budget, n))
            if f > 0 {
                let fadeLength = f
                for k in 0..<f { out[k] = scratch[k] * Float(fadeLength - k) / Float(fadeLength + 1) }
                consume(f, outputStart: 0, outputLength: Double(f))
                written = f
            }
            stopPlaying()
            lastOutputSilent = true
        }
        dropQueued(throughUtterance: flushedThrough)
        if firstOpenUtterance <= flushedThrough { firstOpenUtterance = flushedThrough &+ 1 }
        return written
    }

    /// One step of a tick from sample `written`: returns how far the tick is written now (the
    /// same position when the step only changed state, such as ending an utterance).
    @inline(__always)
    func playout(into out: UnsafeMutablePointer<Float>, from written: Int) -> Int {
        let n = configuration.tick
        if !playing && !startIfDue(at: clock + Int64(written)) {
            fillSilence(out + written, n - written, inUtterance: false)
            return n
        }
        dropBehindCursor()
        // Stretch only whole ticks, decided from the delay before any audio is copied.
        if written == 0 && stretchTick(into: out) { return n }
        // Normal playout: straight from the packets into the output.
        let m = gather(into: out + written, limit: n - written)
        if m == 0 { return fillGap(into: out, from: written) }
        commitConcealment()
        if lastOutputSilent { fadeIn(out + written, m) }
        lastOutputSilent = false
        addDelay(count: m, outputStart: written)
        consume(m, outputStart: Double(written), outputLength: Double(m))
        // Does the audio go on after this piece (the next queued packet covers the cursor)? If
        // not, fade out: a gap or the end follows.
        if !continuesAtCursor() { fadeOut(out + written, m) }
        return written + m
    }

    /// Nothing at the cursor: the next utterance is queued (this one is over), or a hole (later
    /// audio queued) is waited for while the delay is under the target and then jumped (the cursor
    /// moves to the next queued audio at once, so only the wait is concealed; the fixed policy
    /// conceals holes in real time instead), or the buffer is empty and playout stalls — unless
    /// the delay is already `maximumStall` beyond the target, when it runs on in real time.
    func fillGap(into out: UnsafeMutablePointer<Float>, from written: Int) -> Int {
        let n = configuration.tick
        let want = n - written
        let next = store.front
        if let next, next.utterance != playUtterance {
            stopPlaying()
            return written
        }
        let delay = clock + Int64(written) - cursor
        if let next, delay >= targetDelay() + Int64(isAdaptive ? configuration.holeWait : 0) {
            if isAdaptive {
                cursor = next.media
                return written
            }
            let hole = Int(min(Int64(want), next.media - cursor))
            fillSilence(out + written, hole, inUtterance: true)
            cursor += Int64(hole)
            return written + hole
        }
        if delay >= targetDelay()
            && (!isAdaptive || delay - max(targetDelay(), recentMaximum()) > Int64(configuration.maximumStall))
        {
            fillSilence(out + written, want, inUtterance: true)
            cursor += Int64(want)
            return n
        }
        fillSilence(out + written, want, inUtterance: true)  // stall
        return n
    }

    // MARK: - Decisions

    var isAdaptive: Bool { if case .adaptive = configuration.policy { return true } else { return false } }

    /// Target playout delay (output time − media time) for the playing utterance.
    func targetDelay() -> Int64 {
        if case .fixed(let d) = configuration.policy { return fixedStart + Int64(d) }
        let baseline = playUtterance == estimator.receivingUtterance ? estimator.receivingBaseline : playBaseline
        return baseline + Int64(estimator.jitterMargin())
    }

    /// Largest r of the playing utterance over the baseline window (its most delayed recent packet).
    func recentMaximum() -> Int64 {
        guard playUtterance == estimator.receivingUtterance else { return Int64.min }
        return estimator.recentMaximum ?? Int64.min
    }

    /// Starts the first queued utterance if its start time has come.
    func startIfDue(at now: Int64) -> Bool {
        dropBeforeOpenUtterances()
        guard let s = store.front else { return false }
        // An older utterance than the one arriving now is complete as far as it goes: play it at once.
        let current = s.utterance == estimator.receivingUtterance
        let margin = estimator.jitterMargin()
        if current {
            let start: Int64
            switch configuration.policy {
            case .adaptive: start = s.media + estimator.receivingBaseline + Int64(margin)
            case .fixed(let d): start = estimator.receivingFirstArrival + Int64(d)
            }
            if start > now { return false }
        }
        playing = true
        playUtterance = s.utterance
        if firstOpenUtterance < s.utterance { firstOpenUtterance = s.utterance }
        cursor = s.media + Int64(s.consumed)
        playBaseline = current ? estimator.receivingBaseline : now - cursor - Int64(margin)
        fixedStart = (current ? estimator.receivingFirstArrival : now) - s.media
        pendingConceal = 0
        concealing = false
        return true
    }

    func stopPlaying() {
        playing = false
        pendingConceal = 0
        concealing = false
        if firstOpenUtterance <= playUtterance { firstOpenUtterance = playUtterance &+ 1 }
    }

    // MARK: - Output helpers

    func fillSilence(_ p: UnsafeMutablePointer<Float>, _ count: Int, inUtterance: Bool) {
        guard count > 0 else { return }
        p.update(repeating: 0, count: count)
        lastOutputSilent = true
        if inUtterance {
            if !concealing { concealing = true }
            pendingConceal += count
        }
    }

    /// Concealment counts only once audio of the same utterance follows it (else it was the end).
    func commitConcealment() {
        if concealing {
            statistics.samplesConcealed += pendingConceal
            statistics.underruns += 1
        }
        concealing = false
        pendingConceal = 0
    }

    func fadeIn(_ p: UnsafeMutablePointer<Float>, _ count: Int) {
        let f = min(configuration.fade, count)
        for k in 0..<f { p[k] *= Float(k + 1) / Float(f + 1) }
    }

    func fadeOut(_ p: UnsafeMutablePointer<Float>, _ count: Int) {
        let f = min(configuration.fade, count)
        for k in 0..<f { p[count - f + k] *= Float(f - k) / Float(f + 1) }
        lastOutputSilent = true
    }

    func addDelay(count: Int, outputStart: Int) {
        let base = Double(clock + Int64(outputStart) - cursor)
        statistics.delaySum += base * Double(count)
        statistics.samplesPlayed += count
    }

    // MARK: - Queue

    func dropBeforeOpenUtterances() {
        while let s = store.front, s.utterance < firstOpenUtterance {
            statistics.packetsLate += 1
            statistics.samplesLate += s.length - s.consumed
            store.releaseFront()
        }
    }

    /// Drops queued packets of left utterances and packets wholly behind the cursor.
    func dropBehindCursor() {
        while let s = store.front, s.utterance < playUtterance || (s.utterance == playUtterance && s.end <= cursor) {
            statistics.packetsLate += 1
            statistics.samplesLate += s.length - s.consumed
            store.releaseFront()
        }
    }

    func dropQueued(throughUtterance u: Int64) {
        // Queued packets are sorted by utterance, so the cancelled ones are at the front.
        while let s = store.front, s.utterance <= u {
            statistics.samplesFlushed += s.length - s.consumed
            store.releaseFront()
        }
    }

    /// Whether audio of the playing utterance is queued at the cursor.
    @inline(__always)
    func continuesAtCursor() -> Bool {
        guard playing, let s = store.front else { return false }
        return s.utterance == playUtterance && s.media <= cursor && s.end > cursor
    }

    /// Copies up to `limit` contiguous samples of the playing utterance, starting `skip` samples after
    /// the cursor, into `dst` without consuming them. Returns the count.
    func gather(into dst: UnsafeMutablePointer<Float>, skip: Int = 0, limit: Int) -> Int {
        guard playing else { return 0 }
        return store.gather(utterance: playUtterance, from: cursor + Int64(skip), into: dst, limit: limit)
    }

    /// Consumes `count` media samples from the cursor, recording the pieces and releasing finished packets.
    func consume(_ count: Int, outputStart: Double, outputLength: Double) {
        var left = count
        var out = outputStart
        let scale = outputLength / Double(count)
        while left > 0, let s = store.front {
            if s.end <= cursor {
                store.releaseFront()
                continue
            }
            let offset = Int(cursor - s.media)
            // The head of a packet the cursor ran past while it was missing is late.
            if offset > s.consumed { statistics.samplesLate += offset - s.consumed }
            let m = min(left, s.length - offset)
            if pieceCount < pieceCapacity {
                pieces[pieceCount] = Piece(
                    sequence: s.sequence, offset: offset, length: m, outputStart: out, outputLength: Double(m) * scale)
                pieceCount += 1
            }
            out += Double(m) * scale
            left -= m
            cursor += Int64(m)
            let newConsumed = offset + m
            if newConsumed >= s.length {
                store.releaseFront()
            } else {
                store.setFrontConsumed(newConsumed)
            }
        }
    }
}
