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
        version: BuildInfo.versionLine,
        subcommands: [
            Info.self, Convert.self, Frame.self, Deframe.self, Jitter.self, VAD.self, Analyze.self, Bench.self,
            Session.self,
        ]
    )

    /// Runs a command; turns our errors into one line on stderr and a documented exit code.
    static func main() {
        Interruption.install()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as AudioPipelineError where error.code == .brokenPipe {
            Foundation.exit(128 + SIGPIPE)  // the reader has what it wanted: end quietly, as `yes | head` does
        } catch let error as AudioPipelineError {
            Terminal.error(error.message)
            Foundation.exit(ExitStatus(error.code).rawValue)
        } catch let failure as FailureExit {
            Foundation.exit(failure.status.rawValue)
        } catch {
            if exitCode(for: error) != .success, let hint = ArgumentHints.dashFile(CommandLine.arguments.dropFirst()) {
                Terminal.stderr(fullMessage(for: error) + "\n" + hint + "\n")
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }

    /// A subcommand is required: without one, the usage goes to stderr and the exit code is 64.
    func run() throws {
        throw ValidationError("choose a command: info, convert, frame, deframe, jitter, vad or analyze")
    }
}

/// Thrown after a command already printed its own errors (several files, some failed).
struct FailureExit: Error {
    let status: ExitStatus
}
