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
            created; 74 I/O error part-way; 1 a check failed (bench budget or compare, vad tune); 130, 143, \
            129 interrupted (SIGINT, SIGTERM, SIGHUP: nothing left behind).
            """,
        version: BuildInfo.versionLine,
        subcommands: [
            Info.self, Convert.self, Frame.self, Deframe.self, Jitter.self, VAD.self, Analyze.self, Bench.self,
            Session.self,
        ]
    )

    /// Runs a command; turns our errors into one line on stderr and a documented exit code (or the
    /// signal's, when one interrupted the run: `Interruption.exit`).
    static func main() {
        Interruption.install()
        do {
            var command = try parseAsRoot()
            try OptionConflicts.refuse(Array(CommandLine.arguments.dropFirst()))
            if let c = command as? any TakesInputs, c.inputPaths.isEmpty && c.batch.inputList == nil {
                throw UsageError(type(of: command), "no input files: give them as arguments, or --input-list FILE")
            }
            // Outputs put in place once the report is written (a report that cannot be: no output);
            // a check that failed (a bench budget) is not a failed run: its outputs stay.
            var failedCheck: FailureExit?
            try TemporaryFiles.publishingLast(when: publishesLast.contains { $0 == type(of: command) }) {
                do { try command.run() } catch let f as FailureExit where f.status == .checkFailed { failedCheck = f }
            }
            if let failedCheck { throw failedCheck }
            Interruption.exit(0)
        } catch let error as AudioPipelineError where error.code == .brokenPipe {
            Interruption.exit(128 + SIGPIPE)  // the reader has what it wanted: end quietly, as `yes | head` does
        } catch let error as AudioPipelineError {
            Terminal.error(error.message)
            Interruption.exit(ExitStatus(error.code).rawValue)
        } catch let failure as FailureExit {
            Interruption.exit(failure.status.rawValue)
        } catch let usage as UsageError {
            Terminal.stderr(usage.message)
            Interruption.exit(ExitStatus.usage.rawValue)
        } catch {
            let code = exitCode(for: error).rawValue
            var text = fullMessage(for: error)
            if code != 0, let hint = ArgumentHints.dashFile(CommandLine.arguments.dropFirst()) {
                text += "\n" + hint
                Terminal.stderr(text + "\n")
                Interruption.exit(ExitStatus.usage.rawValue)
            }
            // As ArgumentParser's `exit(withError:)`: help and version on stdout, errors on stderr.
            if !text.isEmpty { code == 0 ? print(text) : Terminal.stderr(text + "\n") }
            Interruption.exit(code)
        }
    }

    /// A command is required: without one, every command is named, the usage goes to stderr and the
    /// exit code is 64.
    func run() throws { throw UsageError(missingSubcommandOf: Self.self) }
}

/// A usage error found after parsing, printed as ArgumentParser prints one (exit 64).
struct UsageError: Error {
    let message: String

    init(_ command: ParsableCommand.Type, _ error: String) {
        func path(_ node: ParsableCommand.Type) -> String? {
            node == command
                ? node._commandName
                : node.configuration.subcommands.lazy.compactMap { path($0).map { node._commandName + " " + $0 } }.first
        }
        message =
            "Error: \(error)\nUsage: \(AudioPipe.usageString(for: command))\n"
            + "  See '\(path(AudioPipe.self) ?? "audiopipe") --help' for more information.\n"
    }

    /// A command group run without its subcommand (`audiopipe`, `audiopipe jitter`): names them all.
    init(missingSubcommandOf group: ParsableCommand.Type) {
        let root = group == AudioPipe.self
        let names = group.configuration.subcommands.map { (root ? "" : group._commandName + " ") + $0._commandName }
        self.init(group, "choose a \(root ? "" : "sub")command: \(OptionHelp.list(names))")
    }
}

/// A command that runs on input files: without any (no path, no --input-list) it shows its usage.
protocol TakesInputs {
    var inputPaths: [String] { get }
    var batch: BatchArguments { get }
}

extension Info: TakesInputs { var inputPaths: [String] { files } }
extension Convert: TakesInputs { var inputPaths: [String] { paths } }
extension Frame: TakesInputs { var inputPaths: [String] { inputs } }
extension Deframe: TakesInputs { var inputPaths: [String] { inputs } }
extension VADDetect: TakesInputs { var inputPaths: [String] { inputs } }

/// The commands whose outputs appear only once their report is written (`TemporaryFiles.publishingLast`;
/// a batch's files are still published one by one).
let publishesLast: [ParsableCommand.Type] = [
    Info.self, Convert.self, Frame.self, Deframe.self, JitterSimulate.self, JitterPlay.self, VADDetect.self, Bench.self,
    VADTune.self, SessionSimulate.self,
]

/// Thrown after a command already printed its own errors (several files, some failed).
struct FailureExit: Error {
    let status: ExitStatus
}
