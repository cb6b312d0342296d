// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "mediapub",
    products: [
        .executable(name: "mediapub", targets: ["mediapub"]),
        .library(name: "MediaPub", targets: ["MediaPub"]),
    ],
    targets: [
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig: "gstreamer-1.0 gstreamer-base-1.0 gstreamer-app-1.0 gstreamer-audio-1.0 gstreamer-video-1.0 gstreamer-pbutils-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]
        ),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSRT", pkgConfig: "srt", providers: [.apt(["libsrt-gnutls-dev"])]),
        .systemLibrary(name: "CSoup", pkgConfig: "libsoup-3.0", providers: [.apt(["libsoup-3.0-dev"])]),
        // EBU R 128 loudness (docs/presets.md, audio.loudness).
        .systemLibrary(name: "CEbur128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),
        // A logo's image decoded at the size it is drawn (docs/presets.md, overlays).
        .systemLibrary(name: "CGdkPixbuf", pkgConfig: "gdk-pixbuf-2.0", providers: [.apt(["libgdk-pixbuf-2.0-dev"])]),
        // Whether an overlay's font family is installed (docs/presets.md, overlays).
        .systemLibrary(name: "CFontconfig", pkgConfig: "fontconfig", providers: [.apt(["libfontconfig-dev"])]),
        // glibc's malloc tuning (mallopt, malloc_trim), which the Glibc module leaves out.
        .systemLibrary(name: "CMalloc"),
        // One shim per library, each named for it (curl's is in CCurl.h, libsoup's in CSoup.h):
        // GStreamer's and GObject's macros and variadic calls,
        .target(name: "CGStreamerShim", dependencies: ["CGStreamer"]),
        // a TCP socket's kernel state (TCP_INFO, SIOCOUTQ),
        .target(name: "CSocketShim"),
        // an overlay's picture blended on I420 frames.
        .target(name: "COverlayBlend", dependencies: ["CGStreamer"]),
        // The executable's own: TCP_NODELAY on every TCP connect (see its header).
        .target(name: "CTCPNoDelay"),
        .target(
            name: "MediaPub",
            dependencies: ["CGStreamer", "CGStreamerShim", "CSocketShim", "COverlayBlend", "CYAML", "CCurl", "CSRT", "CSoup",
                           "CEbur128", "CGdkPixbuf", "CFontconfig", "CMalloc"]
        ),
        .executableTarget(
            name: "mediapub", dependencies: ["MediaPub", "CTCPNoDelay"],
            // In the dynamic symbol table whatever else is linked, so that it interposes libc's.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic-symbol=connect"])]
        ),
        // Helpers both test targets use (no tests of its own): Tests/MediaPubTestSupport.
        .testTarget(name: "MediaPubTestSupport", dependencies: ["MediaPub"]),
        // Pure values, in milliseconds: no pipeline run, no process, no network, no files but
        // temporary text (`make unit`, under a minute).
        .testTarget(name: "MediaPubUnitTests", dependencies: ["MediaPub", "MediaPubTestSupport"]),
        // End to end: mediapub and the library run against real servers and tools (with the unit tests, `make test`).
        .testTarget(name: "MediaPubTests", dependencies: ["MediaPub", "MediaPubTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
