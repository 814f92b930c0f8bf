import Foundation

/// A tiny SVG 1.1 builder: elements with attributes, every attribute value and text escaped, numbers
/// with one decimal. No scripts; the result opens in any browser. (No maintained Swift SVG library
/// exists; this is the 60 lines the plots need.)
public struct SVG {
    /// The document so far, without the closing tag.
    public private(set) var body = ""
    /// The document's size, px.
    public let width: Double, height: Double

    /// A white document of `width` × `height` px, sans-serif at `fontSize`.
    public init(width: Double, height: Double, fontSize: Int = 12) {
        self.width = width
        self.height = height
        body =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
            + "viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"sans-serif\" font-size=\"\(fontSize)\">\n"
        element("rect", ["width": "100%", "height": "100%", "fill": "white"])
    }

    /// `<name attributes…/>` or `<name attributes…>text</name>`. Attributes keep the given order.
    public mutating func element(_ name: String, _ attributes: KeyValuePairs<String, String>, text: String? = nil) {
        body += "<" + name
        for (k, v) in attributes where !v.isEmpty { body += " \(k)=\"\(Self.escape(v))\"" }
        if let text { body += ">" + Self.escape(text) + "</\(name)>\n" } else { body += "/>\n" }
    }

    /// Opens a group (`<g …>`); `close()` ends it.
    public mutating func open(_ attributes: KeyValuePairs<String, String>) {
        body += "<g"
        for (k, v) in attributes where !v.isEmpty { body += " \(k)=\"\(Self.escape(v))\"" }
        body += ">\n"
    }

    /// Ends the group `open` began.
    public mutating func close() { body += "</g>\n" }

    /// A rectangle (`fill` "none" by default); `title` is its tooltip.
    public mutating func rect(
        x: Double, y: Double, width: Double, height: Double, fill: String = "none",
        stroke: String = "", opacity: String = "", title: String? = nil
    ) {
        if let title {
            body +=
                "<rect x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" width=\"\(Self.n(width))\" height=\"\(Self.n(height))\" "
                + "fill=\"\(Self.escape(fill))\"" + (stroke.isEmpty ? "" : " stroke=\"\(Self.escape(stroke))\"")
                + (opacity.isEmpty ? "" : " opacity=\"\(opacity)\"") + "><title>\(Self.escape(title))</title></rect>\n"
            return
        }
        element(
            "rect",
            [
                "x": Self.n(x), "y": Self.n(y), "width": Self.n(width), "height": Self.n(height),
                "fill": fill, "stroke": stroke, "opacity": opacity,
            ])
    }

    /// A straight line; `dash` is an SVG dash array.
    public mutating func line(
        x1: Double, y1: Double, x2: Double, y2: Double, stroke: String,
        width: Double = 1, dash: String = ""
    ) {
        element(
            "line",
            [
                "x1": Self.n(x1), "x2": Self.n(x2), "y1": Self.n(y1), "y2": Self.n(y2), "stroke": stroke,
                "stroke-width": width == 1 ? "" : Self.n(width), "stroke-dasharray": dash,
            ])
    }

    /// A path from `d` (build it with `PathData`).
    public mutating func path(_ d: String, stroke: String, width: Double = 1, dash: String = "", fill: String = "none")
    {
        guard !d.isEmpty else { return }
        element(
            "path", ["d": d, "stroke": stroke, "stroke-width": Self.n(width), "fill": fill, "stroke-dasharray": dash])
    }

    /// A circle at (`x`, `y`) of radius `r`.
    public mutating func circle(
        x: Double, y: Double, r: Double, fill: String, stroke: String = "",
        strokeWidth: String = "", opacity: String = ""
    ) {
        element(
            "circle",
            [
                "cx": Self.n(x), "cy": Self.n(y), "r": Self.n(r), "fill": fill, "stroke": stroke,
                "stroke-width": strokeWidth, "opacity": opacity,
            ])
    }

    /// Where a text sits relative to its x.
    public enum Anchor: String {
        /// The text starts at x.
        case start
        /// The text is centred on x.
        case middle
        /// The text ends at x.
        case end
    }

    /// A text at (`x`, `y`) (its baseline); `rotate` turns it 90° counter-clockwise about that point.
    public mutating func text(
        _ s: String, x: Double, y: Double, anchor: Anchor = .start, fill: String = "#333",
        size: Int? = nil, bold: Bool = false, rotate: Bool = false
    ) {
        let position: KeyValuePairs<String, String> =
            rotate
            ? ["transform": "translate(\(Self.n(x)),\(Self.n(y))) rotate(-90)"]
            : ["x": Self.n(x), "y": Self.n(y)]
        var attributes = position.map { ($0.key, $0.value) }
        attributes += [
            ("text-anchor", anchor == .start ? "" : anchor.rawValue), ("fill", fill),
            ("font-size", size.map(String.init) ?? ""), ("font-weight", bold ? "bold" : ""),
        ]
        body += "<text"
        for (k, v) in attributes where !v.isEmpty { body += " \(k)=\"\(Self.escape(v))\"" }
        body += ">" + Self.escape(s) + "</text>\n"
    }

    /// The finished document.
    public var document: String { body + "</svg>\n" }

    /// Escapes text and attribute values (`& < > " '`).
    public static func escape(_ s: String) -> String {
        guard s.contains(where: { "&<>\"'".contains($0) }) else { return s }
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    /// A coordinate with one decimal.
    public static func n(_ v: Double) -> String { String(format: "%.1f", v) }
}

/// Builds an SVG path's `d` attribute.
public struct PathData {
    /// The `d` attribute so far.
    public private(set) var d = ""
    /// An empty path.
    public init() {}
    /// Moves to (`x`, `y`).
    public mutating func move(_ x: Double, _ y: Double) { d += "M\(SVG.n(x)),\(SVG.n(y))" }
    /// A line to (`x`, `y`).
    public mutating func line(_ x: Double, _ y: Double) { d += "L\(SVG.n(x)),\(SVG.n(y))" }
    /// A vertical line to `y`.
    public mutating func vertical(_ y: Double) { d += "V\(SVG.n(y))" }
}

/// Numbers as people read them in reports: integers without a decimal point, others as Swift prints
/// them (shortest round-trip form).
public enum NumberText {
    /// `v` as an integer when it is one, else Swift's shortest form.
    public static func plain(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}
