import AudioPipelineCore
import CSndFile
import Foundation

/// A streaming writer of WAV (PCM16 or float32), FLAC (PCM16) or raw (little-endian PCM16 or
/// float32) through libsndfile.
///
/// Nothing is lost: the data goes to a temporary file beside the target (`.NAME.tmp-PID-RANDOM`),
/// which `commit()` renames onto the target. Until then an existing target is untouched; if the
/// writer is dropped without `commit()` (an error part-way), the temporary file is deleted. `path`
/// "-" writes standard output directly (no temporary file).
public final class AudioFileWriter {
    public let path: String
    public let type: OutputFileType
    public let encoding: SampleEncoding
    public let format: StreamFormat
    private var handle: OpaquePointer?
    private let temporaryPath: String?
    private var committed = false
    public private(set) var framesWritten = 0

    /// - Throws: `invalidConfiguration` for an encoding the type cannot hold (FLAC float32);
    ///   `outputFailed` when the target directory is missing or not writable.
    public init(path: String, type: OutputFileType, encoding: SampleEncoding, format: StreamFormat)
        throws(AudioPipelineError)
    {
        guard encoding == .pcm16 || encoding == .float32 else {
            throw AudioPipelineError(.invalidConfiguration, "\(path): writing \(encoding) is not supported (use pcm16 or float32)")
        }
        if type == .flac && encoding == .float32 {
            throw AudioPipelineError(.invalidConfiguration, "\(path): FLAC cannot hold float32 samples; use --encoding pcm16 or a .wav output")
        }
        self.path = path
        self.type = type
        self.encoding = encoding
        self.format = format
        var info = SF_INFO()
        info.samplerate = Int32(format.sampleRate.hz)
        info.channels = Int32(format.channels)
        info.format = type.sndfileType | encoding.sndfileSubtype
        if type == .raw { info.format |= Int32(SF_ENDIAN_LITTLE) }
        guard sf_format_check(&info) == SF_TRUE else {
            throw AudioPipelineError(.invalidConfiguration, "\(path): libsndfile cannot write \(type.rawValue) with \(encoding) at \(format)")
        }
        if path == "-" {
            temporaryPath = nil
            switch type {
            case .raw:
                break
            case .wav:
                // libsndfile cannot write WAV to a pipe (it seeks back to finish the header), so
                // write a streaming header whose sizes say "unknown" (0xFFFFFFFF, as sox does on a
                // pipe; readers then read to the end) and the samples as raw little-endian PCM.
                var header = Self.streamingWAVHeader(format: format, float: encoding == .float32)
                let written = header.withUnsafeMutableBytes { Foundation.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
                guard written == header.count else {
                    throw AudioPipelineError(.ioFailure, "stdout: cannot write the WAV header: \(String(cString: strerror(errno)))")
                }
                info.format = Int32(SF_FORMAT_RAW) | encoding.sndfileSubtype | Int32(SF_ENDIAN_LITTLE)
            case .flac:
                throw AudioPipelineError(
                    .invalidConfiguration, "stdout: FLAC cannot be written to a pipe (its header is finished by seeking back); write a file, or use --type wav or raw")
            }
            handle = sf_open_fd(STDOUT_FILENO, Int32(SFM_WRITE), &info, 0)
        } else {
            let url = URL(fileURLWithPath: path)
            let dir = url.deletingLastPathComponent().path
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
                throw AudioPipelineError(.outputFailed, "\(path): directory \(dir) does not exist")
            }
            guard FileManager.default.isWritableFile(atPath: dir) else {
                throw AudioPipelineError(.outputFailed, "\(path): directory \(dir) is not writable")
            }
            let tmp = dir + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            temporaryPath = tmp
            handle = sf_open(tmp, Int32(SFM_WRITE), &info)
        }
        guard handle != nil else {
            let reason = AudioFileReader.tidy(String(cString: sf_strerror(nil)))
            if let temporaryPath { unlink(temporaryPath) }
            throw AudioPipelineError(.outputFailed, "\(path): cannot create: \(reason)")
        }
    }

    deinit {
        if let handle { sf_close(handle) }
        if !committed, let temporaryPath { unlink(temporaryPath) }
    }

    /// A 44-byte canonical WAV header for a stream of unknown length (RIFF and data sizes
    /// 0xFFFFFFFF). Format tag 1 (PCM) for 16-bit, 3 (IEEE float) for 32-bit float.
    static func streamingWAVHeader(format: StreamFormat, float: Bool) -> [UInt8] {
        var h: [UInt8] = []
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { h.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { h.append(contentsOf: $0) } }
        let bytesPerSample = float ? 4 : 2
        h.append(contentsOf: Array("RIFF".utf8)); u32(0xFFFF_FFFF); h.append(contentsOf: Array("WAVE".utf8))
        h.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(float ? 3 : 1); u16(UInt16(format.channels))
        u32(UInt32(format.sampleRate.hz)); u32(UInt32(format.sampleRate.hz * format.channels * bytesPerSample))
        u16(UInt16(format.channels * bytesPerSample)); u16(UInt16(bytesPerSample * 8))
        h.append(contentsOf: Array("data".utf8)); u32(0xFFFF_FFFF)
        return h
    }

    /// Makes libsndfile clip (instead of wrap) when *it* converts float to integer — only relevant
    /// when writing Float32 into a PCM16 file, which `audiopipe` itself never does (it converts
    /// with the core's converter); used to cross-check against libsndfile's conversion.
    public func setLibsndfileClipping(_ on: Bool) {
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, on ? Int32(SF_TRUE) : Int32(SF_FALSE))
    }

    /// Writes whole interleaved frames of 16-bit PCM.
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioPipelineError) {
        let frames = samples.count / format.channels
        guard frames > 0, let base = samples.baseAddress else { return }
        let n = Int(sf_writef_short(handle, base, sf_count_t(frames)))
        try check(written: n, of: frames)
    }

    /// Writes whole interleaved frames of Float32 (converted by libsndfile if the file is PCM16).
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioPipelineError) {
        let frames = samples.count / format.channels
        guard frames > 0, let base = samples.baseAddress else { return }
        let n = Int(sf_writef_float(handle, base, sf_count_t(frames)))
        try check(written: n, of: frames)
    }

    private func check(written n: Int, of frames: Int) throws(AudioPipelineError) {
        framesWritten += n
        if n != frames {
            let reason = AudioFileReader.tidy(String(cString: sf_strerror(handle)))
            throw AudioPipelineError(.ioFailure, "\(path): write failed after \(framesWritten) frames: \(reason)")
        }
    }

    /// Closes the file and moves it onto the target path. Call once, after the last write.
    public func commit() throws(AudioPipelineError) {
        guard let h = handle else { return }
        handle = nil
        let rc = sf_close(h)
        guard rc == 0 else {
            throw AudioPipelineError(.ioFailure, "\(path): closing failed: \(String(cString: sf_error_number(rc)))")
        }
        if let temporaryPath {
            guard rename(temporaryPath, path) == 0 else {
                let reason = String(cString: strerror(errno))
                throw AudioPipelineError(.outputFailed, "\(path): cannot move the finished file into place: \(reason)")
            }
        }
        committed = true
    }
}
