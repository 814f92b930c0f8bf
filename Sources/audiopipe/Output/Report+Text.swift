import AudioPipelineAdapters
import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation

// The human renderings of the workflows' reports (presentation only; `--json` prints the reports).

extension InfoReport {
    var text: String {
        func db(_ v: Double?) -> String { v.map { String(format: "%.2f dBFS", $0) } ?? "-inf dBFS (silence)" }
        return """
            \(path)
              container   \(container)
              encoding    \(encoding)
              sample rate \(sampleRate) Hz
              channels    \(channels)
              frames      \(frames)
              duration    \(String(format: "%.3f s", durationSeconds))
              peak        \(db(peakDBFS))
              rms         \(db(rmsDBFS))
              clipped     \(clippedSamples) samples
              dc offset   \(String(format: "%+.6f", dcOffset))
            """
    }
}

extension ConvertReport {
    var text: String {
        let i = inputFormat, o = outputFormat
        var s = "\(input) (\(i.container ?? "?"), \(i.encoding), \(i.sampleRate) Hz, \(i.channels) ch, \(String(format: "%.3f s", inputSeconds)))"
        s += "\n  -> \(output) (\(o.type ?? "?"), \(o.encoding), \(o.sampleRate) Hz, \(o.channels) ch)"
        s += "\n  frames \(framesIn) -> \(framesOut)"
        if let name = resampler { s += "; resampler \(name) (latency \(resamplerLatencyFrames) frames, delay-compensated)" }
        if o.encoding == SampleEncoding.pcm16.rawValue {
            s += "\n  clipped \(clippedSamples) samples" + (nanSamples > 0 ? ", NaN \(nanSamples)" : "")
        }
        s += String(format: "\n  %.3f s, %.0f× realtime", elapsedSeconds, elapsedSeconds > 0 ? inputSeconds / elapsedSeconds : 0)
        return s
    }
}

extension FrameReport {
    var text: String {
        String(
            format: "%@: %d audio messages (+%d control), %.3f s of audio at %d Hz; %d PCM bytes -> %d bytes on the wire "
                + "(%.3fx: base64/JSON overhead)",
            profile, audioMessages, controlMessages, audioSeconds, rate, pcmBytes, wireBytes, overhead)
    }
}

extension DeframeReport {
    func text(output: String) -> String {
        var s = String(format: "%@ (%@ audio): %d messages, %d with audio: %.3f s at %d Hz -> %@\n", profile, direction, messages,
                       audioMessages, audioSeconds, rate, output)
        s += "  interruptions \(interruptions), turn ends \(turnEnds), commits \(commits), errors \(errors.count)\n"
        for e in errors.prefix(5) { s += "    error: \(e)\n" }
        if !unknownTypes.isEmpty {
            s += "  unknown message types (skipped): "
                + unknownTypes.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ") + "\n"
        }
        if !skipped.isEmpty { s += "  skipped (--lenient): \(skipped.count); first: \(skipped[0])\n" }
        if stalls > 0 { s += String(format: "  stalls (audio later than real-time playback needed it): %d, %.0f ms in all\n", stalls, stallMs) }
        for u in utterances.prefix(20) { s += String(format: "  response %@: %.3f s\n", u.id, u.seconds) }
        return String(s.dropLast())
    }
}

extension JitterMetrics {
    var text: String {
        var s = String(format: "  late loss %.3f %%, concealment %.3f %%, mean delay %.1f ms, underruns %d (%.2f/min), stretch %.2f %%\n",
                       lateLossPct, concealPct, meanDelayMs, underruns, underrunsPerMin, stretchPct)
        s += String(format: "  packets %d: late %d, stale %d, duplicate %d, overflow %d (%.0f ms); flushes %d (%.0f ms dropped); "
                    + "most queued %.0f ms",
                    packets, latePackets, stalePackets, duplicatePackets, overflowPackets, overflowMs, flushes, flushedMs, maxQueuedMs)
        return s
    }
}

extension JitterReport where Run == TraceRun {
    var text: String {
        "\(run.trace): \(run.packetCount) packets, \(run.flushCount) flushes -> \(run.output)\n" + metrics.text
    }
}

extension JitterReport where Run == SessionRun {
    var text: String {
        String(format: "%@ (%@): %d audio messages, %d interruptions -> %@ (%.3f s at %d Hz)\n", run.session, run.profile,
               run.audioMessages, run.interruptions, run.output, run.outputSeconds, run.rate) + metrics.text
    }
}

extension VADDetectReport {
    func text(output: String) -> String {
        String(format: "%@: %d segments, %.2f s of speech in %.2f s -> %@", input, segments.count, speechSeconds, duration, output)
    }
}

extension VADTuningSummary {
    var text: String {
        let m = scores
        return String(
            format: "best (%@): F1 %.3f, precision %.3f, recall %.3f, false alarm %.1f %%, fresh onset latency p50 %.0f ms, "
                + "%.2f false triggers/min\n  %@\nswept in %.1f s -> %@/best.json",
            objective, m.f1, m.precision, m.recall, m.falseAlarm * 100, m.freshLatencyP50, m.falseTriggersPerMinute,
            best.keys.sorted().map { "\($0)=\(NumberText.plain(best[$0]!))" }.joined(separator: " "), elapsedSeconds, report)
    }
}

extension ResamplerQuality {
    var text: String {
        var s = String(format: "%@  %d Hz -> %d Hz\n", resampler, fromHz, toHz)
        s += String(format: "  SNR (worst tone <= 0.40 x lower rate)  %7.1f dB\n", worstToneSNRdB)
        s += String(format: "  SNR (five tones)                       %7.1f dB\n", multiToneSNRdB)
        s += String(format: "  passband ripple                        %7.4f dB\n", passbandRippleDB)
        s += String(format: "  leakage (worst)                        %7.1f dBFS\n", worstLeakageDBFS)
        s += String(format: "  latency                                %7.2f ms (%d frames)\n", latencyMs, latencyFrames)
        if let rt = realtimeFactor { s += String(format: "  speed                                  %7.0f x realtime\n", rt) }
        return s
    }
}
