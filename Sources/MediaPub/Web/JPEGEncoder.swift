import Foundation

/// Makes a JPEG of a raw picture at one size: `appsrc ! videoconvert ! videoscale ! jpegenc ! appsink`,
/// a pipeline of its own (never the encoder's), fed one picture when a thumbnail is asked for.
final class JPEGEncoder: Sendable {
    let size: ThumbnailSize
    private let pipeline: Pipeline
    private let src: AppSrc
    private let sink: AppSink

    init(size: ThumbnailSize) throws {
        self.size = size
        pipeline = try Pipeline(parsing: "appsrc name=thumb-src format=time is-live=false ! videoconvert ! videoscale ! "
            + "video/x-raw,format=I420,width=\(size.width),height=\(size.height),pixel-aspect-ratio=1/1 ! "
            + "jpegenc quality=80 ! appsink name=thumb-sink sync=false async=false max-buffers=1 drop=true")
        guard let src = pipeline.appSrc(named: "thumb-src"), let sink = pipeline.appSink(named: "thumb-sink") else {
            pipeline.stop()
            throw MediaPubError.pipeline("thumbnail: missing its elements")
        }
        (self.src, self.sink) = (src, sink)
        do { try pipeline.setState(.playing) } catch { pipeline.stop(); throw error }
    }

    /// The JPEG of `picture`, waiting for it up to `timeout` seconds; nil when it did not come.
    func encode(_ picture: Sample, timeout: TimeInterval) -> Data? {
        guard src.push(sample: picture), let out = sink.tryPull(timeout: timeout), let buffer = out.buffer else { return nil }
        return try? buffer.map { Data($0) }
    }

    func stop() { pipeline.stop() }
}
