import AudioPipelineCore
import Testing

@testable import AudioPipelineWorkflows

/// The options `session simulate` was given, as its mode checks read them from the command line.
@Suite struct SessionModesGiven {
    @Test func optionsAreReadWithTheirValuesAsTyped() {
        let given = SessionModes.given([
            "session", "simulate", "--agent", "a.wav", "--echo-gain-db", "-6", "--noise-dbfs=-60", "--no-echo",
            "-o", "out", "--param", "enter_db=12", "--room", "rt60_ms=400:900", "--room", "softclip=0", "-q",
            "--json", "--", "--seed",
        ])
        #expect(given["--agent"] == "a.wav")
        #expect(given["--echo-gain-db"] == "-6", "a space and a minus: the value, not an option")
        #expect(given["--noise-dbfs"] == "-60")
        #expect(given["--no-echo"] == "" && given["-q"] == "" && given["--json"] == "", "flags")
        #expect(given["-o"] == "out")
        #expect(given["--param enter_db"] == "enter_db=12", "each --param by the parameter it sets")
        #expect(given["--room"] == "rt60_ms=400:900", "a repeated option: its first value")
        #expect(given["--seed"] == nil, "nothing after --")
        #expect(given["session"] == nil && given["a.wav"] == nil)
    }

    @Test func aSweepConflictsOnlyWithTheOptionThatSetsItsParameter() throws {
        #expect(SessionModes.settingOption("jitter_ms", given: ["--network": "delay=60"]) == nil)
        let network = SessionModes.settingOption("jitter_ms", given: ["--network": "delay=60,jitter=5"])
        #expect(network == "--network jitter")
        #expect(SessionModes.settingOption("enter_db", given: ["--enter-db": "9"]) == "--enter-db")
        #expect(SessionModes.settingOption("exit_db", given: ["--param exit_db": "exit_db=2"]) == "--param exit_db")
        #expect(SessionModes.settingOption("rt60_ms", given: ["--enter-db": "9"]) == nil)
    }

    /// `--sweep NAME=v1,v2,…`: an empty entry and a value given twice are refused, not skipped or run
    /// twice into one folder; what is well formed keeps its order.
    @Test func aSweepRefusesEmptyEntriesAndRepeatedValues() throws {
        let parsed = try SessionSweep.parse("echo_delay_ms=40, 0,120")
        #expect(parsed.name == "echo_delay_ms" && parsed.values == [40, 0, 120])
        for text in ["echo_delay_ms=1,,2", "echo_delay_ms=1,2,", "echo_delay_ms=,1", "echo_delay_ms="] {
            #expect(throws: AudioPipelineError.self, "\(text)") { try SessionSweep.parse(text) }
        }
        for text in ["echo_delay_ms=1,1", "echo_delay_ms=1,2,1.0"] {
            do {
                _ = try SessionSweep.parse(text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.message.contains("echo_delay_ms=1 is given twice"), "\(error.message)")
            }
        }
    }
}
