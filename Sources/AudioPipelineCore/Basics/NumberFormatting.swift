// TODO(workflows): remove once callers move. A general number printer (a whole number without
// ".0", else Swift's shortest round-trip form); it used to live in EnergyVAD.swift. It belongs to
// report writing (Workflows), which will use Codable and its own formatting.

/// `10` for 10.0, `0.25` for 0.25: how reports and `VADConfiguration.json` print numbers.
public func formatNumber(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
}
