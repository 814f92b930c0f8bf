// The speaker path's non-allocating scan against the strict parser: on every valid JSON message
// the fast path finds exactly the audio the full parse and the profile's interpreter find, or
// defers to them.
import AudioPipelineCore
import FuzzSupport

let profiles = WireProfile.BuiltIn.allCases.compactMap { try? WireProfile.builtIn($0) }
var output = [UInt8](repeating: 0, count: 1 << 20)

Fuzz.body = { bytes in
    guard bytes.count < 1 << 19 else { return }
    let parsed = try? JSON.parse(bytes)
    for p in profiles {
        let fast = output.withUnsafeMutableBytes { p.decodeServerAudio(bytes, into: $0) }
        guard case .audio(let n) = fast, let parsed else { continue }
        guard case .audio(let text, _, _)? = p.interpretAll(parsed, direction: .server).first,
            let full = try? p.decodeAudio(text)
        else { Fuzz.fail("\(p.name): fast path found audio the full parse does not") }
        if Array(output[0..<n]) != full { Fuzz.fail("\(p.name): fast and full decodes differ") }
    }
}
Fuzz.run()
