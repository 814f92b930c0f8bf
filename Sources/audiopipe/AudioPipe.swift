import ArgumentParser
import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation

@main
struct AudioPipe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audiopipe",
        abstract: "Audio for voice-agent clients: convert, inspect, frame, deframe, jitter replay, speech detection.",
        discussion: """
            Exit codes: 0 success; 64 usage (bad option or configuration); 65 bad data (corrupt, \
            truncated or unsupported input); 66 input missing or unreadable; 73 output cannot be \
            created; 74 I/O error part-way.
            """,
        version: "0.1.0",
        subcommands: [Info.self, Convert.self, Frame.self, Deframe.self, Jitter.self, VAD.self, Analyze.self]
    )

    /// Runs a command; turns our errors into one line on stderr and a documented exit code.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as AudioPipelineError {
            Terminal.error(error.message)
            Foundation.exit(ExitStatus(error.code).rawValue)
        } catch let failure as FailureExit {
            Foundation.exit(failure.status.rawValue)
        } catch {
            exit(withError: error)
        }
    }
}

/// Thrown after a command already printed its own errors (several files, some failed).
struct FailureExit: Error {
    let status: ExitStatus
}
