/// A C string written into a Swift array (an error buffer, strftime's output),
/// read up to its first NUL; an array with no NUL is read whole.
extension String {
    init(nulTerminated buffer: [CChar]) {
        let end = buffer.firstIndex(of: 0) ?? buffer.endIndex
        self = String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
