/// The room's reverberation time, learnt: split from VADEchoModel.swift (the core's file-size rule);
/// part of the per-frame path `update` describes, in the reference's pauses once the tracked gain
/// has learnt.
///
/// The tracked echo's tail falls `60 dB · frame / echo_rt60_ms` per frame after the reference
/// stops. In a room that rings longer than that (a meeting room, a hall: RT60 0.6–1 s), the
/// microphone's tail stands over the expected one by a dB more every second frame, and 150–250 ms
/// into each of the agent's pauses it reads as a user: generated rooms with RT60 over ~630 ms
/// stopped the agent on its own echo (15 of 40 rooms with the scenario's agent). So the model
/// measures the fall, from the bands whose level (the mean of this frame's and the one before's)
/// stands `tailGap` over the echo the direct path explains — what they hold is the room's tail, in
/// the agent's pauses and the dips between its words — and `decayMargin` over their quiet level
/// (the noise floor would flatten the fall). (The two frames' mean, not each frame: a frame that
/// dipped under a threshold left out falls and kept rises, and rooms of 450 ms read up to 900.) A
/// band's frames in a row that hold the tail are a run; the room's fall per frame is the weighted
/// median of the runs' least-squares slopes, the longest runs weighing most, over about the last
/// `decayWindowSeconds` of such frames (`VADDecayFit`: the median of the frames' changes, used
/// until 2026-12-06, read halls up to twice too fast). From `decayEarlyFrames` such frames the tail
/// falls at the slower of the configured decay and the measured one, no slower than a room of
/// `slowestReverbSeconds`: the configured RT60 is the fastest the model ever assumes. A user who
/// talks in a pause, not yet heard, can only make the measured fall slower; a tail too slow costs
/// latency to a user who starts in the agent's dips (in the talking rooms that chose the method two
/// onsets of 160 were heard 0.6–0.7 s late instead of ~0.2 s; in check rooms three moved by 10–40
/// ms), where one too fast stops the agent. A faster reading moves the decay only once it has held,
/// and the tail's level is learnt anew then (it was learnt against the slower tail). Until the
/// fall is measured the configured one is assumed: holding the tail slower then spared a short
/// reply in a hall but hid a user who talks early (the talking echo grid, 0 → 33 of 66 cells late).
/// docs/design/vad-experiments.md, "The room's reverberation measured in the agent's pauses", "The
/// tail learnt anew when the decay moves faster" and "A hall's fall fitted over runs".
extension VADEchoModel {
    /// How far over its quiet level a band must stand (the mean of this frame and the one before) to
    /// measure the fall, dB.
    static let decayMargin = 12.0
    /// The learning frames over which a run's weight in the measured fall is forgotten by `e`, s.
    static let decayWindowSeconds = 4.0
    /// Pauses' frames before the measured fall is used.
    static let decayEarlyFrames = 20
    /// The slowest room the tail assumes, RT60 in s.
    static let slowestReverbSeconds = 1.5
    /// How far the decay in use must be from the measured one before it moves (the reverberant
    /// tail's blocks are rebuilt then: a pass over the rings).
    static let decayStep = 0.05
    /// Learning frames in a row the measured fall must stand `decayStep` faster before the decay
    /// moves faster: a median that flips between two bins would otherwise move it (and forget the
    /// tail) every other frame.
    static let decayHoldFrames = 10

    /// The room's RT60 as the model assumes it, ms (the configured one until a slower room is measured).
    public var reverbMilliseconds: Double? {
        decay > 0 ? 60 * frameMilliseconds / decay : nil
    }

    /// Learns the fall from a frame in the reference's pause (see the extension's note); `change`:
    /// the microphone's band levels over the frame before's (clipped as the delay's changes).
    @inline(__always)
    mutating func learnDecay(
        mic m: SIMD8<Double>, change c: SIMD8<Double>, parts: (direct: SIMD8<Double>, tail: SIMD8<Double>)
    ) {
        guard configuredDecay > 0, largestLane(parts.tail) > threshold else { return }
        // What a band must stand over: its quiet level and the direct path's echo, each with its gap
        // (lanes past `bandCount`: never). (Written through memory: a lane written by index in a
        // loop took the whole vector out of its registers and back each time.)
        var over = SIMD8<Double>(repeating: .infinity)
        withUnsafeMutableBytes(of: &over) { lanes in
            for b in 0..<bandCount {
                let quiet = micQuiet[b].value(or: m[b]) + Self.decayMargin
                let direct = trackedGains[b].value(or: worst) + parts.direct[b] + Self.tailGap
                lanes.storeBytes(of: max(quiet, direct), toByteOffset: b * 8, as: Double.self)
            }
        }
        // The two frames' mean, not each: a frame that dipped under a threshold would end a run
        // early and start the next on its rise.
        let taking = m - c / 2 .> over
        guard any(taking) else { return }
        decayFit.add(frame: frames, taking: taking, change: c)
        decayLearnt += 1
        guard decayLearnt >= Self.decayEarlyFrames, !decayFit.isEmpty else { return }
        let fall = -decayFit.slope(or: 0)
        let measured = min(configuredDecay, max(slowestDecay, fall))
        guard abs(measured - decay) > Self.decayStep * decay else {
            decayOffFrames = 0
            return
        }
        // A slower tail at once (it only expects more echo); a faster one once the measured fall has
        // held there, and with the tail's offsets learnt anew: learnt against a slower tail they
        // stand under the direct path by 9–15 dB, and with a faster decay the model would expect
        // the tail that far too low (generated item 016_s4401: a false barge-in mid-utterance).
        decayOffFrames += 1
        let faster = measured > decay
        guard !faster || decayOffFrames >= Self.decayHoldFrames else { return }
        decayOffFrames = 0
        decay = measured
        rebuildDecayedBlocks()
        if faster { forgetTail() }
    }

    /// `decayedBlockMax` again from the reference's ring, with the decay now in use: every whole
    /// block the ring still holds and the current one so far.
    mutating func rebuildDecayedBlocks() {
        let oldest = max(0, frames - history.count + 1)
        var a = (oldest + 7) & ~7
        while a <= frames {
            let g = history[slot(frames - a)] + decay * Double(a)
            let k = (a >> 3) & blockMask
            decayedBlockMax[k] = a & 7 == 0 ? g : laneMax(decayedBlockMax[k], g)
            a += 1
        }
    }
}
