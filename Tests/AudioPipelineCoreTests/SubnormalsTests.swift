import Testing

@testable import AudioPipelineCore

/// `Float.leastNormalMagnitude × scale`, computed at run time (not folded by the compiler).
@inline(never)
private func scaledLeastNormal(_ scale: Float) -> Float { Float.leastNormalMagnitude * scale }

@Suite struct SubnormalsTests {
    @Test func aSubnormalResultIsZeroInsideAndTheModeComesBackAfter() {
        #expect(scaledLeastNormal(0.5) == Float.leastNormalMagnitude / 2)  // this thread keeps subnormals
        let inside = Subnormals.flushed { scaledLeastNormal(0.5) }
        #if arch(x86_64) || arch(arm64)
            #expect(inside == 0)
        #endif
        #expect(Subnormals.flushed { scaledLeastNormal(2) } == 2 * Float.leastNormalMagnitude)
        #expect(scaledLeastNormal(0.5) == Float.leastNormalMagnitude / 2)
    }

    @Test func theModeComesBackWhenTheBodyThrows() {
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try Subnormals.flushed { () throws(Stop) -> Void in throw Stop() }
        }
        #expect(scaledLeastNormal(0.5) == Float.leastNormalMagnitude / 2)
    }
}
