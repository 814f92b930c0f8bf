import AudioPipelineCore
import CSndFile
import Foundation

/// Sample encodings the toolkit names. Reading accepts anything libsndfile decodes (these names and
/// more); writing supports `pcm16` and `float32`.
public enum SampleEncoding: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Signed 8-bit PCM.
    case pcmS8 = "pcm8"
    /// Unsigned 8-bit PCM.
    case pcmU8 = "pcmu8"
    /// 16-bit PCM (what voice APIs take).
    case pcm16
    /// 24-bit PCM.
    case pcm24
    /// 32-bit PCM.
    case pcm32
    /// 32-bit float.
    case float32
    /// 64-bit float.
    case float64
    /// G.711 µ-law.
    case ulaw
    /// G.711 A-law.
    case alaw

    var sndfileSubtype: Int32 {
        switch self {
        case .pcmS8: return Int32(SF_FORMAT_PCM_S8)
        case .pcmU8: return Int32(SF_FORMAT_PCM_U8)
        case .pcm16: return Int32(SF_FORMAT_PCM_16)
        case .pcm24: return Int32(SF_FORMAT_PCM_24)
        case .pcm32: return Int32(SF_FORMAT_PCM_32)
        case .float32: return Int32(SF_FORMAT_FLOAT)
        case .float64: return Int32(SF_FORMAT_DOUBLE)
        case .ulaw: return Int32(SF_FORMAT_ULAW)
        case .alaw: return Int32(SF_FORMAT_ALAW)
        }
    }

    public var description: String { rawValue }

    /// Bytes one sample takes in a raw file.
    public var bytesPerSample: Int {
        switch self {
        case .pcmS8, .pcmU8, .ulaw, .alaw: return 1
        case .pcm16: return 2
        case .pcm24: return 3
        case .pcm32, .float32: return 4
        case .float64: return 8
        }
    }
}

/// File types `audiopipe` writes.
public enum OutputFileType: String, Sendable, CaseIterable {
    /// WAV (RIFF): PCM16 or float32.
    case wav
    /// FLAC: PCM16, lossless.
    case flac
    /// Headerless samples: PCM16 or float32, little-endian.
    case raw

    /// The type implied by a file name's extension, if any (`.wav`, `.flac`, `.raw`/`.pcm`/`.s16`/`.f32`).
    public init?(pathExtension path: String) {
        switch fileExtension(path) {
        case "wav", "wave": self = .wav
        case "flac": self = .flac
        case "raw", "pcm", "s16", "f32": self = .raw
        default: return nil
        }
    }

    var sndfileType: Int32 {
        switch self {
        case .wav: return Int32(SF_FORMAT_WAV)
        case .flac: return Int32(SF_FORMAT_FLAC)
        case .raw: return Int32(SF_FORMAT_RAW)
        }
    }
}

/// The explicit format of a headerless raw input (libsndfile cannot guess it).
public struct RawFormat: Sendable, Hashable {
    /// Rate and channels.
    public var format: StreamFormat
    /// How the samples are encoded.
    public var encoding: SampleEncoding
    /// A raw input of `format`, encoded as `encoding`.
    public init(format: StreamFormat, encoding: SampleEncoding) {
        self.format = format
        self.encoding = encoding
    }
}

/// What an opened audio file is.
public struct AudioFileDescription: Sendable, Hashable {
    /// Short container name: `wav`, `flac`, `ogg`, `aiff`, `caf`, `w64`, `rf64`, `raw` …
    public let container: String
    /// Short encoding name: `pcm16`, `pcm24`, `float32`, `vorbis` …
    public let encoding: String
    /// Rate and channels.
    public let format: StreamFormat
    /// Frames the header declares; `nil` when unknown (a pipe).
    public let frames: Int?
    /// The full libsndfile format word (type | subtype | endianness).
    public let sndfileFormat: Int32

    /// The declared length in seconds; nil when unknown.
    public var durationSeconds: Double? { frames.map { format.sampleRate.seconds(frames: $0) } }

