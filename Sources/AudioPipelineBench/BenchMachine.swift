import AudioPipelineCore
import Foundation

/// The machine a report was measured on.
public struct BenchMachine: Codable, Sendable {
    /// The CPU's model name.
    public var cpu: String
    /// Cores this process may use.
    public var cores: Int
    /// `x86_64` or `arm64`.
    public var architecture: String
    /// The vector code actually taken: the resampler's FIR kernels and base64's.
    public var vectorPath: String
    /// The operating system and kernel.
    public var os: String
    /// How this code was built (`release` or `debug`).
    public var build: String

    /// The machine this process runs on, with the vector path `kernel` takes here.
    public static func current(kernel: VectorKernel = .best) -> BenchMachine {
        BenchMachine(
            cpu: cpuModel(), cores: ProcessInfo.processInfo.activeProcessorCount, architecture: architecture,
            vectorPath: vectorPath(kernel), os: osName(), build: build)
    }

    #if arch(x86_64)
        static let architecture = "x86_64"
    #elseif arch(arm64)
        static let architecture = "arm64"
    #else
        static let architecture = "other"
    #endif

    #if DEBUG
        static let build = "debug"
    #else
        static let build = "release"
    #endif

    /// The vector code taken, as `audiopipe --version` names it ("AVX2+FMA (resampler), SSSE3
    /// (base64)"); with `.portable` the resampler runs its Swift kernels.
    public static func vectorPath(_ kernel: VectorKernel) -> String { VectorKernel.description(resampler: kernel) }

    static func cpuModel() -> String {
        #if os(Linux)
            if let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) {
                for line in text.split(separator: "\n") {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2 else { continue }
                    let key = parts[0].trimmingCharacters(in: .whitespaces)
                    if key == "model name" || key == "Model" || key == "Hardware" {
                        return parts[1].trimmingCharacters(in: .whitespaces)
                    }
                }
            }
        #endif
        return "unknown (\(architecture))"
    }

    static func osName() -> String {
        #if os(Linux)
            var u = utsname()
            uname(&u)
            func text<T>(_ t: T) -> String {
                withUnsafeBytes(of: t) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            }
            return "\(text(u.sysname)) \(text(u.release))"
        #else
            return ProcessInfo.processInfo.operatingSystemVersionString
        #endif
    }
}
