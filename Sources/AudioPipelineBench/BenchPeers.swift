import AudioPipelineCore
import Foundation

// The peers: what a voice-agent client commonly does instead, measured beside ours on the same
// chunks. The common iOS/Swift client code, as the vendors' sample apps and most tutorials write it:
// a `map` with clamp ×32767 into a new array per chunk, Foundation base64, JSONSerialization (or
// JSONEncoder); on the way back JSONSerialization, `Data(base64Encoded:)` and ÷32767 into a new
// array. And a resampler from outside (libsamplerate, given by the caller) where the rates differ.
// This file is exempt from the layout rule against `[String: Any]`/JSONSerialization: reproducing
// that code is its point (scripts/check-layout.py).

/// Client code a bench path compares with.
struct BenchPeers {
    let s: BenchSettings
    let m: BenchMeasure
    var chunkSeconds: Double { s.chunkMilliseconds / 1000 }

    struct AppendMessage: Encodable {
        let type: String
        let audio: String
    }

    static func clampMap(_ f: UnsafeBufferPointer<Float>) -> [Int16] {
        f.map { Int16(max(-32768, min(32767, $0 * 32767))) }
    }

    /// Mic: quantise, frame (JSONSerialization and JSONEncoder), resample, and the whole path.
    func mic(_ mic: BenchMic) throws(AudioPipelineError) -> [BenchRow] {
        let client = BenchSignal(rate: mic.client.hz, channels: 1, chunkFrames: mic.clientChunk)
        // The frame peers start from one chunk of PCM16, as ours does (quantising is its own row).
        let pcm = Self.clampMap(client.next())
        var rows = [
            peer("ios-map", "map { Int16(clamp($0 × 32767)) } into a new array", of: "quantise") {
                blackHole(Self.clampMap(client.next()).count)
            },
            peer("jsonserialization", "Data.base64EncodedString + JSONSerialization", of: "chunk+frame") {
                let b64 = pcm.withUnsafeBytes { Data($0) }.base64EncodedString()
                let o: [String: Any] = ["type": "input_audio_buffer.append", "audio": b64]
                blackHole((try? JSONSerialization.data(withJSONObject: o))?.count ?? 0)
            },
        ]
        let encoder = JSONEncoder()
        rows.append(
            peer("jsonencoder", "Data.base64EncodedString + JSONEncoder (Codable)", of: "chunk+frame") {
                let b64 = pcm.withUnsafeBytes { Data($0) }.base64EncodedString()
                let m = AppendMessage(type: "input_audio_buffer.append", audio: b64)
                blackHole((try? encoder.encode(m))?.count ?? 0)
            })
        let same = mic.device.sampleRate == mic.client
        guard let other = s.peerResampler, !same else { return rows + (same ? [try micPath(mic, nil)] : []) }
        let format = try ResamplingFormat(from: mic.device.sampleRate, to: mic.client)
        var r = try other.make(format)
        let mono = BenchSignal(rate: mic.device.sampleRate.hz, channels: 1, chunkFrames: mic.deviceChunk)
        let out = BenchBuffer<Float>(r.maxOutputCount(forInput: mic.deviceChunk) + 64, 0)
        rows.append(
            peer(other.name, "\(other.name) \(mic.device.sampleRate.hz) → \(mic.client.hz) Hz", of: "resample") {
                _ = r.process(mono.next(), into: out.pointer)
            })
        return rows + [try micPath(mic, other)]
    }

