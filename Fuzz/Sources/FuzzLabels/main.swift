// Audacity label files: segments or an error naming the line, never a crash; the segments read
// are ordered, non-overlapping and within 0…10⁷ s.
import AudioPipelineCore
import AudioPipelineWorkflows
import FuzzSupport

Fuzz.body = { bytes in
    guard let segments = try? AudacityLabels.read(path: Fuzz.file(bytes, extension: "txt")) else { return }
    for (a, b) in zip(segments, segments.dropFirst()) where !(a.end < b.start) {
        Fuzz.fail("segments overlap: \(a) \(b)")
    }
    for s in segments where !(s.start >= 0 && s.end > s.start && s.end <= 1e7) {
        Fuzz.fail("segment out of range: \(s)")
    }
}
Fuzz.run()
