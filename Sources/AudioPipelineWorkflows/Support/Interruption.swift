import AudioPipelineCore
import Dispatch
import Foundation

/// What an interrupted run leaves behind: nothing. `Interruption.install()` (the CLI calls it first)
/// catches SIGINT, SIGTERM and SIGHUP, removes every temporary output still registered
/// (`TemporaryFiles`) and exits with 128 + the signal number (130, 143, 129), as shells report it.
/// An existing output is untouched, since outputs are only ever renamed into place when complete.
///
/// SIGPIPE is ignored, so a closed pipe shows up as a write error (`EPIPE`), which ends the run
/// quietly through `AudioPipelineError.Code.brokenPipe` (unwinding removes the temporary files).
public enum Interruption {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    public static func install() {
        signal(SIGPIPE, SIG_IGN)
        let queue = DispatchQueue(label: "audiopipe.signals")
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_IGN)  // delivered to the dispatch source instead of the default action
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler {
                TemporaryFiles.removeAllAndHold()
                _exit(128 + sig)
            }
            source.resume()
            sources.append(source)
        }
    }
}

extension AudioPipelineError.Code {
    /// Standard output was closed by its reader (`| head`): not a failure to report, the run just ends.
    public static let brokenPipe = AudioPipelineError.Code(rawValue: 100)
}
