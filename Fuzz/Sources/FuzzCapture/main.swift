// Captured sessions (JSON Lines, HAR, the binary message stream — the first byte picks which) read
// and walked with profile detection, strict and lenient: an error or a report, never a crash.
import AudioPipelineCore
import AudioPipelineWorkflows
import FuzzSupport

Fuzz.body = { bytes in
    guard let first = bytes.first else { return }
    let ext = ["jsonl", "har", "bin"][Int(first) % 3]
    let path = Fuzz.file(UnsafeRawBufferPointer(rebasing: bytes.dropFirst()), extension: ext)
    for lenient in [false, true] {
        var options = DeframeOptions()
        options.lenient = lenient
        options.direction = first & 4 == 0 ? .server : .client
        _ = try? SessionWalk(input: path, options: options, needsTimes: false).run { _ in }
    }
}
Fuzz.run()
