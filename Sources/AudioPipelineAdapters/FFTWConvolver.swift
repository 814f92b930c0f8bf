import CFFTW3f
import Foundation

/// Streaming convolution with a fixed impulse response, by uniformly partitioned overlap-save
/// through FFTW: the response is cut into partitions of `block` samples whose spectra are kept;
/// each block of input is transformed once, multiplied with every partition's spectrum against the
/// matching older input spectrum (a frequency-domain delay line) and transformed back. Cost per
/// sample grows with log(block) plus the number of partitions, not with the response's length
/// (a 0.3 s response at 48 kHz: about 100× less work than the direct sum).
///
/// The output lags the input by `latency` (= `block`) samples: a caller that models a delay
/// subtracts it there. Any block sizes in, the same output; nothing is allocated per call.
public final class FFTWConvolver {
    private static let plannerLock = NSLock()

    /// Partition and block length, samples.
    public let block: Int
    /// The output lags the input by one block.
    public var latency: Int { block }
    private let partitions: Int
    private let bins: Int
    private let time: UnsafeMutablePointer<Float>  // 2·block: the previous block, then the new one
    private let spectrum: UnsafeMutablePointer<fftwf_complex>
    private let accumulator: UnsafeMutablePointer<fftwf_complex>
    private let result: UnsafeMutablePointer<Float>
    private let responses: UnsafeMutablePointer<fftwf_complex>  // partitions × bins
    private let history: UnsafeMutablePointer<fftwf_complex>  // partitions × bins, a ring
    private var newest = 0
    private let forward: fftwf_plan
    private let inverse: fftwf_plan
    /// Input gathered for the next block, and the output block being handed out.
    private var gathered = 0
    private let output: UnsafeMutablePointer<Float>

    /// - Parameters:
    ///   - h: the impulse response, at least one sample.
    ///   - block: partition and block length (a power of two is fastest).
    public init(impulseResponse h: [Float], block: Int = 256) {
        precondition(!h.isEmpty && block >= 8)
        self.block = block
        bins = block + 1
        partitions = (h.count + block - 1) / block
        time = fftwf_alloc_real(2 * block)!
        result = fftwf_alloc_real(2 * block)!
        spectrum = fftwf_alloc_complex(bins)!
        accumulator = fftwf_alloc_complex(bins)!
        responses = fftwf_alloc_complex(partitions * bins)!
        history = fftwf_alloc_complex(partitions * bins)!
        output = .allocate(capacity: block)
        Self.plannerLock.lock()
        forward = fftwf_plan_dft_r2c_1d(Int32(2 * block), time, spectrum, UInt32(FFTW_ESTIMATE))!
        inverse = fftwf_plan_dft_c2r_1d(Int32(2 * block), accumulator, result, UInt32(FFTW_ESTIMATE))!
        Self.plannerLock.unlock()
        // Each partition, zero-padded to 2·block, transformed; scaled by 1/(2·block) for the
        // unnormalised inverse.
        let scale = 1 / Float(2 * block)
        for p in 0..<partitions {
            time.update(repeating: 0, count: 2 * block)
            for i in 0..<block where p * block + i < h.count { time[i] = h[p * block + i] * scale }
            fftwf_execute(forward)
            (responses + p * bins).update(from: spectrum, count: bins)
        }
        reset()
    }

    /// Back to the state after init (silence in the delay line, nothing gathered): the next input
    /// gives what a new convolver with the same response would. Allocates nothing.
    public func reset() {
        let zero: fftwf_complex = (0, 0)
        history.update(repeating: zero, count: partitions * bins)
        time.update(repeating: 0, count: 2 * block)
        output.update(repeating: 0, count: block)
        gathered = 0
        newest = 0
    }

    deinit {
        Self.plannerLock.lock()
        fftwf_destroy_plan(forward)
        fftwf_destroy_plan(inverse)
        Self.plannerLock.unlock()
        for p in [time, result] { fftwf_free(p) }
        for p in [spectrum, accumulator, responses, history] { fftwf_free(p) }
        output.deallocate()
    }

    /// Convolves `input` into `out` (the same count), `latency` samples late.
    public func process(_ input: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        precondition(out.count >= input.count)
        for i in 0..<input.count {
            out[i] = output[gathered]
            time[block + gathered] = input[i]
            gathered += 1
            if gathered == block {
                step()
                gathered = 0
            }
        }
    }

    /// One block: its spectrum into the delay line, the sum over partitions, back to time.
    private func step() {
        fftwf_execute(forward)
        newest = newest == 0 ? partitions - 1 : newest - 1
        (history + newest * bins).update(from: spectrum, count: bins)
        let zero: fftwf_complex = (0, 0)
        accumulator.update(repeating: zero, count: bins)
        for p in 0..<partitions {
            var slot = newest + p
            if slot >= partitions { slot -= partitions }
            let x = history + slot * bins, h = responses + p * bins
            for k in 0..<bins {
                let (a, b) = x[k], (c, d) = h[k]
                accumulator[k].0 += a * c - b * d
                accumulator[k].1 += a * d + b * c
            }
        }
        fftwf_execute(inverse)
        output.update(from: result + block, count: block)
        // The new block becomes the previous one.
        time.update(from: time + block, count: block)
    }
}
