// The shared test helpers (Tests/MediaPubTestSupport) in every file of this target:
// its public ones through this import; `TypedSamples`, made of the library's
// internal types, by `@testable import MediaPubTestSupport` where it is used.

@_exported import MediaPubTestSupport
