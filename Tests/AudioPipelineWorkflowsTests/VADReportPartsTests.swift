import AudioPipelineCore
import Foundation
import Testing

@testable import AudioPipelineWorkflows

@Suite struct VADReportParts {
    /// Time ticks stay readable at any duration: about a dozen, in steps people count in.
    @Test func timeTicksAreNiceStepsWithClockLabelsBeyondAMinute() {
        let cases: [(span: Double, step: Double, label: String, at: Double)] = [
            (0.3, 0.05, "0.25", 0.25), (5, 0.5, "2.5", 2.5), (10.15, 1, "7", 7), (45, 5, "40", 40),
            (100, 10, "1:30", 90), (600, 60, "9:00", 540), (3647, 600, "0:50:00", 3000),
            (4 * 3600, 1800, "3:30:00", 12_600),
        ]
        for c in cases {
            let step = Ticks.time(c.span, target: 12)
            #expect(step == c.step, "\(c.span) s")
            #expect(c.span / step <= 12 && c.span / step >= 4, "\(c.span) s: \(c.span / step) ticks")
            #expect(Ticks.timeLabel(c.at, step: step, span: c.span) == c.label)
        }
    }

    @Test func manifestFieldsMayBeQuotedAndConditionsComeFromItsColumns() throws {
        let text = "\u{FEFF}name,noise,snr,detail\r\na,white,10,\"x, \"\"y\"\"\"\nb,pink,0,plain\n\n"
        let m = try VADManifest(text: text, path: "m.csv")
        #expect(m.rows["a"]?["detail"] == "x, \"y\"" && m.rows["b"]?["snr"] == "0")
        #expect(try m.conditionColumns(nil) == ["noise"])
        #expect(m.condition(of: "a", columns: ["noise"]) == "white")
        #expect(m.condition(of: "b", columns: ["noise", "snr"]) == "noise=pink snr=0")
        #expect(m.condition(of: "c", columns: ["noise"]) == "(not in the manifest)")
        #expect(throws: AudioPipelineError.self) { try m.conditionColumns(["room"]) }
        #expect(throws: AudioPipelineError.self) { try VADManifest(text: "file,noise\nx,y\n", path: "m.csv") }
        #expect(throws: AudioPipelineError.self) { try VADManifest(text: "name,noise\nx,\"y\n", path: "m.csv") }
    }
}
