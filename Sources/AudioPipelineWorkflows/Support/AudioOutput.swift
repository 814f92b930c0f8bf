import AudioPipelineAdapters
import AudioPipelineCore
import Foundation

/// An audio file written with the toolkit's rule that nothing is lost (`AtomicOutput`): a regular
/// file appears only complete, through a temporary file renamed by `commit()`; `-` and special files
/// are written in place. WAV on a standard output that is a file gets a proper header; on a pipe, a
/// streaming one.
public final class AudioOutput {
    /// The file the audio goes to (its temporary until `commit()`).
    public let output: AtomicOutput
    /// libsndfile's writer on it.
    public let writer: AudioFileWriter
    /// The target path.
    public var path: String { output.path }

    /// An audio output at `path` (`-`: standard output) of the given type, encoding and format.
    /// - Throws: `AudioPipelineError` naming the path when it cannot be created.
    public init(path: String, type: OutputFileType, encoding: SampleEncoding, format: StreamFormat)
        throws(AudioPipelineError)
    {
        output = try AtomicOutput(path: path)
        do {
            writer = try AudioFileWriter(
                fileDescriptor: output.fileDescriptor, seekable: output.isSeekable, name: path, type: type,
                encoding: encoding, format: format)
        } catch {
            output.discard()
            throw error
        }
    }

    /// Writes interleaved PCM16 samples.
    /// - Throws: `AudioPipelineError` naming the path (a full disk), or `brokenPipe` when the reader went away.
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioPipelineError) {
        do { try writer.write(samples) } catch { throw Self.brokenPipe(error) }
        output.startWriteback()
    }

    /// Writes interleaved Float32 samples (quantised per the encoding).
    /// - Throws: as the PCM16 `write`.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioPipelineError) {
        do { try writer.write(samples) } catch { throw Self.brokenPipe(error) }
        output.startWriteback()
    }

    /// A write that failed because the reader of a pipe went away is not an I/O error to report.
    static func brokenPipe(_ error: AudioPipelineError) -> AudioPipelineError {
        errno == EPIPE ? AudioPipelineError(.brokenPipe, error.message) : error
    }

    private var contentsFinished = false

    /// Finishes the file's contents (the header too) without putting it in place: a job with more
    /// than one output finishes them all before it publishes any (`commit`), so a failure leaves none.
    public func finishContents() throws(AudioPipelineError) {
        guard !contentsFinished else { return }
        contentsFinished = true
        do {
            try writer.commit()
        } catch {
            output.discard()
            throw error
        }
    }

    /// Finishes the file and puts it in place.
    public func commit() throws(AudioPipelineError) {
        try finishContents()
        try output.commit()
    }
}
