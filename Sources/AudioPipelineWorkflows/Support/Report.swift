import AudioPipelineCore
import Foundation

/// What every job returns: a value a Swift caller reads and the CLI prints, as text or with `--json`.
/// The JSON keys are the ones `audiopipe --json` has always printed, so scripts keep working.
public protocol WorkflowReport: Encodable, Sendable {
    /// What was wrong with the input but did not stop the job (printed as warnings on stderr).
    var warnings: [String] { get }
}

extension WorkflowReport {
    public var warnings: [String] { [] }
}

/// The JSON of reports.
public enum ReportJSON {
    /// The one JSON encoding of reports: pretty, sorted keys, slashes unescaped. Reports keep
    /// non-finite numbers out (`FiniteOrNull` writes them as `null`); one that slips through is an
    /// error naming it, not a crash.
    public static func encode(_ value: some Encodable) throws(AudioPipelineError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw AudioPipelineError(.invalidData, "cannot encode the report as JSON: \(error)")
        }
    }
}

/// A Double that encodes as JSON `null` when it is not finite (a metric of an empty set is NaN).
@propertyWrapper
public struct FiniteOrNull: Codable, Sendable, Hashable {
    /// The value (NaN and ±inf are written as `null`).
    public var wrappedValue: Double
    /// Wraps `wrappedValue`.
    public init(wrappedValue: Double) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        wrappedValue = c.decodeNil() ? .nan : try c.decode(Double.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if wrappedValue.isFinite { try c.encode(wrappedValue) } else { try c.encodeNil() }
    }
}

/// An optional that is written as JSON `null` when absent (the reports' keys are always present, as
/// `audiopipe --json` has always printed them); a missing key decodes as nil.
@propertyWrapper
public struct NullWhenAbsent<Value: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    /// The value (nil is written as `null`).
    public var wrappedValue: Value?
    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        wrappedValue = c.decodeNil() ? nil : try c.decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let wrappedValue { try c.encode(wrappedValue) } else { try c.encodeNil() }
    }
}

/// A count a report gained in a later version: a report written before it (without the key)
/// decodes as 0, so an older audiopipe's JSON still reads into today's report.
@propertyWrapper
public struct ZeroWhenAbsent: Codable, Sendable, Hashable {
    /// The count.
    public var wrappedValue: Int
    /// Wraps `wrappedValue`.
    public init(wrappedValue: Int) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        wrappedValue = try decoder.singleValueContainer().decode(Int.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(wrappedValue)
    }
}

extension KeyedDecodingContainer {
    public func decode(_ type: ZeroWhenAbsent.Type, forKey key: Key) throws -> ZeroWhenAbsent {
        ZeroWhenAbsent(wrappedValue: try decodeIfPresent(Int.self, forKey: key) ?? 0)
    }

    public func decode<V>(_ type: NullWhenAbsent<V>.Type, forKey key: Key) throws -> NullWhenAbsent<V> {
        NullWhenAbsent(wrappedValue: try decodeIfPresent(V.self, forKey: key))
    }

    public func decode(_ type: FiniteOrNull.Type, forKey key: Key) throws -> FiniteOrNull {
        FiniteOrNull(wrappedValue: try decodeIfPresent(Double.self, forKey: key) ?? .nan)
    }
}

/// A coding key made from any string (JSON objects whose keys are data: parameter names, metrics).
public struct JSONKey: CodingKey, Hashable, Sendable {
    public var stringValue: String
    public var intValue: Int? { nil }
    /// The key `name`.
    public init(_ name: String) { stringValue = name }
    public init(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}
