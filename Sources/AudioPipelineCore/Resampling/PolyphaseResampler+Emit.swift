import CVectorKernels

// Computing outputs, one function per ratio kind. Each kind keeps one summation order for every
// output of an instance (see the kernel pairings in PolyphaseResampler.swift), so the output does
// not depend on which loop or kernel computed a frame, nor on how the input was chunked.

extension PolyphaseResampler {
    /// Computes outputs while their last input frame is below `end` and there is room; returns
    /// how many. Dispatches on the ratio: 2× up, pure decimation, integer up, any other. `draining`
    /// (from `finish`): a throughput-mode instance holds nothing back.
    @inline(__always)
    func emit(
        into out: UnsafeMutablePointer<Float>, capacity room: Int, availableUpTo end: Int, draining: Bool
    ) -> Int {
        let n: Int
        if upByTwo {
            n = emitUpByTwo(into: out, capacity: room, availableUpTo: end)
        } else if up == 1 {
            n = emitDecimating(into: out, capacity: room, availableUpTo: end)
        } else if down == 1 && !isVectorized {
            n = emitIntegerUp(into: out, capacity: room, availableUpTo: end)
        } else {
            // The C kernel walks any ratio's phases itself (integer upsampling included).
            n = emitGeneral(into: out, capacity: room, availableUpTo: end, from: 0, draining: draining)
        }
        outputFrames += n
        return n
    }

    /// 2× integer upsampling (24k→48k, 8k→16k …). The C kernels (upsample2.c) put windows in the
    /// vector lanes and add the inputs of each symmetric tap pair before multiplying; the Swift
    /// kernels compute outputs four at a time (two phases × two consecutive input windows), every
    /// output with one accumulator.
    @inline(__always)
    func emitUpByTwo(into out: UnsafeMutablePointer<Float>, capacity room: Int, availableUpTo end: Int) -> Int {
        var n = 0
        let taps = tapsPerPhase
        if isVectorized && n < room && nextBase < end {
            // Every output whose window is in, in one call per channel: the kernel starts at the
            // phase the previous call stopped at and ends at whichever phase the room allows. (The
            // 16-lane kernel reads whole 64-byte blocks: `history` is 64-byte aligned, every channel's
            // part a multiple of 16 floats.)
            let count = Swift.min(room - n, 2 * (end - nextBase) - nextPhase)
            let offset = nextBase - (taps - 1) - historyStart
            for c in 0..<channels {
                let x = history + c * capacity + offset, o = out + n * channels + c
                let c0 = UnsafePointer(coefficients), c1 = UnsafePointer(coefficients + taps)
                if isWide {
                    cvk_up2_w16(c0, c1, x, taps, centre, nextPhase, count, o, channels)
                } else {
                    cvk_up2_w8(c0, c1, x, taps, centre, nextPhase, count, o, channels)
                }
            }
            n &+= count
            let position = nextPhase + count
            nextBase &+= position / 2
            nextPhase = position % 2
        }
        while !isVectorized && n &+ 3 < room && nextPhase == 0 && nextBase &+ 1 < end {
            let offset = nextBase - (taps - 1) - historyStart
            for c in 0..<channels {
                let (y0, y1, y2, y3) = Self.dotQuad(
                    coefficients, coefficients + taps, history + c * capacity + offset, taps)
                out[n * channels + c] = y0
                out[(n + 1) * channels + c] = y1
                out[(n + 2) * channels + c] = y2
                out[(n + 3) * channels + c] = y3
            }
            n &+= 4
            nextBase &+= 2
        }
        while n < room && nextBase < end {
            let offset = nextBase - (taps - 1) - historyStart
            let coeffs = coefficients + nextPhase * taps
            for c in 0..<channels { out[n * channels + c] = single(coeffs, history + c * capacity + offset, taps) }
            n += 1
            nextPhase += 1
            if nextPhase >= up {
                nextPhase -= up
                nextBase += 1
            }
        }
        return n
    }

