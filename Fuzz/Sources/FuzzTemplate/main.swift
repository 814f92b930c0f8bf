// Custom profile templates: decoded and built into a profile, or refused; a profile built frames a
// chunk and interprets messages without crashing.
import AudioPipelineCore
import Foundation
import FuzzSupport

Fuzz.body = { bytes in
    guard let template = try? JSONDecoder().decode(CustomProfileTemplate.self, from: Data(bytes)),
        let p = try? WireProfile.custom(template)
    else { return }
    var message = [UInt8](repeating: 0, count: p.messageLength(pcmBytes: 8))
    _ = [UInt8](repeating: 1, count: 8).withUnsafeBytes { pcm in
        message.withUnsafeMutableBytes { p.frame(pcm, into: $0) }
    }
    if let v = try? JSON.parse(bytes) {
        _ = p.interpretAll(v, direction: .server)
        _ = p.interpretAll(v, direction: .client)
    }
}
Fuzz.run()
