import AudioPipelineCore
import Testing

@testable import AudioPipelineWorkflows

/// `vad tune --framework … --set NAME=V1,V2,…` reads its values as the detector's own `--set` does.
@Suite struct FrameworkGridTests {
    @Test func setValuesReplaceTheAxisAndKeepTheBaseline() throws {
        let grid = try FrameworkTuner.grid(
            .livekit, axes: ["min_silence_duration=0.1, 0.3"], base: ["min_silence_duration": 0.55])
        let axis = try #require(grid.first { $0.name == "min_silence_duration" })
        #expect(axis.values == [0.1, 0.3, 0.55])
    }

    @Test func anEmptyOrNonFiniteValueIsRefused() {
        for text in ["min_silence_duration=0.1,,0.3", "min_silence_duration=0.1,", "min_silence_duration=nan,0.3"] {
            #expect(throws: AudioPipelineError.self, "\(text)") {
                _ = try FrameworkTuner.grid(FrameworkVAD.livekit, axes: [text], base: [:])
            }
        }
    }
}
