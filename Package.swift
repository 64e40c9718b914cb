// swift-tools-version:6.0
import PackageDescription

// The tests' build is `-c release` so that what the tests run is the optimised library the binary ships. The test
// code itself need not be optimised: its targets that only build projects, run processes and compare text compile
// with -Onone, which builds faster (docs/testing.md, "What make test builds", has the figures). The targets
// whose tests do pixel arithmetic of their own stay optimised. No product contains a test target, so a package
// depending on ReelKit never sees these flags.
let testSettings: [SwiftSetting] = [.unsafeFlags(["-Onone"])]

let package = Package(
    name: "reel",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "reel", targets: ["reel"]),
        .library(name: "ReelKit", targets: ["ReelRender", "ReelMedia", "ReelModel", "ReelCodecs", "ReelTime", "ReelInterchange"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "ReelTime"),
        // The codec names both the project model and the encoders use (docs/decisions.md, "One codec enum").
        .target(name: "ReelCodecs"),
        .target(name: "ReelModel", dependencies: ["ReelCodecs", "ReelTime"]),
        .target(name: "ReelInterchange", dependencies: ["ReelModel", "ReelTime"]),
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswresample libswscale libavfilter",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev",
                              "libswresample-dev", "libswscale-dev", "libavfilter-dev"])]
        ),
        .systemLibrary(
            name: "CPangoCairo",
            pkgConfig: "pangocairo fontconfig",
            providers: [.apt(["libpango1.0-dev", "libcairo2-dev", "libfontconfig-dev"])]
        ),
        .systemLibrary(name: "CRsvg", pkgConfig: "librsvg-2.0", providers: [.apt(["librsvg2-dev"])]),
        .systemLibrary(name: "CEBUR128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),
        .systemLibrary(name: "CLibass", pkgConfig: "libass", providers: [.apt(["libass-dev"])]),
        .target(name: "ReelMedia", dependencies: ["CFFmpeg", "CEBUR128", "ReelCodecs", "ReelTime"]),
        .systemLibrary(name: "CSDL2", providers: [.apt(["libsdl2-dev"])]),
        .target(name: "ReelRender", dependencies: ["ReelMedia", "ReelModel", "ReelCodecs", "ReelTime", "CPangoCairo", "CRsvg", "CLibass"]),
        .executableTarget(name: "reel", dependencies: [
            "ReelRender", "ReelMedia", "ReelModel", "ReelCodecs", "ReelTime", "ReelInterchange", "CSDL2",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // libFuzzer targets for the parsers of untrusted text (`make fuzz`); an ordinary build replays inputs.
        .executableTarget(name: "reel-fuzz", dependencies: ["ReelModel", "ReelInterchange", "ReelTime"],
                          path: "Tests/Fuzz/Harness"),
        // Test support (docs/testing.md). ReelUnitTestSupport starts no process and opens no media: the only support a
        // unit target may depend on. ReelTestSupport builds on it with the one process runner, the media makers and
        // the probes that end-to-end targets use.
        .target(name: "ReelUnitTestSupport", path: "Tests/ReelUnitTestSupport"),
        .target(name: "ReelTestSupport", dependencies: ["ReelUnitTestSupport"], path: "Tests/ReelTestSupport"),
        // Unit tests: no process started, no media file opened (pure model, time, parsers, planners with fakes,
        // pixel maths on frames in memory).
        .testTarget(name: "ReelTimeTests", dependencies: ["ReelTime"], swiftSettings: testSettings),
        .testTarget(name: "ReelModelTests", dependencies: ["ReelModel", "ReelCodecs", "ReelTime"],
                    swiftSettings: testSettings),
        .testTarget(name: "ReelInterchangeTests",
                    dependencies: ["ReelInterchange", "ReelModel", "ReelTime", "ReelUnitTestSupport"],
                    swiftSettings: testSettings),
        .testTarget(name: "ReelMediaUnitTests", dependencies: ["ReelMedia", "ReelCodecs", "ReelTime"],
                    swiftSettings: testSettings),
        .testTarget(name: "ReelRenderUnitTests",
                    dependencies: ["ReelRender", "ReelModel", "ReelMedia", "ReelCodecs", "ReelTime", "ReelUnitTestSupport"]),
        // End-to-end tests: real media made and read with FFmpeg, the ffmpeg CLI or the `reel` binary run, renders.
        .testTarget(name: "ReelMediaEndToEndTests",
                    dependencies: ["ReelMedia", "ReelCodecs", "ReelTime", "ReelTestSupport"]),
        .testTarget(name: "ReelRenderEndToEndTests",
                    dependencies: ["ReelRender", "ReelModel", "ReelMedia", "ReelCodecs", "ReelTime", "ReelTestSupport"]),
        .testTarget(name: "ReelCLITests", dependencies: ["ReelModel", "ReelTestSupport"], swiftSettings: testSettings),
    ]
)