    /// The whole mic path as common client code: mix down by hand, `other` resamples, map, base64, JSON.
    func micPath(
        _ mic: BenchMic, _ other: (name: String, make: FormatConverter.ResamplerFactory)?
    ) throws(AudioPipelineError) -> BenchRow {
        let ch = mic.device.channels
        var r = try other.map { o throws(AudioPipelineError) in
            try o.make(try ResamplingFormat(from: mic.device.sampleRate, to: mic.client))
        }
        let signal = BenchSignal(rate: mic.device.sampleRate.hz, channels: ch, chunkFrames: mic.deviceChunk)
        let resampled = BenchBuffer<Float>(mic.clientChunk * 2 + 64, 0)
        let name = "ios-code" + (other.map { "+" + $0.name } ?? "")
        return peer(
            name, "the common client code for the whole path" + (other.map { ", \($0.name)" } ?? ""),
            of: "total"
        ) {
            let chunk = signal.next()
            let mono: [Float] =
                ch == 1
                ? Array(chunk)
                : (0..<(chunk.count / ch)).map { i in
                    (0..<ch).reduce(Float(0)) { $0 + chunk[i * ch + $1] } / Float(ch)
                }
            let shorts: [Int16]
            if r != nil {
                let n = mono.withUnsafeBufferPointer { r!.process($0, into: resampled.pointer).produced }
                shorts = Self.clampMap(UnsafeBufferPointer(rebasing: resampled.pointer[0..<n]))
            } else {
                shorts = mono.withUnsafeBufferPointer { Self.clampMap($0) }
            }
            let b64 = shorts.withUnsafeBytes { Data($0) }.base64EncodedString()
            let o: [String: Any] = ["type": "input_audio_buffer.append", "audio": b64]
            blackHole((try? JSONSerialization.data(withJSONObject: o))?.count ?? 0)
        }
    }

    /// Speaker: decode (JSONSerialization), widen, convert, and the whole path.
    func speaker(_ sp: BenchSpeaker) throws(AudioPipelineError) -> [BenchRow] {
        let data = Data(sp.message)
        let path = sp.audioPath.split(separator: ".").map(String.init)
        func audio(_ d: Data) -> Data? {
            var node: Any? = try? JSONSerialization.jsonObject(with: d)
            for key in path {
                if let i = Int(key) {
                    node = (node as? [Any]).flatMap { i < $0.count ? $0[i] : nil }
                } else {
                    node = (node as? [String: Any])?[key]
                }
            }
            return (node as? String).flatMap { Data(base64Encoded: $0) }
        }
        guard audio(data) != nil else {
            throw AudioPipelineError(
                .invalidConfiguration, "bench: JSONSerialization finds no audio at \(sp.audioPath)")
        }
        let pcm = Data(sp.pcm.withUnsafeBytes { Array($0) })
        var rows = [
            peer("jsonserialization", "JSONSerialization + Data(base64Encoded:)", of: "decode") {
                blackHole(audio(data)?.count ?? 0)
            },
            peer("ios-map", "÷ 32767 into a new array", of: "widen") {
                let f: [Float] = pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map { Float($0) / 32767 }
                blackHole(f.count)
            },
        ]
        guard let other = s.peerResampler, sp.server != sp.device.sampleRate else {
            guard sp.server == sp.device.sampleRate else { return rows }
            return rows + [
                peer("ios-code", "JSONSerialization, base64, ÷32767 (same rates); no jitter buffer", of: "total") {
                    guard let d = audio(data) else { return }
                    let f: [Float] = d.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map {
                        Float($0) / 32767
                    }
                    blackHole(f.count)
                }
            ]
        }
        var r = try other.make(try ResamplingFormat(from: sp.server, to: sp.device.sampleRate))
        let signal = BenchSignal(rate: sp.server.hz, channels: 1, chunkFrames: sp.serverChunk)
        let out = BenchBuffer<Float>(r.maxOutputCount(forInput: sp.serverChunk) + 64, 0)
        rows.append(
            peer(other.name, "\(other.name) \(sp.server.hz) → \(sp.device.sampleRate.hz) Hz, mono", of: "convert") {
                _ = r.process(signal.next(), into: out.pointer)
            })
        var r2 = try other.make(try ResamplingFormat(from: sp.server, to: sp.device.sampleRate))
        rows.append(
            peer(
                "ios-code+" + other.name, "JSONSerialization, base64, ÷32767, \(other.name); no jitter buffer",
                of: "total"
            ) {
                guard let d = audio(data) else { return }
                let f: [Float] = d.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map { Float($0) / 32767 }
                f.withUnsafeBufferPointer { blackHole(r2.process($0, into: out.pointer).produced) }
            })
        return rows
    }

    func peer(_ name: String, _ description: String, of stage: String, _ body: () -> Void) -> BenchRow {
        var row = m.run(name, description, chunkSeconds: chunkSeconds, body: body)
        row.peerOf = stage
        return row
    }
}

/// Keeps a value alive past the optimiser.
@inline(never) func blackHole(_ x: Int) { if x == -42 { print(x) } }
