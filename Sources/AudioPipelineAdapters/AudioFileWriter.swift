import AudioPipelineCore
import CSndFile
import Foundation

/// A streaming writer of WAV (PCM16 or float32), FLAC (PCM16) or raw (little-endian PCM16 or
/// float32) through libsndfile, to a path or to an open file descriptor.
///
/// This type only writes; the rule that a failed job leaves nothing behind (a temporary file beside
/// the target, renamed when complete) belongs to the caller — `AudioOutput` in the workflows library
/// applies it to every file `audiopipe` writes. WAV on a descriptor that cannot seek (a pipe) gets a
/// streaming header whose sizes say "unknown" (as sox writes it); FLAC needs a seekable output.
public final class AudioFileWriter {
    /// Where it writes (the path, or a name for a descriptor).
    public let path: String
    /// WAV, FLAC or raw.
    public let type: OutputFileType
    /// PCM16 or float32.
    public let encoding: SampleEncoding
    /// Rate and channels of what is written.
    public let format: StreamFormat
    private var handle: OpaquePointer?
    /// The descriptor this writer opened itself (the path initialiser), closed after libsndfile's handle.
    private var ownedDescriptor: Int32?
    /// Frames written so far (those still in the PCM16 staging buffer included).
    public private(set) var framesWritten = 0
    /// PCM16 samples gathered into writes of `stagingSamples` on a seekable output (empty on a
    /// pipe, which gets every block as it comes): a file written 43 KB at a time (a 48→16 kHz
    /// convert's blocks) cost ext4 twice the system time of 256 KB writes here (58 MB: 28.8 against
    /// 14.4 ms of CPU time, `dd` with either block size).
    private let staging: UnsafeMutableBufferPointer<Int16>
    private var staged = 0
    /// 256 KB of PCM16.
    static let stagingSamples = 1 << 17

    /// Writes the file at `path` ("-": standard output).
    ///
    /// - Throws: `invalidConfiguration` for an encoding the type cannot hold (FLAC float32);
    ///   `outputFailed` when the target directory is missing or the file cannot be created.
    public convenience init(path: String, type: OutputFileType, encoding: SampleEncoding, format: StreamFormat)
        throws(AudioPipelineError)
    {
        if path == "-" {
            let seekable = lseek(STDOUT_FILENO, 0, SEEK_CUR) >= 0
            try self.init(
                fileDescriptor: STDOUT_FILENO, seekable: seekable, name: "-", type: type, encoding: encoding,
                format: format)
            return
        }
        try Self.check(type: type, encoding: encoding, format: format, name: path)
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw AudioPipelineError(.outputFailed, "\(path): directory \(dir) does not exist")
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            throw AudioPipelineError(.outputFailed, "\(path): cannot create: \(String(cString: strerror(errno)))")
        }
        do {
            try self.init(
                fileDescriptor: fd, seekable: true, name: path, type: type, encoding: encoding, format: format,
                owns: true)
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
    }

    /// Writes to an open descriptor (not closed here unless `owns`). `seekable`: whether libsndfile may
    /// seek back to finish the header; on a descriptor that cannot, WAV gets a streaming header and
    /// FLAC is refused. `name` is used in messages ("-" reads as "stdout").
    public init(
        fileDescriptor fd: Int32, seekable: Bool, name: String, type: OutputFileType, encoding: SampleEncoding,
        format: StreamFormat, owns: Bool = false
    ) throws(AudioPipelineError) {
        let display = name == "-" ? "stdout" : name
        var info = try Self.check(type: type, encoding: encoding, format: format, name: name)
        self.path = name
        self.type = type
        self.encoding = encoding
        self.format = format
        if !seekable {
            switch type {
            case .raw:
                break
            case .wav:
                // libsndfile cannot write WAV to a pipe (it seeks back to finish the header), so
                // write a streaming header whose sizes say "unknown" (0xFFFFFFFF, as sox does on a
                // pipe; readers then read to the end) and the samples as raw little-endian PCM.
                let header = Self.streamingWAVHeader(format: format, float: encoding == .float32)
                let written = header.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
                guard written == header.count else {
                    throw AudioPipelineError(
                        .ioFailure, "\(display): cannot write the WAV header: \(String(cString: strerror(errno)))")
                }
                info.format = Int32(SF_FORMAT_RAW) | encoding.sndfileSubtype | Int32(SF_ENDIAN_LITTLE)
            case .flac:
                throw AudioPipelineError(
                    .invalidConfiguration,
                    "\(display): FLAC cannot be written to a pipe (its header is finished by seeking back); "
                        + "write a file, or use --type wav or raw")
            }
        }
        let opened = SndFileOpen.open { sf_open_fd(fd, Int32(SFM_WRITE), &info, Int32(SF_FALSE)) }
        handle = opened.handle
        guard handle != nil else {
            let raw = opened.reason
            let reason = AudioFileReader.tidy(raw)
            // The file is open: a system error here is the header's write failing (a full disk,
            // /dev/full), an I/O error (74), not a file that cannot be created (73).
            if raw.hasPrefix("System error") {
                throw AudioPipelineError(.ioFailure, "\(display): cannot write the header: \(reason)")
            }
            throw AudioPipelineError(.outputFailed, "\(display): cannot create: \(reason)")
        }
        if owns { ownedDescriptor = fd }
        staging = .allocate(capacity: seekable && encoding == .pcm16 ? Self.stagingSamples : 0)
    }