    /// The largest positive sample value of the encoding relative to full scale, for clip
    /// detection: `(2^(b−1) − 1) / 2^(b−1)` for b-bit integer PCM, 1.0 for floats and codecs.
    public var positiveFullScale: Float {
        switch sndfileFormat & Int32(SF_FORMAT_SUBMASK) {
        case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8): return 127.0 / 128
        case Int32(SF_FORMAT_PCM_16): return 32767.0 / 32768
        case Int32(SF_FORMAT_PCM_24): return Float(8_388_607.0 / 8_388_608)
        default: return 1.0
        }
    }

    /// True when samples are 16-bit integers on disk, so they can be read without any float step.
    public var isPCM16: Bool { sndfileFormat & Int32(SF_FORMAT_SUBMASK) == Int32(SF_FORMAT_PCM_16) }

    static func containerName(_ format: Int32) -> String {
        switch Int(format & Int32(SF_FORMAT_TYPEMASK)) {
        case SF_FORMAT_WAV: return "wav"
        case SF_FORMAT_WAVEX: return "wav (extensible)"
        case SF_FORMAT_AIFF: return "aiff"
        case SF_FORMAT_AU: return "au"
        case SF_FORMAT_RAW: return "raw"
        case SF_FORMAT_W64: return "w64"
        case SF_FORMAT_FLAC: return "flac"
        case SF_FORMAT_OGG: return "ogg"
        case SF_FORMAT_CAF: return "caf"
        case SF_FORMAT_RF64: return "rf64"
        case SF_FORMAT_MPEG: return "mpeg"
        case SF_FORMAT_NIST: return "nist"
        case SF_FORMAT_VOC: return "voc"
        case SF_FORMAT_IRCAM: return "ircam"
        case SF_FORMAT_SD2: return "sd2"
        default: return formatInfoName(format & Int32(SF_FORMAT_TYPEMASK))
        }
    }

    static func encodingName(_ format: Int32) -> String {
        switch Int(format & Int32(SF_FORMAT_SUBMASK)) {
        case SF_FORMAT_PCM_S8: return "pcm8"
        case SF_FORMAT_PCM_U8: return "pcmu8"
        case SF_FORMAT_PCM_16: return "pcm16"
        case SF_FORMAT_PCM_24: return "pcm24"
        case SF_FORMAT_PCM_32: return "pcm32"
        case SF_FORMAT_FLOAT: return "float32"
        case SF_FORMAT_DOUBLE: return "float64"
        case SF_FORMAT_ULAW: return "ulaw"
        case SF_FORMAT_ALAW: return "alaw"
        case SF_FORMAT_VORBIS: return "vorbis"
        case SF_FORMAT_OPUS: return "opus"
        case SF_FORMAT_IMA_ADPCM: return "ima-adpcm"
        case SF_FORMAT_MS_ADPCM: return "ms-adpcm"
        case SF_FORMAT_GSM610: return "gsm610"
        case SF_FORMAT_ALAC_16: return "alac16"
        case SF_FORMAT_ALAC_24: return "alac24"
        case SF_FORMAT_MPEG_LAYER_III: return "mp3"
        default: return formatInfoName(format & Int32(SF_FORMAT_SUBMASK))
        }
    }

    /// libsndfile's own name for a format it knows and we do not list.
    private static func formatInfoName(_ code: Int32) -> String {
        var info = SF_FORMAT_INFO()
        info.format = code
        guard sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
            let name = info.name
        else { return "0x" + String(code, radix: 16) }
        return String(cString: name)
    }
}

/// The lower-cased extension of the last path component ("" when there is none).
public func fileExtension(_ path: String) -> String {
    guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "" }
    return path[path.index(after: dot)...].lowercased()
}

extension AudioFileDescription {
    /// The audio container a file starts like (its magic bytes), nil for anything else: what says a
    /// file has a header, before libsndfile reads it.
    public static func container(startingWith b: [UInt8]) -> String? {
        func starts(_ magic: String, at offset: Int = 0) -> Bool {
            b.count >= offset + magic.utf8.count && b[offset..<offset + magic.utf8.count].elementsEqual(magic.utf8)
        }
        if (starts("RIFF") || starts("RIFX") || starts("RF64")) && starts("WAVE", at: 8) { return "WAV" }
        if starts("fLaC") { return "FLAC" }
        if starts("OggS") { return "Ogg" }
        if starts("FORM") && (starts("AIFF", at: 8) || starts("AIFC", at: 8)) { return "AIFF" }
        if starts("caff") { return "CAF" }
        if starts("ID3") { return "MP3" }
        return nil
    }

    /// The container the file at `path` starts like (its first 12 bytes), nil for anything else or
    /// a file that cannot be read (the open that follows says why).
    public static func container(atPath path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 12)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, 12) }
        return n > 0 ? container(startingWith: Array(head[0..<n])) : nil
    }
}
