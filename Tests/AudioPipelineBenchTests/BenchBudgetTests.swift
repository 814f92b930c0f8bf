import AudioPipelineBench
import Testing

@Suite struct BenchBudgetTests {
    @Test func placeholder() throws {
        #expect(try BenchBudget.parse("mic.p99<1ms").count == 1)
    }
}
