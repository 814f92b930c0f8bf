import AudioPipelineAdapters
import Foundation
import Testing
import _AudioPipelineTestSupport

@Suite struct AnalyzeResamplerCommand {
    @Test func reportsTheMeasurementsAsJSON() throws {
        let r = try CLI.run([
            "analyze", "resampler", "--from", "48000", "--to", "16000", "--resampler", "native-high", "--json",
            "--no-speed",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let arr = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]])
        let q = try #require(arr.first)
        #expect(q["resampler"] as? String == "native-high")
        #expect((q["worstToneSNRdB"] as? Double ?? 0) >= 120)
        #expect((q["worstLeakageDBFS"] as? Double ?? 0) <= -120)
        #expect((q["latencyMs"] as? Double ?? 99) <= 3)
        #expect((q["tones"] as? [Any])?.count ?? 0 >= 10)
    }

    @Test func textReportNamesEveryMeasurement() throws {
        let r = try CLI.run(["analyze", "resampler", "--from", "16000", "--to", "24000", "--resampler", "native-fast"])
        #expect(r.status == 0)
        for word in ["SNR", "ripple", "leakage", "latency", "realtime", "file path (as convert runs it)"] {
            #expect(r.text.contains(word), "\(word)")
        }
    }

    /// The native resampler's speed on the file path too (JSON `throughputRealtimeFactor`); not for
    /// libsamplerate, which has one mode.
    @Test func measuresTheFilePathOfTheNativeResamplers() throws {
        let r = try CLI.run([
            "analyze", "resampler", "--from", "44100", "--to", "16000", "--resampler", "all", "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let arr = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]])
        for q in arr {
            let name = q["resampler"] as? String ?? ""
            let file = q["throughputRealtimeFactor"] as? Double
            #expect((file ?? 0 > 0) == name.hasPrefix("native"), "\(name): \(String(describing: file))")
        }
    }

    @Test func badConfigurations() throws {
        for args in [
            ["--from", "0", "--to", "16000"], ["--from", "48000", "--to", "900000"], ["--from=-5", "--to", "16000"],
            ["--from", "16000", "--to", "16000"], ["--from", "48000", "--to", "16000", "--resampler", "sox"],
        ] {
            let r = try CLI.run(["analyze", "resampler"] + args)
            #expect(r.status == 64, "\(args): \(r.stderr)")
            #expect(!r.stderr.isEmpty)
        }
    }
}

@Suite struct ConvertResamplerChoice {
    @Test(arguments: ResamplerChoice.allCases)
    func everyResamplerGivesTheExactLength(choice: ResamplerChoice) throws {
        let s = Scratch()
        let out = s.file("o.wav")
        let r = try CLI.run(["convert", phone, out, "-r", "16000", "-c", "1", "--resampler", choice.rawValue, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let framesIn = try #require(o["framesIn"] as? Int)
        #expect(o["framesOut"] as? Int == (framesIn + 2) / 3)
        #expect(o["resampler"] as? String == choice.rawValue)
    }

    @Test func theDefaultIsNativeHigh() throws {
        let s = Scratch()
        let r = try CLI.run(["convert", mic, s.file("o.wav"), "-r", "24000", "--json"])
        let o = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(o["resampler"] as? String == "native-high")
    }

    @Test func anUnknownResamplerIsAUsageError() throws {
        let s = Scratch()
        let r = try CLI.run(["convert", mic, s.file("o.wav"), "-r", "24000", "--resampler", "soxr"])
        #expect(r.status == 64)
        #expect(s.contents.isEmpty)
    }
}
