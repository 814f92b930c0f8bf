import ArgumentParser
import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// `--profile NAME` or a custom template file.
enum ProfileArgument {
    static let help = "Wire profile: \(WireProfile.BuiltIn.allCases.map(\.rawValue).joined(separator: ", ")), or custom:FILE (a JSON template)."

    static func load(_ name: String, rate: Int?) throws -> WireProfile {
        if name.hasPrefix("custom:") {
            let path = String(name.dropFirst(7))
            guard let data = FileManager.default.contents(atPath: path) else {
                throw AudioPipelineError(.inputUnavailable, "\(path): cannot read the profile template")
            }
            do {
                let t = try JSON.parse(String(decoding: data, as: UTF8.self))
                return try WireProfile.custom(t)
            } catch let e as JSON.ParseError {
                throw AudioPipelineError(.invalidData, "\(path): \(e)")
            } catch let e as AudioPipelineError {
                throw AudioPipelineError(e.code, "\(path): \(e.message)")
            }
        }
        guard let b = WireProfile.BuiltIn(rawValue: name) else {
            throw ValidationError("unknown profile '\(name)'. \(help)")
        }
        return try WireProfile.builtIn(b, rate: rate)
    }
}

extension Chunker<Int16>.LastChunk: ExpressibleByArgument {}

struct Frame: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn an audio file into the WebSocket messages a voice-API client sends.",
        discussion: """
            Converts IN to the profile's format (rate, mono, PCM16), cuts it into --chunk-ms \
            chunks and writes one message per line (JSON Lines), byte for byte as it would be sent. \
            Binary profiles (deepgram) write a length-prefixed stream instead: per message a 4-byte \
            little-endian length, a 1-byte WebSocket opcode (1 text, 2 binary), the payload.

            Examples:
              audiopipe frame capture.wav --profile openai-realtime -o messages.jsonl
              audiopipe frame capture.wav --profile gemini-live --chunk-ms 100 -o - | head -1
              audiopipe frame capture.wav --profile deepgram --rate 16000 -o stream.bin
            """)

    @Argument(help: "Input audio file ('-' for standard input).") var input: String
    @Option(help: ArgumentHelp(ProfileArgument.help)) var profile: String
    @Option(help: "Chunk duration, ms.") var chunkMs: Double = 20
    @Option(help: "Client rate for profiles that let the client choose (atoms, deepgram); others must match.") var rate: Int?
    @Option(help: "Last partial chunk: short, pad or drop.") var last: Chunker<Int16>.LastChunk = .emitShort
    @Option(help: "PCM conversion convention: standard or ios.") var compat: PCMCompatibility = .standard
    @Option(help: "Resampler (see convert --help).") var resampler: ResamplerChoice = .default
    @Flag(help: "Append the profile's commit message (openai-realtime refuses under 100 ms of audio).") var commit = false
    @Flag(help: "Put the profile's start/stop control messages around the audio.") var control = false
    @Option(name: .shortAndLong, help: "Output file ('-' for standard output).") var output: String
    @Flag(help: "Print the summary as JSON.") var json = false
    @OptionGroup var raw: RawInputOptions

    func validate() throws {
        guard chunkMs > 0, chunkMs <= 60_000 else { throw ValidationError("--chunk-ms must be in (0, 60000]") }
    }

    func run() throws {
        var options = FrameOptions(profile: try ProfileArgument.load(profile, rate: rate))
        options.chunkMilliseconds = chunkMs
        options.lastChunk = last
        options.compatibility = compat
        options.resampler = resampler
        options.commit = commit
        options.control = control
        let r = try Framer.frame(input: input, raw: try raw.rawFormat(), output: output, options: options)
        let text: String
        if json {
            let o: [String: Any] = [
                "profile": r.profile, "rate": r.rate, "audioMessages": r.audioMessages, "controlMessages": r.controlMessages,
                "audioSeconds": r.audioSeconds, "pcmBytes": r.pcmBytes, "wireBytes": r.wireBytes, "overhead": r.overhead,
                "clippedSamples": r.clippedSamples,
            ]
            text = String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self)
        } else {
            text = String(
                format: "%@: %d audio messages (+%d control), %.3f s of audio at %d Hz; %d PCM bytes -> %d bytes on the wire (%.3fx: base64/JSON overhead)",
                r.profile, r.audioMessages, r.controlMessages, r.audioSeconds, r.rate, r.pcmBytes, r.wireBytes, r.overhead)
        }
        Terminal.stderr(text + "\n")
    }
}

