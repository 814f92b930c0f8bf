// swift-tools-version: 6.1
//
// The AudioPipeline benchmark suite (package-benchmark). A separate package so that depending on
// AudioPipeline never pulls in package-benchmark; the benchmark-only peers (a plain C loop, later
// libsoxr) live here too. Run from the repository root with `make bench`, or here with
// `swift package benchmark`.

import PackageDescription

let package = Package(
    name: "AudioPipelineBenchmarks",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(name: "AudioPipeline", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(
            name: "BenchSupport", dependencies: [.product(name: "Benchmark", package: "benchmark")],
            path: "Sources/BenchSupport"),
        // Plain C loops, the peers the Swift kernels are measured against, built twice from one
        // source: for the same baseline ISA a plain `swift build -c release` targets (x86-64: SSE2),
        // and with -march=native (AVX2/AVX-512 here), the reference. -fno-math-errno lets
        // lrintf inline so the loop vectorises, as any C programmer tuning it would.
        // unsafeFlags are fine here: this package is never a dependency of anything.
        .target(name: "CPeers", path: "Sources/CPeers", cSettings: [.unsafeFlags(["-O3", "-fno-math-errno"])]),
        .target(
            name: "CPeersNative", path: "Sources/CPeersNative",
            cSettings: [.unsafeFlags(["-O3", "-fno-math-errno", "-march=native"])]),
        // libsoxr, the fastest high-quality resampler we know: the peer for the native resampler.
        .systemLibrary(
            name: "CSoxr", path: "Sources/CSoxr", pkgConfig: "soxr",
            providers: [.apt(["libsoxr-dev"]), .brew(["libsoxr"])]),
        .executableTarget(
            name: "Resampling",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchSupport",
                .product(name: "AudioPipelineCore", package: "AudioPipeline"),
                .product(name: "AudioPipelineAdapters", package: "AudioPipeline"),
                "CSoxr",
            ],
            path: "Benchmarks/Resampling",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Framing",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchSupport",
                .product(name: "AudioPipelineCore", package: "AudioPipeline"),
            ],
            path: "Benchmarks/Framing",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Jitter",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchSupport",
                .product(name: "AudioPipelineCore", package: "AudioPipeline"),
            ],
            path: "Benchmarks/Jitter",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Paths",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchSupport",
                .product(name: "AudioPipelineCore", package: "AudioPipeline"),
                .product(name: "AudioPipelineAdapters", package: "AudioPipeline"),
            ],
            path: "Benchmarks/Paths",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "PCMConversion",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchSupport",
                .product(name: "AudioPipelineCore", package: "AudioPipeline"),
                "CPeers",
                "CPeersNative",
            ],
            path: "Benchmarks/PCMConversion",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Session",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchSupport",
                .product(name: "AudioPipelineCore", package: "AudioPipeline"),
                .product(name: "AudioPipelineWorkflows", package: "AudioPipeline"),
            ],
            path: "Benchmarks/Session",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Not a benchmark: the resampler quality table beside libsoxr HQ (`make bench-quality`).
        .executableTarget(
            name: "ResamplerQuality",
            dependencies: [
                .product(name: "AudioPipelineCore", package: "AudioPipeline"),
                .product(name: "AudioPipelineWorkflows", package: "AudioPipeline"),
                "CSoxr",
            ],
            path: "Tools/ResamplerQuality"
        ),
    ]
)
