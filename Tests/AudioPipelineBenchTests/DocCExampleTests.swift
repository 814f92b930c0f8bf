import AudioPipelineBench
import AudioPipelineCore
import Testing

/// The code of the DocC article `BenchInAnAppTestTarget` (Sources/AudioPipelineBench/AudioPipelineBench.docc):
/// the region between `// docc-begin:` and `// docc-end` is the article's listing, word for word
/// (`DocCArticleTests` in AudioPipelineWorkflowsTests checks that).
@Suite struct BenchInAnAppTestTargetArticle {
    @Test func theHotPathFitsOnThisMachine() throws {
        // docc-begin: bench-test
        var settings = BenchSettings(profile: try .builtIn(.openaiRealtime), profileName: "openai-realtime")
        settings.deviceRate = 48_000
        settings.withReference = true
        settings.seconds = 2
        settings.peers = false
        let report = try BenchRun.run(settings)
        print(BenchText.render(report))

        let budgets = try BenchBudget.parse("mic.p99<1ms,speaker.p99<1ms")
        let failures = BenchBudget.failures(budgets, in: report)
        #expect(failures.isEmpty, "\(failures)")
        // docc-end
        // What the article says the report holds: the mic path's total and the stages under it.
        let mic = try #require(report.paths.mic.total)
        #expect(mic.p50 > 0 && mic.p99 >= mic.p50)
        #expect(report.paths.mic.stages.map(\.name).contains("vad"))
    }
}
