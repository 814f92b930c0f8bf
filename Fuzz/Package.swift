// swift-tools-version: 6.1
//
// libFuzzer targets for the parsers that meet untrusted input. A separate package (like
// Benchmarks/), so depending on AudioPipeline never builds them. Build and run with `make fuzz`
// (from the repository root): every Swift target, the library's included, is compiled with
// `-sanitize=fuzzer,address`, so coverage guides the fuzzer through our code and AddressSanitizer
// stops on any memory error; a Swift runtime trap is a crash too.

import PackageDescription

let fuzzers = ["FuzzJSON", "FuzzScanner", "FuzzBase64", "FuzzCapture", "FuzzTrace", "FuzzLabels", "FuzzTemplate"]

let package = Package(
    name: "AudioPipelineFuzz",
    dependencies: [.package(name: "AudioPipeline", path: "..")],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "AudioPipelineCore", package: "AudioPipeline"),
                .product(name: "AudioPipelineWorkflows", package: "AudioPipeline"),
            ])
    ]
        + fuzzers.map { name in
            .executableTarget(
                name: name,
                dependencies: [
                    "FuzzSupport",
                    .product(name: "AudioPipelineCore", package: "AudioPipeline"),
                    .product(name: "AudioPipelineWorkflows", package: "AudioPipeline"),
                ])
        }
)
