// Jitter-kit traces and flush files (the input split at the first 0 byte): parsed, and when they
// parse, replayed through the jitter buffer.
import AudioPipelineCore
import AudioPipelineWorkflows
import FuzzSupport

Fuzz.body = { bytes in
    let cut = bytes.firstIndex(of: 0) ?? bytes.count
    let trace = Fuzz.file(UnsafeRawBufferPointer(rebasing: bytes[0..<cut]), extension: "csv")
    guard let packets = try? ArrivalTrace.readPackets(path: trace, sampleRate: 8000), packets.count <= 200 else {
        return
    }
    let flushText =
        cut < bytes.count
        ? UnsafeRawBufferPointer(rebasing: bytes[(cut + 1)...]) : UnsafeRawBufferPointer(start: nil, count: 0)
    let flushPath = Fuzz.file(flushText, extension: "flush")
    let flushes = (try? ArrivalTrace.readFlushes(path: flushPath, packets: packets, tracePath: trace)) ?? []
    guard let c = try? JitterSettings().configuration(sampleRate: 8000) else { return }
    _ = try? JitterSimulation(configuration: c).run(packets: packets, flushes: flushes)
}
Fuzz.run()
