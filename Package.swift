// swift-tools-version: 6.1
//
// AudioPipeline: an offline audio-pipeline toolkit for voice-agent clients.
//
// Layers (arrows point down only):
//   audiopipe (CLI)  ->  AudioPipelineWorkflows  ->  AudioPipelineAdapters  ->  AudioPipelineCore
//   (parse, call one      (file-level jobs:          (links libsndfile,         (pure Swift DSP and
//    job, print)           Foundation allowed)         libsamplerate, FFTW)       wire formats)
//
// AudioPipelineCore is pure Swift (no C library, no platform #if) so an iOS/macOS app can depend on
// it alone. The benchmark suite lives in its own package under Benchmarks/ so that depending on this
// package never pulls in package-benchmark.

import PackageDescription

let package = Package(
    name: "AudioPipeline",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "AudioPipelineCore", targets: ["AudioPipelineCore"]),
        .library(name: "AudioPipelineAdapters", targets: ["AudioPipelineAdapters"]),
        .library(name: "AudioPipelineWorkflows", targets: ["AudioPipelineWorkflows"]),
        .library(name: "AudioPipelineBench", targets: ["AudioPipelineBench"]),
        .library(name: "AudioPipelineBenchAllocationCounting", targets: ["CAllocationInterposer"]),
        .executable(name: "audiopipe", targets: ["audiopipe"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-numerics.git", from: "1.0.0"),
    ],
    targets: [
        // MARK: Core: pure Swift DSP.
        // Vector kernels (base64 with SSSE3, FIR dot products with AVX2 + FMA), each compiled with a
        // function target attribute and chosen at run time: no compiler flags, no system library,
        // builds everywhere. The one piece of C under the core, because Swift cannot compile one
        // function for another instruction set than the rest of its module.
        .target(name: "CVectorKernels"),
        .target(
            name: "AudioPipelineCore",
            dependencies: ["CVectorKernels", .product(name: "RealModule", package: "swift-numerics")],
            exclude: ["README.md"]
        ),

        // MARK: Bench: the hot path measured in-process (audiopipe bench, or an app's on-device test
        // target), on the core alone. CAllocationCounter keeps per-thread allocation counts; the
        // interposer that feeds them (glibc) is linked only into programs that ask for it (the CLI,
        // the bench's tests; an app's Linux test target via the product), never into the library.
        .target(name: "CAllocationCounter"),
        .target(name: "CAllocationInterposer", dependencies: ["CAllocationCounter"]),
        .target(name: "AudioPipelineBench", dependencies: ["AudioPipelineCore", "CAllocationCounter"]),

        // MARK: System C libraries, each behind a module map and a one-line shim header.
        .systemLibrary(
            name: "CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"]), .brew(["libsndfile"])]
        ),
        .systemLibrary(
            name: "CSampleRate",
            pkgConfig: "samplerate",
            providers: [.apt(["libsamplerate0-dev"]), .brew(["libsamplerate"])]
        ),
        .systemLibrary(
            name: "CFFTW3f",
            pkgConfig: "fftw3f",
            providers: [.apt(["libfftw3-dev"]), .brew(["fftw"])]
        ),

        // MARK: Adapters: the only place that links C libraries.
        .target(
            name: "AudioPipelineAdapters",
            dependencies: ["AudioPipelineCore", "CSndFile", "CSampleRate", "CFFTW3f"],
            exclude: ["README.md"]
        ),

        // Starting a written file's writeback early (sync_file_range, a glibc declaration Swift does not see).
        .target(name: "CFileWriteback"),

        // MARK: Workflows: the file-level jobs (convert, frame, deframe, jitter replay, VAD detect and
        // tune, analysis) as a Swift API with typed options and Codable reports. The only layer with
        // Foundation file I/O, JSONDecoder and Dispatch.
        .target(
            name: "AudioPipelineWorkflows",
            dependencies: ["AudioPipelineCore", "AudioPipelineAdapters", "AudioPipelineBench", "CFileWriteback"],
            exclude: ["README.md"]
        ),

        // MARK: CLI: thin; parses options, calls one workflow, prints its report.
        .executableTarget(
            name: "audiopipe",
            dependencies: [
                "AudioPipelineCore",
                "AudioPipelineAdapters",
                "AudioPipelineWorkflows",
                "AudioPipelineBench",
                "CAllocationInterposer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["README.md"]
        ),

        // MARK: Test support shared by the test targets (not a product).
        .target(
            name: "_AudioPipelineTestSupport",
            dependencies: ["AudioPipelineCore", "AudioPipelineAdapters"]
        ),

        // MARK: Tests
        .testTarget(name: "AudioPipelineCoreTests", dependencies: ["AudioPipelineCore", "_AudioPipelineTestSupport"]),
        .testTarget(
            name: "AudioPipelineAdaptersTests",
            // CSndFile: the cross-checks call libsndfile's own conversion directly.
            dependencies: ["AudioPipelineCore", "AudioPipelineAdapters", "CSndFile", "_AudioPipelineTestSupport"]
        ),
        .testTarget(
            name: "AudioPipelineBenchTests",
            dependencies: ["AudioPipelineBench", "AudioPipelineCore", "CAllocationInterposer"]
        ),
        .testTarget(
            name: "AudioPipelineWorkflowsTests",
            dependencies: [
                "AudioPipelineCore", "AudioPipelineAdapters", "AudioPipelineWorkflows", "_AudioPipelineTestSupport",
            ]
        ),
        .testTarget(
            name: "AudiopipeCLITests",
            // Depends on the executable so `swift test` always builds a current `audiopipe`.
            dependencies: [
                "audiopipe", "AudioPipelineAdapters", "AudioPipelineWorkflows", "_AudioPipelineTestSupport",
            ],
            exclude: ["Fixtures"]  // read by path: hand-written message fixtures and a HAR export
        ),
    ]
)

// swift-docc-plugin (`swift package generate-documentation`) only when the docs are built: `make docs`
// sets AUDIOPIPELINE_DOCS=1. Apps that depend on this package, `make dist` and the .deb never resolve
// it or its swift-docc-symbolkit (the pattern of swiftlang/github-workflows' check-docs.sh).
if Context.environment["AUDIOPIPELINE_DOCS"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
