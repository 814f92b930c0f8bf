// The strict JSON parser on any bytes: an answer or an error, never a crash or a hang (depth limit).
import AudioPipelineCore
import FuzzSupport

Fuzz.body = { bytes in
    guard let v = try? JSON.parse(bytes) else { return }
    _ = v.value(at: "a.b.0.c")
}
Fuzz.run()
