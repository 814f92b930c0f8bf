import CSndFile
import Foundation

/// libsndfile's opens, one at a time, each with the reason of its own failure.
///
/// libsndfile keeps the error of an open that failed in one process-wide variable (what
/// `sf_strerror(NULL)` reads), and every open clears it first: in a batch, another worker's open
/// between a failed open and the read of its reason made a file that is not audio report "cannot
/// decode: No Error" (3 of 300 such files among 300 good ones in a 2-job `convert`, 2026-12-05;
/// a check of the batch guide failed on it in CI once). So opens take one lock, and a failed open's
/// reason is read under it. Reading and writing an opened file need no lock (its errors are its
/// handle's).
enum SndFileOpen {
    private static let lock = NSLock()

    /// What an open gave: the handle, or nil and libsndfile's reason.
    struct Outcome {
        let handle: OpaquePointer?
        let reason: String
    }

    /// Runs `open` (an `sf_open` or `sf_open_fd` call) under the lock; a failure's reason is read
    /// before another open can clear it.
    static func open(_ open: () -> OpaquePointer?) -> Outcome {
        lock.lock()
        defer { lock.unlock() }
        let handle = open()
        return Outcome(handle: handle, reason: handle == nil ? String(cString: sf_strerror(nil)) : "")
    }
}
