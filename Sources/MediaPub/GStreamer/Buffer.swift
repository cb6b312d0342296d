import CGStreamer
import CGStreamerShim
import Foundation

/// Owns one reference to a GstBuffer.
/// @unchecked Sendable: wraps a GstBuffer (refcounted, thread-safe in C); no Swift state.
final class Buffer: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstBuffer>

    init(owning raw: UnsafeMutablePointer<GstBuffer>) { self.raw = raw }
    init(borrowing raw: UnsafeMutablePointer<GstBuffer>) { self.raw = cshim_buffer_ref(raw) }
    deinit { cshim_buffer_unref(raw) }

    /// A new buffer holding a copy of `bytes`.
    convenience init(copying bytes: UnsafeRawBufferPointer) {
        let buffer = gst_buffer_new_allocate(nil, gsize(bytes.count), nil)!
        if let base = bytes.baseAddress, bytes.count > 0 {
            gst_buffer_fill(buffer, 0, base, gsize(bytes.count))
        }
        self.init(owning: buffer)
    }

    /// A new buffer holding a copy of `bytes`, stamped with `pts` and `duration` (no DTS).
    convenience init(copying bytes: UnsafeRawBufferPointer, pts: ClockTime, duration: ClockTime?) {
        self.init(copying: bytes)
        stamp(pts: pts, duration: duration)
    }

    /// A shallow copy (memory shared) stamped with `pts` and `duration` (no DTS).
    func retimed(pts: ClockTime, duration: ClockTime?) -> Buffer {
        let copy = Buffer(owning: cshim_buffer_copy(raw))
        copy.stamp(pts: pts, duration: duration)
        return copy
    }

    /// Only for a buffer nobody else holds yet.
    private func stamp(pts: ClockTime, duration: ClockTime?) {
        cshim_buffer_set_pts(raw, pts.raw)
        cshim_buffer_set_dts(raw, ClockTime.noneRaw)
        if let duration { cshim_buffer_set_duration(raw, duration.raw) }
    }

    /// A shallow copy with PTS and DTS moved back by `offset` ns (forward when negative), never below zero.
    func shifted(by offset: Int) -> Buffer { shifted(pts: offset, dts: offset) }

    /// A copy with the presentation and decoding times moved back by their own offsets (ns).
    func shifted(pts ptsOffset: Int, dts dtsOffset: Int) -> Buffer {
        let copy = Buffer(owning: cshim_buffer_copy(raw))
        for (get, set, offset) in [(cshim_buffer_pts, cshim_buffer_set_pts, ptsOffset), (cshim_buffer_dts, cshim_buffer_set_dts, dtsOffset)] {
            guard let t = ClockTime(get(raw)) else { continue }
            let moved = offset >= 0 ? t - ClockTime(nanoseconds: UInt64(offset)) : t + ClockTime(nanoseconds: UInt64(offset.magnitude))
            set(copy.raw, moved.raw)
        }
        return copy
    }

    var pts: ClockTime? { ClockTime(cshim_buffer_pts(raw)) }
    var dts: ClockTime? { ClockTime(cshim_buffer_dts(raw)) }
    var isKeyframe: Bool { cshim_buffer_is_delta(raw) == 0 }
    var size: Int { Int(gst_buffer_get_size(raw)) }

    /// Runs `body` over the buffer's bytes, mapped for reading; throws when the
    /// memory cannot be mapped (it never hands over an empty view instead).
    func map<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        var info = GstMapInfo()
        guard gst_buffer_map(raw, &info, GST_MAP_READ) != 0 else { throw GStreamerError("cannot map a buffer of \(size) bytes") }
        defer { gst_buffer_unmap(raw, &info) }
        return try body(UnsafeRawBufferPointer(start: info.data, count: Int(info.size)))
    }
}

/// Owns one reference to a GstSample (buffer + caps + segment).
/// @unchecked Sendable: wraps a GstSample (immutable once made); no Swift state.
final class Sample: @unchecked Sendable {
    let raw: OpaquePointer

    init(owning raw: OpaquePointer) { self.raw = raw }
    deinit { cshim_sample_unref(raw) }

    var buffer: Buffer? {
        guard let b = gst_sample_get_buffer(raw) else { return nil }
        return Buffer(borrowing: b)
    }

    var caps: Caps? {
        guard let c = gst_sample_get_caps(raw) else { return nil }
        return Caps(borrowing: c)
    }

    /// The running time of the buffer's start: its position on the player's own
    /// timeline, with rate, seeks and segment bases applied.
    var runningTime: ClockTime? {
        guard let b = gst_sample_get_buffer(raw), let seg = gst_sample_get_segment(raw),
              let pts = ClockTime(cshim_buffer_pts(b)) else { return nil }
        return ClockTime(gst_segment_to_running_time(seg, GST_FORMAT_TIME, pts.raw))
    }
}

extension Sample {
    /// A new sample of `buffer` with `caps`.
    convenience init(buffer: Buffer, caps: Caps?) {
        self.init(owning: gst_sample_new(buffer.raw, caps?.raw, nil, nil))
    }
}
