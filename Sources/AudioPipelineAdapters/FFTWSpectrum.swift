import CFFTW3f
import Foundation

/// A real-to-complex FFT of a fixed size through FFTW (single precision), with its buffers and
/// plan owned here and freed in `deinit`.
///
/// FFTW's planner is not thread-safe: plan creation and destruction are serialised on one lock.
/// Executing a plan is thread-safe, but one instance has one buffer pair: use one per thread.
public final class FFTWSpectrum {
    private static let plannerLock = NSLock()

    /// Transform length, samples.
    public let size: Int
    private let input: UnsafeMutablePointer<Float>
    private let output: UnsafeMutablePointer<fftwf_complex>
    private let plan: fftwf_plan

    /// - Parameter size: transform length (any size; powers of two are fastest).
    public init(size: Int) {
        precondition(size >= 2)
        self.size = size
        input = fftwf_alloc_real(size)!
        output = fftwf_alloc_complex(size / 2 + 1)!
        Self.plannerLock.lock()
        plan = fftwf_plan_dft_r2c_1d(Int32(size), input, output, UInt32(FFTW_ESTIMATE))!
        Self.plannerLock.unlock()
    }

    deinit {
        Self.plannerLock.lock()
        fftwf_destroy_plan(plan)
        Self.plannerLock.unlock()
        fftwf_free(input)
        fftwf_free(output)
    }

    /// The power |X[k]|² of bins 0…size/2 of `samples` (exactly `size` of them, no window: callers
    /// use coherent test tones that fall on bins), accumulated in Double.
    public func power(_ samples: UnsafeBufferPointer<Float>) -> [Double] {
        precondition(samples.count == size)
        input.update(from: samples.baseAddress!, count: size)
        fftwf_execute(plan)
        return (0...size / 2).map { k in
            let re = Double(output[k].0), im = Double(output[k].1)
            return re * re + im * im
        }
    }
}
