import AudioPipelineCore
import Foundation
import Synchronization

/// What an interrupted run leaves behind: nothing. `Interruption.install()` (the CLI calls it first)
/// catches SIGINT, SIGTERM and SIGHUP, removes every temporary output still registered
/// (`TemporaryFiles`) and exits with 128 + the signal number (130, 143, 129), as shells report it.
/// An existing output is untouched, since outputs are only ever renamed into place when complete.
///
/// The handler only records the signal (`received`) and wakes a thread that does the rest, so the
/// record is there the moment the signal is delivered: a job that reaches its end afterwards — the
/// signal to a process group also ended the writer of its standard input, which then reads as a
/// short file — publishes nothing (`TemporaryFiles.publish`) and ends as interrupted (`exit`), never
/// with 0 and an output made of part of its input.
///
/// SIGPIPE is ignored, so a closed pipe shows up as a write error (`EPIPE`), which ends the run
/// quietly through `AudioPipelineError.Code.brokenPipe` (unwinding removes the temporary files).
public enum Interruption {
    private static let signalNumber = Atomic<Int32>(0)
    /// The pipe's end the handler writes a byte to; the thread that ends the process reads the other.
    private static let wakeDescriptor = Atomic<Int32>(-1)

    /// The signal that interrupted the run, nil while none has.
    public static var received: Int32? {
        let s = signalNumber.load(ordering: .acquiring)
        return s == 0 ? nil : s
    }

    /// Installs the signal handling: SIGPIPE ignored; SIGINT, SIGTERM and SIGHUP remove the
    /// temporary files and end the process with the signal's status.
    public static func install() {
        signal(SIGPIPE, SIG_IGN)
        // A parent may start us with these blocked (a test runner's `Process` does): unblocked here,
        // first, so every thread made after inherits it and the handler runs.
        var set = sigset_t()
        sigemptyset(&set)
        for sig in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, sig) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        let readEnd = ends[0]
        wakeDescriptor.store(ends[1], ordering: .releasing)
        let thread = Thread {
            var byte: UInt8 = 0
            while read(readEnd, &byte, 1) < 0 && errno == EINTR {}
            TemporaryFiles.removeAllAndHold()
            _exit(128 + (received ?? SIGTERM))
        }
        thread.start()
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            #if canImport(Glibc)
                action.__sigaction_handler.sa_handler = { s in Interruption.record(s) }
            #else
                action.__sigaction_u.__sa_handler = { s in Interruption.record(s) }
            #endif
            action.sa_flags = SA_RESTART  // a read or write goes on; the thread above ends the run
            sigemptyset(&action.sa_mask)
            sigaction(sig, &action, nil)
        }
    }

    /// The signal handler: async-signal-safe (an atomic store and a write).
    private static func record(_ sig: Int32) {
        let saved = errno
        defer { errno = saved }
        _ = signalNumber.compareExchange(expected: 0, desired: sig, ordering: .acquiringAndReleasing)
        var byte: UInt8 = 1
        _ = write(wakeDescriptor.load(ordering: .acquiring), &byte, 1)
    }

    /// Ends the process with `status` — or, when a signal arrived meanwhile, as interrupted (its
    /// temporary outputs removed, 128 + the signal): every exit of the CLI goes through here.
    public static func exit(_ status: Int32) -> Never {
        if let sig = received {
            TemporaryFiles.removeAllAndHold()
            _exit(128 + sig)
        }
        Foundation.exit(status)
    }
}

extension AudioPipelineError.Code {
    /// Standard output was closed by its reader (`| head`): not a failure to report, the run just ends.
    public static let brokenPipe = AudioPipelineError.Code(rawValue: 100)
}
