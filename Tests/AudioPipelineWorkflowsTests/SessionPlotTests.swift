import AudioPipelineCore
import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineWorkflows

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The session plots read as a person reads them: each has a legend, tick labels in their unit, and
/// a missed barge-in drawn and counted (never dropped). The SVG is parsed as XML; the parts are
/// found by their groups' classes (`legend-entry`, `y-ticks`, `x-ticks`, `missed`).
@Suite struct SessionPlotTests {
    /// The texts of an SVG document, each with the classes of the groups around it.
    final class Texts: NSObject, XMLParserDelegate {
        var items: [(classes: [String], text: String)] = []
        private var groups: [String] = []
        private var current: String?

        init(_ svg: String) throws {
            super.init()
            let parser = XMLParser(data: Data(svg.utf8))
            parser.delegate = self
            #expect(parser.parse(), "the SVG is well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")
        }

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if name == "g" { groups.append(attributes["class"] ?? "") }
            if name == "text" { current = "" }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { current? += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "g" { groups.removeLast() }
            if name == "text", let text = current {
                items.append((groups, text))
                current = nil
            }
        }

        func texts(in group: String) -> [String] { items.filter { $0.classes.contains(group) }.map(\.text) }
        /// A legend's labels (its swatches' ✕ left out).
        var legend: [String] { texts(in: "legend-entry").filter { $0 != "✕" } }
        var all: [String] { items.map(\.text) }
    }

    static func headline(onsets: Int, missed: Int, p50: Double?, p90: Double?, falsePerMinute: Double)
        -> SessionHeadline
    {
        var h = SessionHeadline()
        h.bargeIns = onsets
        h.missedBargeIns = missed
        h.latencyMsP50 = p50
        h.latencyMsP90 = p90
        h.talkOverMsP50 = p50.map { $0 + 20 }
        h.falseBargeInsPerMinute = falsePerMinute
        return h
    }

    /// A sweep whose louder echo makes the VAD miss onsets: at 0 dB two of three are missed (p90 of
    /// the one found is lower than before), at 6 dB all three (no latency at all). Both show as
    /// "missed N" at the top of the latency panel and in the title's count.
    @Test func aSweepShowsItsMissedBargeInsWithLegendAndTicks() throws {
        let report = SessionSweepReport(
            parameter: "echo_gain_db",
            rows: [
                .init(value: -20, headline: Self.headline(onsets: 3, missed: 0, p50: 120, p90: 260, falsePerMinute: 0)),
                .init(value: 0, headline: Self.headline(onsets: 3, missed: 2, p50: 90, p90: 90, falsePerMinute: 0.5)),
                .init(value: 6, headline: Self.headline(onsets: 3, missed: 3, p50: nil, p90: nil, falsePerMinute: 1)),
            ], output: "sweep", warnings: [])
        let svg = try Texts(SessionSweep.plot(report))
        #expect(svg.all.first == "session sweep over echo_gain_db: 5 missed barge-ins of 9 user onsets")
        #expect(
            svg.legend == [
                "latency p50 (of onsets found)", "latency p90 (of onsets found)", "talk-over p50 (of onsets found)",
                "missed barge-ins (at the top)", "false barge-ins per minute",
            ])
        #expect(svg.texts(in: "missed").filter { $0.hasPrefix("missed") } == ["missed 2", "missed 3"])
        let yTicks = svg.texts(in: "y-ticks")
        #expect(yTicks.contains("0 ms") && yTicks.contains("300 ms"), "\(yTicks)")
        #expect(yTicks.contains("0.0 /min") && yTicks.contains("1.0 /min"), "\(yTicks)")
        #expect(svg.texts(in: "x-ticks") == ["-20 dB", "0 dB", "6 dB", "-20 dB", "0 dB", "6 dB"])
    }

    @Test func unitsComeFromTheParameterName() {
        #expect(SessionPlotParts.unit(of: "echo_gain_db") == "dB")
        #expect(SessionPlotParts.unit(of: "noise_dbfs") == "dBFS")
        #expect(SessionPlotParts.unit(of: "hangover_ms") == "ms")
        #expect(SessionPlotParts.unit(of: "loss_pct") == "%")
        #expect(SessionPlotParts.unit(of: "floor_window_s") == "s")
        #expect(SessionPlotParts.unit(of: "softclip") == "")
        #expect(SessionPlotParts.ticks(upTo: 260) == [0, 100, 200, 300])
    }

    /// A real session whose VAD cannot start speech (absolute_dbfs 0): the user's onset is missed,
    /// and timeline.svg marks it over the onset, counts it in its title, and keeps its legend and
    /// every level lane's scale.
    @Test func theTimelineDrawsAMissedBargeInAndItsScales() throws {
        let dir = TempDir()
        var (c, tracks, _) = try SessionSimulation.conversation(echo: true, user: true)
        c.vad.absoluteThreshold = 0
        let r = try SessionSimulator(configuration: c).run(tracks, outputDirectory: dir.file("sim"))
        #expect(r.missedBargeIns == 1 && r.bargeIns.count == 1)
        let svg = try Texts(try String(contentsOfFile: dir.file("sim/timeline.svg"), encoding: .utf8))
        #expect(svg.all.first?.contains("1 user onsets in agent playout, 1 missed, 0 false barge-ins") == true)
        #expect(svg.texts(in: "missed").contains("missed"))
        #expect(svg.legend == SessionTimeline.legendEntries.map(\.label))
        #expect(svg.legend.contains("missed barge-in"))
        #expect(
            svg.texts(in: "y-ticks") == ["-60 dBFS", "-20 dBFS", "-60 dBFS", "-20 dBFS", "0 dB", "20 dB"]
                + ["0 ms", "50 ms", "100 ms"])
        #expect(svg.texts(in: "x-ticks").first == "0" && svg.all.contains("time, s"))
        // The same session whose VAD hears the user: nothing missed, nothing marked.
        c.vad.absoluteThreshold = -65
        let found = try SessionSimulator(configuration: c).run(tracks, outputDirectory: dir.file("found"))
        #expect(found.missedBargeIns == 0)
        let foundSVG = try Texts(try String(contentsOfFile: dir.file("found/timeline.svg"), encoding: .utf8))
        #expect(foundSVG.texts(in: "missed").isEmpty)
    }
}
