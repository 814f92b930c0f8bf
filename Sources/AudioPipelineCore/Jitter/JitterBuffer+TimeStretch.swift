// Time-stretching (WSOLA): when the delay is more than `accelerateThreshold` above the target, a
// whole tick is played from `tick + d` media samples by cutting a stretch of d = 2.5 ms – tick/2
// with a cross-fade (1.25–1.5× speed); when it is more than `decelerateThreshold` below, a similar
// stretch is repeated (0.5–0.75×). The stretch length is picked by normalised cross-correlation
// over the candidate lags, so voiced speech is cut or repeated by whole pitch periods.

extension JitterBuffer {
    /// Decides from the delay before any audio is copied whether this tick is stretched, and if so
    /// writes the whole tick; false when it plays at normal speed (or cannot stretch: too little
    /// audio queued, no room for a stretch).
    func stretchTick(into out: UnsafeMutablePointer<Float>) -> Bool {
        guard configuration.timeStretch && isAdaptive else { return false }
        let n = configuration.tick
        let delay = clock - cursor
        let target = targetDelay()
        // Only delay that no recent packet needed is removed (a TTS burst is never sped up).
        let excess = delay - max(target, recentMaximum())
        let stretch: Int
        if excess > Int64(configuration.accelerateThreshold) {
            stretch = 1
        } else if delay - target < -Int64(configuration.decelerateThreshold) {
            stretch = -1
        } else {
            return false
        }
        let available = gather(into: scratch, limit: min(scratchCapacity, 2 * n))
        guard available >= n else { return false }
        return stretch > 0
            ? accelerate(into: out, available: available, excess: Int(excess))
            : decelerate(into: out, available: available)
    }

    /// Accelerate: output one tick from `tick + d` media samples, cutting `d` samples at the lag of best
    /// waveform similarity with a cross-fade.
    func accelerate(into out: UnsafeMutablePointer<Float>, available: Int, excess: Int) -> Bool {
        let n = configuration.tick
        let overlap = n / 2
        let dMin = max(1, configuration.sampleRate / 400)  // 2.5 ms
        let dMax = min(n / 2, available - n, excess)
        guard dMax >= dMin else { return false }
        let start = (n - overlap) / 2
        let d = bestLag(a: start, bBase: start, lags: dMin...dMax, sign: 1, length: overlap)
        for k in 0..<start { out[k] = scratch[k] }
        for k in 0..<overlap {
            let w = Float(k + 1) / Float(overlap + 1)
            out[start + k] = scratch[start + k] * (1 - w) + scratch[start + d + k] * w
        }
        for k in (start + overlap)..<n { out[k] = scratch[k + d] }
        playStretched(media: n + d, into: out)
        statistics.ticksAccelerated += 1
        statistics.samplesRemoved += d
        return true
    }

    /// Decelerate: output one tick from `tick − d` media samples, repeating `d` samples.
    func decelerate(into out: UnsafeMutablePointer<Float>, available: Int) -> Bool {
        let n = configuration.tick
        let overlap = n / 2
        let dMin = max(1, configuration.sampleRate / 400)
        let dMax = n - overlap
        guard dMax >= dMin, available >= n else { return false }
        let p = dMax  // cross-fade from x[p + k] to x[p − d + k]
        let d = bestLag(a: p, bBase: p, lags: dMin...dMax, sign: -1, length: overlap)
        for k in 0..<p { out[k] = scratch[k] }
        for k in 0..<overlap {
            let w = Float(k + 1) / Float(overlap + 1)
            out[p + k] = scratch[p + k] * (1 - w) + scratch[p - d + k] * w
        }
        for k in (p + overlap)..<n { out[k] = scratch[k - d] }
        playStretched(media: n - d, into: out)
        statistics.ticksDecelerated += 1
        statistics.samplesInserted += d
        return true
    }

    func playStretched(media: Int, into out: UnsafeMutablePointer<Float>) {
        let n = configuration.tick
        commitConcealment()
        if lastOutputSilent { fadeIn(out, n) }
        lastOutputSilent = false
        // Delay of the media played: proportional mapping of output to media.
        let scale = Double(n) / Double(media)
        let m = Double(media)
        statistics.delaySum += m * Double(clock - cursor) + (scale - 1) * m * (m - 1) / 2
        statistics.samplesPlayed += media
        consume(media, outputStart: 0, outputLength: Double(n))
        if gather(into: scratch, limit: 1) == 0 { fadeOut(out, n) }
    }

    /// Lag in `lags` maximising the normalised correlation of x[a ..< a+L] with x[bBase + sign·lag ..< …].
    func bestLag(a: Int, bBase: Int, lags: ClosedRange<Int>, sign: Int, length: Int) -> Int {
        var best = lags.lowerBound
        var bestScore = -Float.infinity
        let x = scratch
        var energyA: Float = 0
        for k in 0..<length { energyA += x[a + k] * x[a + k] }
        for lag in lags {
            let b = bBase + sign * lag
            var dot: Float = 0, energyB: Float = 0
            for k in 0..<length {
                dot += x[a + k] * x[b + k]
                energyB += x[b + k] * x[b + k]
            }
            let score = energyA * energyB > 0 ? dot / (energyA * energyB).squareRoot() : 0
            if score > bestScore {
                bestScore = score
                best = lag
            }
        }
        return best
    }
}