    /// Pure decimation (48k→16k …): one phase, so four consecutive outputs (windows `down`
    /// apart) share every coefficient load; every output with one accumulator.
    @inline(__always)
    func emitDecimating(into out: UnsafeMutablePointer<Float>, capacity room: Int, availableUpTo end: Int) -> Int {
        var n = 0
        let taps = tapsPerPhase
        let next = down
        if isVectorized && n < room && nextBase < end {
            // Every output whose window is in, in one call per channel.
            let count = Swift.min(room - n, (end - 1 - nextBase) / next + 1)
            let offset = nextBase - (taps - 1) - historyStart
            for c in 0..<channels {
                let x = history + c * capacity + offset, o = out + n * channels + c
                // Aligned input loads (see fir_x86_template.h): the same outputs as cvk_decimate, bit
                // for bit, 1.1× (16 lanes) to 1.2× (8 lanes) as fast here.
                if isWide {
                    cvk_decimate_aligned_w16(coefficients, x, next, taps, count, o, channels)
                } else {
                    cvk_decimate_aligned(coefficients, x, next, taps, count, o, channels)
                }
            }
            n &+= count
            nextBase &+= count &* next
        }
        while !isVectorized && n &+ 3 < room && nextBase &+ 3 &* next < end {
            let offset = nextBase - (taps - 1) - historyStart
            for c in 0..<channels {
                let (y0, y1, y2, y3) = Self.dotQuadShared(coefficients, history + c * capacity + offset, next, taps)
                out[n * channels + c] = y0
                out[(n + 1) * channels + c] = y1
                out[(n + 2) * channels + c] = y2
                out[(n + 3) * channels + c] = y3
            }
            n &+= 4
            nextBase &+= 4 &* next
        }
        while n < room && nextBase < end {
            let offset = nextBase - (taps - 1) - historyStart
            for c in 0..<channels {
                out[n * channels + c] = single(coefficients, history + c * capacity + offset, taps)
            }
            n &+= 1
            nextBase &+= next
        }
        return n
    }

    /// Integer upsampling with the Swift kernels (16k→48k …): outputs come in runs that read the
    /// same input window with successive phases; pairs of them share the input loads. The rest
    /// goes one by one, summed as `dot` sums (which `dotShared` matches).
    @inline(__always)
    func emitIntegerUp(into out: UnsafeMutablePointer<Float>, capacity room: Int, availableUpTo end: Int) -> Int {
        var n = 0
        let taps = tapsPerPhase
        while n &+ 1 < room && nextBase < end && nextPhase &+ 1 < up {
            let offset = nextBase - (taps - 1) - historyStart
            let c0 = coefficients + nextPhase * taps
            for c in 0..<channels {
                let (y0, y1) = Self.dotShared(c0, c0 + taps, history + c * capacity + offset, taps)
                out[n * channels + c] = y0
                out[(n + 1) * channels + c] = y1
            }
            n &+= 2
            nextPhase &+= 2
            if nextPhase >= up {
                nextPhase -= up
                nextBase += 1
            }
        }
        return emitGeneral(into: out, capacity: room, availableUpTo: end, from: n, draining: true)
    }

    /// Any ratio: with the C kernels, whole cycles phase by phase where at least 2 are due (8 in
    /// throughput mode, which holds the rest back unless `draining` or the room is too small for
    /// a block), then the C kernel walks phases and windows itself, eight outputs at a time; the
    /// Swift code goes output by output from `start`.
    @inline(__always)
    func emitGeneral(
        into out: UnsafeMutablePointer<Float>, capacity room: Int, availableUpTo end: Int, from start: Int,
        draining: Bool
    ) -> Int {
        var n = start
        let step = windowStep, stepPhase = phaseStep
        let taps = tapsPerPhase
        if isVectorized {
            if up > 2 || phaseMajorForTwo {
                // Throughput mode waits for 8 cycles, except when draining (`finish`).
                n = emitPhaseMajor(
                    into: out, capacity: room, availableUpTo: end, from: n,
                    minCycles: holdBack > 0 && !draining ? holdBackCycles : 2)
                if holdBack > 0 && !draining && room - n >= holdBack { return n }
            }
            if n < room && nextBase < end {
                let w0 = nextBase - (taps - 1) - historyStart, wend = end - (taps - 1) - historyStart
                var w = 0, p = 0, count = 0
                for c in 0..<channels {
                    let x = history + c * capacity, o = out + n * channels + c
                    let kernel = isWide ? cvk_polyphase_w16 : cvk_polyphase
                    count = kernel(
                        coefficients, taps, up, step, stepPhase, x, w0, nextPhase, wend, room - n, o, channels, &w, &p)
                }
                n &+= count
                nextBase = w + (taps - 1) + historyStart
                nextPhase = p
            }
            return n
        }
        while n < room && nextBase < end {
            let offset = nextBase - (taps - 1) - historyStart
            let coeffs = coefficients + nextPhase * taps
            for c in 0..<channels {
                out[n * channels + c] = Self.dot(coeffs, history + c * capacity + offset, taps)
            }
            n += 1
            advance(phase: &nextPhase, window: &nextBase)
        }
        return n
    }

