// The glue between libFuzzer and a Swift fuzz target: the target sets `Fuzz.body` and calls
// `Fuzz.run()`, which hands the command line to libFuzzer's driver.

import Foundation

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Fuzz.body(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

public enum Fuzz {
    /// What one input is put through; it must not crash (a failed check calls `fail`).
    nonisolated(unsafe) public static var body: (UnsafeRawBufferPointer) -> Void = { _ in }

    public static func run() -> Never {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzTestOneInput))
    }

    /// A property did not hold: stop with the message (libFuzzer saves the input).
    public static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data(("fuzz check failed: " + message + "\n").utf8))
        abort()
    }

    /// A scratch file holding `bytes` (for the readers that take a path), reused across inputs.
    public static func file(_ bytes: UnsafeRawBufferPointer, extension ext: String) -> String {
        let path = NSTemporaryDirectory() + "audiopipe-fuzz-\(getpid()).\(ext)"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if let base = bytes.baseAddress, bytes.count > 0 { _ = write(fd, base, bytes.count) }
        close(fd)
        return path
    }
}