    /// The libsndfile format for a type, encoding and format, or the reason it cannot be written.
    @discardableResult
    static func check(type: OutputFileType, encoding: SampleEncoding, format: StreamFormat, name: String)
        throws(AudioPipelineError) -> SF_INFO
    {
        let display = name == "-" ? "stdout" : name
        guard encoding == .pcm16 || encoding == .float32 else {
            throw AudioPipelineError(
                .invalidConfiguration, "\(display): writing \(encoding) is not supported (use pcm16 or float32)")
        }
        if type == .flac && encoding == .float32 {
            throw AudioPipelineError(
                .invalidConfiguration,
                "\(display): FLAC cannot hold float32 samples; use --encoding pcm16 or a .wav output")
        }
        var info = SF_INFO()
        info.samplerate = Int32(format.sampleRate.hz)
        info.channels = Int32(format.channels)
        info.format = type.sndfileType | encoding.sndfileSubtype
        if type == .raw { info.format |= Int32(SF_ENDIAN_LITTLE) }
        guard sf_format_check(&info) == SF_TRUE else {
            throw AudioPipelineError(
                .invalidConfiguration,
                "\(display): libsndfile cannot write \(type.rawValue) with \(encoding) at \(format)")
        }
        return info
    }

    deinit {
        // A writer dropped without `commit()` still writes what it was given, as before staging.
        if let handle, staged > 0, let base = staging.baseAddress {
            _ = sf_writef_short(handle, base, sf_count_t(staged / format.channels))
        }
        staging.deallocate()
        if let handle { sf_close(handle) }
        if let ownedDescriptor { close(ownedDescriptor) }
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

    /// Writes whole interleaved frames of 16-bit PCM (on a seekable output, gathered into large
    /// writes: the file is complete after `commit()`).
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioPipelineError) {
        let frames = samples.count / format.channels
        guard frames > 0, let base = samples.baseAddress else { return }
        let count = frames * format.channels
        // Blocks of half the staging buffer or more go straight out (a 24→48 kHz convert's are
        // 256 KB: copying them would only add a pass); smaller ones are gathered.
        if staging.count > 0 {
            if staged + count > staging.count || 2 * count >= staging.count { try flushStaging() }
            if 2 * count < staging.count {
                (staging.baseAddress! + staged).update(from: base, count: count)
                staged += count
                framesWritten += frames
                return
            }
        }
        errno = 0
        let n = Int(sf_writef_short(handle, base, sf_count_t(frames)))
        try check(written: n, of: frames)
    }

    /// Hands the staged PCM16 samples to libsndfile.
    private func flushStaging() throws(AudioPipelineError) {
        guard staged > 0, let base = staging.baseAddress else { return }
        let frames = staged / format.channels
        staged = 0
        framesWritten -= frames
        errno = 0
        let n = Int(sf_writef_short(handle, base, sf_count_t(frames)))
        try check(written: n, of: frames)
    }

    /// Writes whole interleaved frames of Float32 (converted by libsndfile if the file is PCM16).
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioPipelineError) {
        try flushStaging()
        let frames = samples.count / format.channels
        guard frames > 0, let base = samples.baseAddress else { return }
        errno = 0
        let n = Int(sf_writef_float(handle, base, sf_count_t(frames)))
        try check(written: n, of: frames)
    }

    private func check(written n: Int, of frames: Int) throws(AudioPipelineError) {
        framesWritten += n
        if n != frames {
            // The system's reason when the write itself failed (set just before the call): libsndfile
            // reports a FLAC encoder that cannot write as "problem with initialization of the flac
            // decoder", which sends a user with a full disk looking at their input.
            let system = errno
            var reason = AudioFileReader.tidy(String(cString: sf_strerror(handle)))
            if system != 0 && !reason.contains(String(cString: strerror(system))) {
                reason = "\(String(cString: strerror(system))) (libsndfile: \(reason))"
            }
            throw AudioPipelineError(.ioFailure, "\(path): write failed after \(framesWritten) frames: \(reason)")
        }
    }

    /// Finishes the file (header sizes, FLAC's last frame) and closes it. Call once, after the last write.
    public func commit() throws(AudioPipelineError) {
        guard handle != nil else { return }
        try flushStaging()
        guard let h = handle else { return }
        handle = nil
        // libsndfile starts the FLAC encoder, which writes the stream's header, at the first write:
        // a file of no frames was left empty (0 bytes, no FLAC). Writing the header now makes it a
        // valid FLAC of no audio.
        if type == .flac && framesWritten == 0 { sf_command(h, Int32(SFC_UPDATE_HEADER_NOW), nil, 0) }
        let rc = sf_close(h)
        if let fd = ownedDescriptor {
            ownedDescriptor = nil
            guard close(fd) == 0 else {
                throw AudioPipelineError(.ioFailure, "\(path): closing failed: \(String(cString: strerror(errno)))")
            }
        }
        guard rc == 0 else {
            throw AudioPipelineError(.ioFailure, "\(path): closing failed: \(String(cString: sf_error_number(rc)))")
        }
    }
}
