import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation
import Testing
import _AudioPipelineTestSupport

/// `vad tune`'s corpus and batch `vad detect` find a recording's far-end reference by one rule.
@Suite struct ReferenceNamingTests {
    func files(_ dir: TempDir, _ names: [String]) throws {
        for name in names { try "x".write(toFile: dir.file(name), atomically: true, encoding: .utf8) }
    }

    @Test func aRecordingOfAnyAudioExtensionHasItsReferenceByTheSuffix() throws {
        let dir = TempDir()
        try files(dir, ["a.wav", "a.ref.wav", "b.flac", "b.ref.wav", "c.wav", "d.REF.WAV", "d.wav"])
        let naming = try ReferenceNaming()
        #expect(naming.reference(ofRecording: dir.file("a.wav")) == dir.file("a.ref.wav"))
        #expect(naming.reference(ofRecording: dir.file("b.flac")) == dir.file("b.ref.wav"))
        #expect(naming.reference(ofRecording: dir.file("c.wav")) == nil, "none beside it")
        #expect(naming.reference(ofRecording: dir.file("a.ref.wav")) == nil, "a reference has none")
        #expect(naming.isReference(dir.file("d.REF.WAV")) && !naming.isReference(dir.file("d.wav")))
        let audio = BatchSelection.audioExtensions
        #expect(naming.recording(ofReference: dir.file("a.ref.wav"), extensions: audio) == dir.file("a.wav"))
        #expect(naming.recording(ofReference: dir.file("b.ref.wav"), extensions: audio) == dir.file("b.flac"))
        #expect(naming.recording(ofReference: dir.file("d.REF.WAV"), extensions: audio) == dir.file("d.wav"))
        #expect(naming.recording(ofReference: dir.file("a.wav"), extensions: audio) == nil, "not a reference")
    }

    @Test func anotherSuffixPairsOtherNamesAndAnEmptyOneIsRefused() throws {
        let dir = TempDir()
        try files(dir, ["a.wav", "a-far.wav", "a.ref.wav"])
        let far = try ReferenceNaming(suffix: "-far.wav")
        #expect(far.reference(ofRecording: dir.file("a.wav")) == dir.file("a-far.wav"))
        #expect(!far.isReference(dir.file("a.ref.wav")))
        #expect(far.recording(ofReference: dir.file("a-far.wav"), extensions: ["wav"]) == dir.file("a.wav"))
        for bad in ["", "x/.wav"] {
            #expect(throws: AudioPipelineError.self) { try ReferenceNaming(suffix: bad) }
        }
    }

    /// A batch leaves out a reference that has its recording beside it, and keeps one that has none.
    @Test func aBatchTakesAReferenceAsAnInputOnlyWithoutItsRecording() throws {
        let dir = TempDir()
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        try files(dir, ["in/a.wav", "in/a.ref.wav", "in/lone.ref.wav"])
        var selection = BatchSelection()
        selection.paths = [dir.file("in")]
        #expect(try selection.collect().map(\.relativePath) == ["a.ref.wav", "a.wav", "lone.ref.wav"])
        selection.references = try ReferenceNaming()
        #expect(try selection.collect().map(\.relativePath) == ["a.wav", "lone.ref.wav"])
    }
}
