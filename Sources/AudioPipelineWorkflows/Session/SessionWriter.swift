import AudioPipelineCore
import Foundation

/// The output directory of a simulated session, written whole or not at all (`ReportDirectory`):
/// heard.wav and mic.wav (PCM16 at the device rate), vad-mic.wav and vad-reference.wav (what the
/// barge-in detector got: the microphone and the far-end reference at the client rate, 32-bit float,
/// sample for sample — `vad detect vad-mic.wav --reference vad-reference.wav --frames F` gives the
/// session's decisions frame for frame, with what each was made of), sent.jsonl (every client
/// message with its send time, as HAR-style JSON Lines that `deframe` reads back), events.jsonl (one
/// row per tick), then report.json, timeline.svg and report.html. Streams: audio and rows are
/// written as they come.
final class SessionWriter {
    let directory: ReportDirectory
    private let heardOut: AudioOutput
    private let micOut: AudioOutput
    private let detectorMicOut: AudioOutput
    private let detectorReferenceOut: AudioOutput
    private let sentOut: ByteOutput
    private let eventsOut: ByteOutput
    private var micQuantised: [Int16]
    private var quantiser: Float32ToInt16Converter

    init(path: String, deviceRate: Int, clientRate: Int, maxBlock: Int) throws(AudioPipelineError) {
        directory = try ReportDirectory(path: path)
        let format = try StreamFormat(sampleRate: try SampleRate(deviceRate), channels: 1)
        let client = try StreamFormat(sampleRate: try SampleRate(clientRate), channels: 1)
        let base = directory.temporaryPath + "/"
        heardOut = try AudioOutput(path: base + "heard.wav", type: .wav, encoding: .pcm16, format: format)
        micOut = try AudioOutput(path: base + "mic.wav", type: .wav, encoding: .pcm16, format: format)
        detectorMicOut = try AudioOutput(path: base + "vad-mic.wav", type: .wav, encoding: .float32, format: client)
        detectorReferenceOut = try AudioOutput(
            path: base + "vad-reference.wav", type: .wav, encoding: .float32, format: client)
        sentOut = try ByteOutput(path: base + "sent.jsonl")
        eventsOut = try ByteOutput(path: base + "events.jsonl")
        micQuantised = [Int16](repeating: 0, count: maxBlock)
        quantiser = try Float32ToInt16Converter()
    }

    func heard(_ samples: [Int16], count: Int) throws(AudioPipelineError) {
        try samples.withUnsafeBufferPointer { (s) throws(AudioPipelineError) in
            try heardOut.write(UnsafeBufferPointer(rebasing: s[0..<count]))
        }
    }

    func mic(_ samples: [Float], count: Int) throws(AudioPipelineError) {
        samples.withUnsafeBufferPointer { s in
            micQuantised.withUnsafeMutableBufferPointer {
                _ = quantiser.process(UnsafeBufferPointer(rebasing: s[0..<count]), into: $0)
            }
        }
        try micQuantised.withUnsafeBufferPointer { (s) throws(AudioPipelineError) in
            try micOut.write(UnsafeBufferPointer(rebasing: s[0..<count]))
        }
    }

    /// What the detector got in a tick: `count` samples of the microphone and the reference at the
    /// client rate.
    func detectorInput(mic: [Float], reference: [Float], count: Int) throws(AudioPipelineError) {
        try mic.withUnsafeBufferPointer { (s) throws(AudioPipelineError) in
            try detectorMicOut.write(UnsafeBufferPointer(rebasing: s[0..<count]))
        }
        try reference.withUnsafeBufferPointer { (s) throws(AudioPipelineError) in
            try detectorReferenceOut.write(UnsafeBufferPointer(rebasing: s[0..<count]))
        }
    }

    /// One client message: text (JSON, quoted into the line) or binary (base64, opcode 2).
    func sent(_ bytes: [UInt8], timeS: Double, binary: Bool) throws(AudioPipelineError) {
        let data = binary ? Data(bytes).base64EncodedString() : Self.quoted(bytes)
        try sentOut.write(
            String(format: "{\"type\":\"send\",\"time\":%.6f,\"opcode\":%d,\"data\":\"", timeS, binary ? 2 : 1) + data
                + "\"}\n")
    }

    func event(_ t: SessionTick) throws(AudioPipelineError) {
        try eventsOut.write(
            String(
                format: "{\"t\":%.3f,\"playing\":%@,\"vadScore\":%@,\"vadSpeech\":%@,\"bufferMs\":%.1f,"
                    + "\"heardDbfs\":%.1f,\"echoDbfs\":%.1f,\"micDbfs\":%.1f,\"concealedMs\":%.1f,\"lateMs\":%.1f,"
                    + "\"bargeIn\":%@}\n",
                t.timeS, t.playing.map { String($0) } ?? "null",
                t.vadScore.isFinite ? String(format: "%.2f", t.vadScore) : "null", t.vadSpeech ? "true" : "false",
                t.bufferMs, t.heardDbfs, t.echoDbfs, t.micDbfs, t.concealedMs, t.lateMs, t.bargeIn ? "true" : "false"))
    }

    /// Commits the streams, writes the report files and puts the directory in place.
    func finish(report: String, timeline: String, page: String) throws(AudioPipelineError) {
        try heardOut.commit()
        try micOut.commit()
        try detectorMicOut.commit()
        try detectorReferenceOut.commit()
        try sentOut.commit()
        try eventsOut.commit()
        try directory.write("report.json", report + "\n")
        try directory.write("timeline.svg", timeline)
        try directory.write("report.html", page)
        try directory.publish()
    }

    /// A JSON message's bytes as the inside of a JSON string.
    static func quoted(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + 16)
        for b in bytes {
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(b)
            case 0..<0x20:
                out += Array(String(format: "\\u%04x", b).utf8)
            default:
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
