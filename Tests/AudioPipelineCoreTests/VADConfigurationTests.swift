import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineCore

/// best.json exactly as `audiopipe vad tune` wrote it before VADConfiguration became Codable
/// (the demo corpus): the 18 parameters, a `_comment` and the `scores` object.
private let bestJSON = #"""
    {
      "_comment" : "audiopipe vad tune: best by f1 over 425 settings on 1 files; use with: audiopipe vad detect IN --config best.json",
      "absolute_dbfs" : -65,
      "echo_delay_max_ms" : 150,
      "echo_delay_min_ms" : 10,
      "echo_gain_window_s" : 4,
      "echo_margin_db" : 6,
      "enter_db" : 6,
      "exit_average_frames" : 5,
      "exit_db" : 3,
      "floor_quantile" : 0.2,
      "floor_window_s" : 5,
      "frame_ms" : 10,
      "hangover_ms" : 150,
      "initial_echo_gain_db" : 0,
      "min_speech_ms" : 60,
      "preroll_ms" : 0,
      "reference_active_dbfs" : -55,
      "scores" : {
        "f1" : 0.937799043062201,
        "false_alarm" : 0.028277634961439587,
        "fresh_lat_p50_ms" : 149.99999999999991,
        "fresh_lat_p90_ms" : 149.99999999999991,
        "ft_per_min" : 0,
        "lat_p50_ms" : 149.99999999999991,
        "lat_p90_ms" : 149.99999999999991,
        "miss" : 0.07109004739336493,
        "onset_detect" : 1,
        "onsets" : 1,
        "pre_on" : 0,
        "precision" : 0.9468599033816425,
        "recall" : 0.9289099526066351
      },
      "talker_gate_db" : 20,
      "talker_window_s" : 10
    }
    """#

private func decodeConfiguration(_ json: String) throws -> VADConfiguration {
    try JSONDecoder().decode(VADConfiguration.self, from: Data(json.utf8))
}

/// A configuration with every parameter off its default (and still valid).
private func tuned() -> VADConfiguration {
    var c = VADConfiguration()
    c.frameMilliseconds = 20
    c.floorQuantile = 0.15
    c.floorWindowSeconds = 3.5
    c.enterThreshold = 7.25
    c.exitThreshold = 1.5
    c.absoluteThreshold = -70
    c.minimumSpeechMilliseconds = 40
    c.hangoverMilliseconds = 180
    c.preRollMilliseconds = 30
    c.echoDelayMinMilliseconds = 20
    c.echoDelayMaxMilliseconds = 200
    c.echoMargin = 4.5
    c.echoGainWindowSeconds = 6
    c.initialEchoGain = -3
    c.referenceActiveThreshold = -50
    c.talkerGate = 25
    c.talkerWindowSeconds = 12
    c.exitAverageFrames = 3
    return c
}

@Suite struct VADConfigurationTests {
    @Test func bestJSONWrittenByTodaysTuneDecodesToTheSameConfiguration() throws {
        let decoded = try decodeConfiguration(bestJSON)
        var expected = VADConfiguration()
        expected.enterThreshold = 6
        expected.exitThreshold = 3
        expected.hangoverMilliseconds = 150
        expected.minimumSpeechMilliseconds = 60
        // Written before the echo delay was searched over 0–500 ms and the worst plausible echo
        // expected until the gain has learnt: the file's own values hold.
        expected.echoDelayMinMilliseconds = 10
        expected.echoDelayMaxMilliseconds = 150
        expected.initialEchoGain = 0
        #expect(decoded == expected)
    }

    @Test func roundTripsThroughJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for c in [VADConfiguration(), tuned()] {
            let data = try encoder.encode(c)
            #expect(try JSONDecoder().decode(VADConfiguration.self, from: data) == c)
            // Every parameter is written, under its name, and nothing else.
            let object = try JSONDecoder().decode([String: Double].self, from: data)
            #expect(Set(object.keys) == Set(VADConfiguration.parameterNames) && object.count == 29)
            for (name, keyPath) in VADConfiguration.parameters { #expect(object[name] == c[keyPath: keyPath]) }
        }
    }

    @Test func missingKeysKeepTheirDefaultsAndNotesAreIgnored() throws {
        #expect(try decodeConfiguration("{}") == VADConfiguration())
        let c = try decodeConfiguration(#"{"version": 1, "_comment": "x", "scores": {"f1": 1}, "hangover_ms": 250}"#)
        var expected = VADConfiguration()
        expected.hangoverMilliseconds = 250
        #expect(c == expected)
    }

    @Test func anUnknownKeyIsAnErrorThatNamesIt() {
        do {
            _ = try decodeConfiguration(#"{"enter_db": 3, "enter_dB": 3}"#)
            Issue.record("decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.last?.stringValue == "enter_dB")
            #expect(context.debugDescription.contains("unknown VAD parameter 'enter_dB'"))
            #expect(context.debugDescription.contains("enter_db"))  // lists the known names
        } catch {
            Issue.record("\(error)")
        }
        #expect(throws: DecodingError.self) { _ = try decodeConfiguration(#"{"enter_db": "10"}"#) }
        #expect(throws: DecodingError.self) { _ = try decodeConfiguration("[10]") }
    }

    /// Decoding checks names and types; ranges are `validate()`'s (and the detector's) job.
    @Test func decodingLeavesRangesToValidate() throws {
        let c = try decodeConfiguration(#"{"frame_ms": 15}"#)
        #expect(c.frameMilliseconds == 15)
        #expect(throws: AudioPipelineError.self) { try c.validate() }
        #expect(throws: AudioPipelineError.self) { _ = try EnergyVAD(sampleRate: 16_000, configuration: c) }
    }

    /// Every parameter has a finite range: infinities, NaN and values far out are refused by name
    /// (`--exit-db=-inf` once ran, with exit_db unbounded below).
    @Test func everyParameterRefusesNonFiniteAndFarOutValues() {
        for name in VADConfiguration.parameterNames {
            for v in [Double.nan, .infinity, -.infinity, 1e300, -1e300] {
                var c = VADConfiguration()
                c[name] = v
                #expect {
                    try c.validate()
                } throws: { ($0 as? AudioPipelineError)?.message.contains(name) == true }
            }
        }
    }

    /// One table: every name reaches its own parameter.
    @Test func theNameTableCoversEveryParameterOnce() {
        #expect(
            VADConfiguration.parameterNames == [
                "frame_ms", "floor_quantile", "floor_window_s", "enter_db", "exit_db", "sustained_enter_db",
                "absolute_dbfs", "min_speech_ms", "hangover_ms", "preroll_ms", "echo_delay_min_ms", "echo_delay_max_ms",
                "echo_margin_db",
                "echo_margin_min_db", "echo_gain_window_s", "initial_echo_gain_db", "reference_active_dbfs",
                "echo_rt60_ms",
                "echo_delay_tau_s", "echo_onset_guard_ms", "talker_gate_db", "talker_window_s",
                "talker_onset_gate_db", "exit_average_frames", "transient_ms", "transient_drop_db", "steady_noise_ms",
                "onset_drop_db", "onset_jump_db",
            ])
        var c = VADConfiguration()
        for (k, name) in VADConfiguration.parameterNames.enumerated() { c[name] = Double(1000 + k) }
        for (k, name) in VADConfiguration.parameterNames.enumerated() { #expect(c[name] == Double(1000 + k)) }
        #expect(c.frameMilliseconds == 1000 && c.exitAverageFrames == 1023 && c.talkerGate == 1020)
        #expect(
            c.echoReverbMilliseconds == 1017 && c.echoDelaySmoothingSeconds == 1018
                && c.echoOnsetGuardMilliseconds == 1019)
        #expect(
            c.transientMilliseconds == 1024 && c.transientDrop == 1025 && c.sustainedEnterThreshold == 1005
                && c.echoMargin == 1012 && c.echoMarginMinimum == 1013 && c.talkerOnsetGate == 1022)
        #expect(c.steadyNoiseMilliseconds == 1026 && c.onsetDrop == 1027 && c.onsetJump == 1028)
        #expect(c["nope"] == nil)
        var d = VADConfiguration()
        d["nope"] = 3
        d["enter_db"] = nil
        #expect(d == VADConfiguration())
    }
}
