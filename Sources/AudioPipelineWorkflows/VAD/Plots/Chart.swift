import Foundation

/// A scatter/line chart as SVG: series of (x, y) points and an optional marked point.
public struct Chart {
    /// One series of points.
    public struct Series {
        /// Its name in the legend.
        public var label: String
        /// Its colour (any SVG colour).
        public var color: String
        /// The (x, y) points.
        public var points: [(Double, Double)]
        /// Join the points (sorted by x) with a line.
        public var line: Bool
        /// A series of `points`, joined by a line when `line`.
        public init(label: String, color: String, points: [(Double, Double)], line: Bool) {
            self.label = label
            self.color = color
            self.points = points
            self.line = line
        }
    }

    /// The chart's title.
    public var title: String
    /// The x axis's title (with its unit).
    public var xLabel: String
    /// The y axis's title (with its unit).
    public var yLabel: String
    /// The series, drawn in order.
    public var series: [Series]
    /// A point to mark and label (the chosen setting), if any.
    public var mark: (x: Double, y: Double, label: String)?

    /// A chart of `series`.
    public init(
        title: String, xLabel: String, yLabel: String, series: [Series], mark: (x: Double, y: Double, label: String)?
    ) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.series = series
        self.mark = mark
    }

    static let width = 760.0, height = 520.0, left = 70.0, right = 30.0, top = 50.0, bottom = 70.0

    /// The chart as an SVG document: axes with ticks, the series, a legend, the mark.
    public var svg: String {
        let plotW = Self.width - Self.left - Self.right, plotH = Self.height - Self.top - Self.bottom
        let all = series.flatMap(\.points)
        func padded(_ lo: Double, _ hi: Double) -> ClosedRange<Double> {
            let pad = max((hi - lo) * 0.05, 1e-3)
            return (lo - pad)...(hi + pad)
        }
        let xr = padded(all.map(\.0).min() ?? 0, all.map(\.0).max() ?? 1)
        let yr = padded(all.map(\.1).min() ?? 0, all.map(\.1).max() ?? 1)
        let xs = max(xr.upperBound - xr.lowerBound, 1e-9), ys = max(yr.upperBound - yr.lowerBound, 1e-9)
        func px(_ v: Double) -> Double { Self.left + plotW * (v - xr.lowerBound) / xs }
        func py(_ v: Double) -> Double { Self.top + plotH * (1 - (v - yr.lowerBound) / ys) }
        var s = SVG(width: Self.width, height: Self.height)
        s.text(title, x: Self.left, y: 28, size: 16, bold: true)
        s.rect(x: Self.left, y: Self.top, width: plotW, height: plotH, stroke: "#ccc")
        let xStep = Ticks.step(xs, target: 8), yStep = Ticks.step(ys, target: 8)
        var t = (xr.lowerBound / xStep).rounded(.up) * xStep
        while t <= xr.upperBound + 1e-9 {
            s.line(x1: px(t), y1: Self.top, x2: px(t), y2: Self.top + plotH, stroke: "#f0f0f0")
            s.text(Ticks.label(t, step: xStep), x: px(t), y: Self.top + plotH + 18, anchor: .middle, fill: "#666")
            t += xStep
        }
        t = (yr.lowerBound / yStep).rounded(.up) * yStep
        while t <= yr.upperBound + 1e-9 {
            s.line(x1: Self.left, y1: py(t), x2: Self.left + plotW, y2: py(t), stroke: "#f0f0f0")
            s.text(Ticks.label(t, step: yStep), x: Self.left - 6, y: py(t) + 4, anchor: .end, fill: "#666")
            t += yStep
        }
        s.text(xLabel, x: Self.left + plotW / 2, y: Self.height - 30, anchor: .middle, fill: "#444")
        s.text(yLabel, x: 18, y: Self.top + plotH / 2, anchor: .middle, fill: "#444", rotate: true)
        var ly = Self.top + 14
        for series in series {
            let pts = series.points.sorted { $0.0 < $1.0 }
            if series.line {
                var d = PathData()
                for (i, p) in pts.enumerated() {
                    if i == 0 { d.move(px(p.0), py(p.1)) } else { d.line(px(p.0), py(p.1)) }
                }
                s.path(d.d, stroke: series.color, width: 2)
            }
            for p in pts {
                s.circle(x: px(p.0), y: py(p.1), r: series.line ? 3 : 2, fill: series.color, opacity: "0.6")
            }
            s.rect(x: Self.left + plotW - 210, y: ly - 9, width: 10, height: 10, fill: series.color)
            s.text(series.label, x: Self.left + plotW - 195, y: ly)
            ly += 16
        }
        if let mark {
            s.circle(x: px(mark.x), y: py(mark.y), r: 8, fill: "none", stroke: "#d62728", strokeWidth: "2.5")
            s.text(mark.label, x: px(mark.x) + 12, y: py(mark.y) - 10, fill: "#d62728", bold: true)
        }
        return s.document
    }
}