struct Deframe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn captured WebSocket messages back into audio, with the session's events.",
        discussion: """
            Reads JSON Lines (one message per line, or HAR-style entries {"type":"send|receive", \
            "time":SECONDS,"opcode":1,"data":"…"}), a browser HAR export (Chrome's \
            _webSocketMessages), or frame's length-prefixed stream (.bin). Detects the profile \
            unless given, decodes the audio of one direction into a mono PCM16 WAV at the \
            profile's rate, and reports interruptions, turn ends, errors, stalls and audio per \
            response. --trace writes the audio messages' arrival timeline in the jitter kit's \
            trace format (needs arrival times: HAR or timed JSON Lines).

            Examples:
              audiopipe deframe session.har -o agent.wav
              audiopipe deframe messages.jsonl -o mic.wav --direction client
              audiopipe deframe session.har -o agent.wav --trace arrivals.csv
            """)

    @Argument(help: "Captured messages ('-' for standard input).") var input: String
    @Option(name: .shortAndLong, help: "Output WAV.") var output: String
    @Option(help: ArgumentHelp(ProfileArgument.help + " Default: detected.")) var profile: String?
    @Option(help: "Which side's audio: server (the agent) or client (the microphone).") var direction: WireDirection = .server
    @Option(help: "Write the arrival timeline (seq,send_ms,arrival_ms,duration_ms,media_ms,utt) here.") var trace: String?
    @Flag(help: "Skip and count bad messages instead of stopping at the first.") var lenient = false
    @Flag(help: "Print the report as JSON.") var json = false

    func run() throws {
        var options = DeframeOptions()
        options.profile = try profile.map { try ProfileArgument.load($0, rate: nil) }
        options.direction = direction
        options.tracePath = trace
        options.lenient = lenient
        let r = try Deframer.deframe(input: input, output: output, options: options)
        if json {
            let o: [String: Any] = [
                "profile": r.profile, "direction": r.direction.rawValue, "rate": r.rate, "messages": r.messages,
                "audioMessages": r.audioMessages, "audioSeconds": r.seconds, "interruptions": r.interruptions, "turnEnds": r.turnEnds,
                "commits": r.commits, "errors": r.errors, "controls": r.controls, "unknownTypes": r.unknown, "skipped": r.skipped,
                "otherDirection": r.otherDirection, "stalls": r.stalls, "stallMs": r.stallMs,
                "utterances": r.utterances.map { ["id": $0.id, "seconds": $0.seconds] },
            ]
            print(String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self))
            return
        }
        var s = String(format: "%@ (%@ audio): %d messages, %d with audio: %.3f s at %d Hz -> %@\n", r.profile, r.direction.rawValue, r.messages, r.audioMessages, r.seconds, r.rate, output)
        s += "  interruptions \(r.interruptions), turn ends \(r.turnEnds), commits \(r.commits), errors \(r.errors.count)\n"
        for e in r.errors.prefix(5) { s += "    error: \(e)\n" }
        if !r.unknown.isEmpty { s += "  unknown message types (skipped): " + r.unknown.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ") + "\n" }
        if !r.skipped.isEmpty { s += "  skipped (--lenient): \(r.skipped.count); first: \(r.skipped[0])\n" }
        if r.stalls > 0 { s += String(format: "  stalls (audio later than real-time playback needed it): %d, %.0f ms in all\n", r.stalls, r.stallMs) }
        for u in r.utterances.prefix(20) { s += String(format: "  response %@: %.3f s\n", u.id, u.seconds) }
        print(s, terminator: "")
    }
}

extension WireDirection: ExpressibleByArgument {}
