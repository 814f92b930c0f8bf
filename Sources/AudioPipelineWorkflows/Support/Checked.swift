import AudioPipelineCore

/// The one gate between a number from outside (an option, a JSON field, a CSV cell, a label) and an
/// integer, a duration or an index: finite, in range, whole where it must be — or an error naming
/// the value, instead of a runtime trap in `Int(_:)`.
public enum Checked {
    /// `value` as an Int in `range`. `code`: `.invalidData` for a value read from a file (exit 65),
    /// `.invalidConfiguration` for an option (exit 64). `what` names it ("PATH:3: opcode").
    public static func integer(
        _ value: Double, in range: ClosedRange<Int>, _ what: @autoclosure () -> String,
        code: AudioPipelineError.Code = .invalidData, whole: Bool = true
    ) throws(AudioPipelineError) -> Int {
        // (Double(Int.max) rounds up to 2⁶³, which Int cannot hold: the last test keeps it out.)
        guard value.isFinite, value >= Double(range.lowerBound), value <= Double(range.upperBound), value < 0x1p63
        else {
            throw AudioPipelineError(
                code,
                "\(what()) \(describe(value)) is not \(whole ? "an integer " : "")in "
                    + "\(range.lowerBound)…\(range.upperBound)"
            )
        }
        guard !whole || value == value.rounded() else {
            throw AudioPipelineError(code, "\(what()) \(describe(value)) is not a whole number")
        }
        return Int(value.rounded())
    }

    /// `value` if it is finite and in `range`.
    public static func number(
        _ value: Double, in range: ClosedRange<Double>, _ what: @autoclosure () -> String,
        code: AudioPipelineError.Code = .invalidData
    ) throws(AudioPipelineError) -> Double {
        guard value.isFinite, range.contains(value) else {
            throw AudioPipelineError(
                code,
                "\(what()) \(describe(value)) is not a number in "
                    + "\(describe(range.lowerBound))…\(describe(range.upperBound))"
            )
        }
        return value
    }

    static func describe(_ v: Double) -> String {
        if v.isNaN { return "nan" }
        if v.isInfinite { return v > 0 ? "inf" : "-inf" }
        return v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}
