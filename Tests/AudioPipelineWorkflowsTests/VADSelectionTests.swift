import AudioPipelineCore
import Foundation
import Testing
import _AudioPipelineTestSupport

@testable import AudioPipelineWorkflows

/// A file's counts: `tp` of 100 speech frames found, `fp` of 100 non-speech frames called speech.
private func file(tp: Int, fp: Int, falseTriggers: Int = 0) -> VADScoring.Counts {
    var c = VADScoring.Counts()
    c.tp = tp
    c.fn = 100 - tp
    c.fp = fp
    c.tn = 100 - fp
    c.duration = 60
    c.falseTriggers = falseTriggers
    return c
}

private func outcome(_ enter: Double, _ files: [VADScoring.Counts]) -> VADSweep.Outcome {
    var c = VADConfiguration()
    c.enterThreshold = enter
    return VADSweep.Outcome(
        setting: .init(configuration: c, values: ["enter_db": enter]), overall: files.reduce(.init(), +),
        perFile: files)
}

@Suite struct VADSelectionTests {
    static let names = (1...6).map { "f\($0)" }

    /// A setting that is better on every file beats the baseline beyond the folds' spread: it is
    /// adopted, and its cross-validated figures are those of the choices made fold by fold.
    @Test func aConsistentGainIsAdopted() {
        let baseline = outcome(10, Array(repeating: file(tp: 80, fp: 10), count: 6))
        let better = outcome(8, Array(repeating: file(tp: 92, fp: 10), count: 6))
        let s = VADSelection(
            outcomes: [baseline, better], baseline: 0, folds: VADFolds(files: Self.names), objective: .f1,
            constraints: VADConstraints(), fileNames: Self.names)
        #expect(s.chosen == 1 && s.adopt && s.qualified == 2)
        #expect(s.foldDifferences.count == 6 && (s.spread ?? 1) < 1e-9)
        let cv = VADScoring.metrics(s.crossValidated!)
        #expect(abs(cv.f1 - better.metrics.f1) < 1e-12, "every fold chose the better one")
    }

    /// Best on all files, but only because of one file: fold by fold it wins some and loses more,
    /// and the baseline is kept.
    @Test func aGainOfOneFileKeepsTheBaseline() {
        let baseline = outcome(10, Array(repeating: file(tp: 85, fp: 10), count: 6))
        var files = Array(repeating: file(tp: 83, fp: 10), count: 6)
        files[0] = file(tp: 100, fp: 0)
        let lucky = outcome(6, files)
        #expect(lucky.metrics.f1 > baseline.metrics.f1)
        let s = VADSelection(
            outcomes: [baseline, lucky], baseline: 0, folds: VADFolds(files: Self.names), objective: .f1,
            constraints: VADConstraints(), fileNames: Self.names)
        #expect(s.chosen == 1 && !s.adopt, "\(s.reason)")
        #expect(s.reason.contains("the baseline is kept"))
    }

    /// The constraints decide what may be chosen; none met: no choice, the closest named.
    @Test func constraintsAndTheClosest() {
        let noisy = outcome(6, Array(repeating: file(tp: 99, fp: 40), count: 6))
        let quiet = outcome(10, Array(repeating: file(tp: 70, fp: 12), count: 6))
        let s = VADSelection(
            outcomes: [quiet, noisy], baseline: 0, folds: VADFolds(files: Self.names), objective: .f1,
            constraints: VADConstraints(), fileNames: Self.names)
        #expect(s.chosen == 0 && s.qualified == 1, "false alarm 40 % is over 15 %")
        var strict = VADConstraints()
        strict.maxFalseAlarm = 0.05
        let none = VADSelection(
            outcomes: [quiet, noisy], baseline: 0, folds: VADFolds(files: Self.names), objective: .f1,
            constraints: strict, fileNames: Self.names)
        #expect(none.chosen == nil && !none.adopt && none.closest == [0, 1])
        #expect(strict.broken(noisy.metrics) == ["false alarm 40.0 % > 5 %"])
        // False triggers and the fresh-onset latency are limits too.
        var triggers = VADConstraints()
        triggers.maxFalseTriggersPerMinute = 0.5
        #expect(triggers.broken(outcome(8, [file(tp: 90, fp: 1, falseTriggers: 3)]).metrics).count == 1)
        // A baseline over the limits gives way to a setting within them, whatever the folds say.
        let over = VADSelection(
            outcomes: [noisy, quiet], baseline: 0, folds: VADFolds(files: Self.names), objective: .f1,
            constraints: VADConstraints(), fileNames: Self.names)
        #expect(over.chosen == 1 && over.adopt && over.reason.contains("the baseline breaks the constraints"))
    }

    /// Leave one file out up to 10 files; beyond, 10 folds; a group never on both sides.
    @Test func foldsByFileAndByGroup() {
        #expect(VADFolds(files: Self.names).folds == (0..<6).map { [$0] })
        let many = (0..<25).map { String(format: "f%02d", $0) }
        let folds = VADFolds(files: many).folds
        #expect(folds.count == 10 && folds.flatMap { $0 }.sorted() == Array(0..<25))
        let talkers = ["ann", "bob", "ann", "cy", "bob", "ann"]
        let grouped = VADFolds(files: Self.names, groups: talkers).folds
        #expect(
            grouped.count == 3 && grouped.contains([0, 2, 5]) && grouped.contains([1, 4]) && grouped.contains([3]))
    }

    /// The grid: `including` adds the baseline's value to each axis once; an edge choice is warned.
    @Test func theBaselineIsInTheGridAndEdgesAreWarned() {
        let grid = VADGrid(axes: [("enter_db", [8, 12]), ("exit_db", [1.5, 3])]).including(VADConfiguration())
        #expect(grid.axes.map(\.values) == [[8, 10, 12], [1.5, 3]])
        var c = VADConfiguration()
        c.enterThreshold = 8
        #expect(
            VADTuner.edgeWarnings(grid, VADSweep.Setting(configuration: c, values: [:])) == [
                "enter_db chose the lowest value swept, 8: extend the grid below",
                "exit_db chose the lowest value swept, 1.5: extend the grid below",
            ])
    }
}