    /// One output on along the polyphase walk (as the C kernels' `next_outputs` walks it): the
    /// phase by M mod L and the window by ⌊M / L⌋, one more when the phase passes L.
    @inline(__always)
    func advance(phase: inout Int, window: inout Int) {
        window &+= windowStep
        phase &+= phaseStep
        if phase >= up {
            phase &-= up
            window &+= 1
        }
    }

    /// Whole cycles of `up` outputs, phase by phase: output m + k·up has output m's phase and its
    /// window `down` frames later, so the K outputs of one phase in K cycles share every
    /// coefficient load (the decimation kernel with stride `down`), where the general kernel loads
    /// a coefficient per tap and output. Same per-output sums as every other kernel of the instance,
    /// so which loop computed a frame does not show. Runs blocks of up to `phaseMajorCycles` cycles
    /// (8; up to 80 when the phases are few) while at least `minCycles` cycles' input and room are
    /// there, and where only 2 or 3 are, two cycles with `cvk_phase_pairs` (four phases at a time,
    /// both cycles sharing each coefficient load: at 44.1→16 kHz a 20 ms chunk holds 2 cycles of
    /// 160); returns the new output count. The decimation kernel itself would take fewer than four
    /// outputs one at a time, slower than the general kernel (measured).
    @inline(__always)
    func emitPhaseMajor(
        into out: UnsafeMutablePointer<Float>, capacity room: Int, availableUpTo end: Int, from start: Int,
        minCycles: Int
    ) -> Int {
        var n = start
        while true {
            let cycles = phaseMajorBlock(into: out, capacity: room, availableUpTo: end, at: n, minCycles: minCycles)
            if cycles == 0 { return n }
            n += cycles * up
        }
    }

    /// One block of `emitPhaseMajor`: returns its cycles (0 when fewer than `minCycles` fit).
    @inline(__always)
    func phaseMajorBlock(
        into out: UnsafeMutablePointer<Float>, capacity room: Int, availableUpTo end: Int, at start: Int,
        minCycles: Int
    ) -> Int {
        // Window of the cycle's last output; the same output k cycles on is k·down frames later.
        let lastBase = nextBase + (nextPhase + (up - 1) * down) / up
        guard lastBase < end else { return 0 }
        let cycles = Swift.min(phaseMajorCycles, (end - 1 - lastBase) / down + 1, (room - start) / up)
        guard cycles >= minCycles else { return 0 }
        let taps = tapsPerPhase
        if cycles < 4 {
            // Two cycles, four phases at a time sharing each coefficient load (the decimation
            // kernel would take fewer than four outputs one at a time).
            let w0 = nextBase - (taps - 1) - historyStart
            for c in 0..<channels {
                let x = history + c * capacity, o = out + start * channels + c
                let kernel = isWide ? cvk_phase_pairs_w16 : cvk_phase_pairs
                kernel(coefficients, taps, up, windowStep, phaseStep, x, w0, nextPhase, down, o, channels)
            }
            nextBase += 2 * down
            return 2
        }
        // Output j of the cycle: phase (nextPhase + j·down) mod up, window that quotient on; the
        // kernel walks the phases as the general kernel walks them, each as the decimation kernel.
        let w0 = nextBase - (taps - 1) - historyStart
        for c in 0..<channels {
            let x = history + c * capacity, o = out + start * channels + c
            let kernel = isWide ? cvk_phase_major_w16 : cvk_phase_major
            kernel(coefficients, taps, up, windowStep, phaseStep, x, w0, nextPhase, down, cycles, o, channels)
        }
        nextBase += cycles * down
        return cycles
    }
}
