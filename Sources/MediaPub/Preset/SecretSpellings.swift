import Foundation

/// Every way a log line may spell a secret (docs/presets.md, Outputs: secrets never show,
/// GStreamer's debug log included): as written, percent-decoded and percent-encoded (a URL,
/// either case of hex), quoted in a pipeline description (`\"`, `\\`), escaped in a
/// GstStructure or a GValue (a backslash before each character but letters, digits and
/// `_-+/:.`; a byte past ASCII as `\ooo`), and by g_strescape (`\"`, `\\`, `\n`…, `\ooo`).
/// A secret never goes into a pipeline description (OutputConnection sets it as a
/// property); these are for whatever a library still prints of it.
extension SecretMask {
    static func spellings(of secret: String) -> [String] {
        let decoded = secret.removingPercentEncoding ?? secret
        var all: Set<String> = []
        for s in Set([secret, decoded]) {
            let encoded = percentEncoded(s)
            all.formUnion([s, encoded, encoded.lowercased(), descriptionQuoted(s), structureEscaped(s), strescaped(s)])
        }
        return all.filter { $0.count >= 2 }.sorted { $0.count > $1.count }
    }

    /// Each byte but ASCII letters, digits and `-._~` as `%XX`.
    static func percentEncoded(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? s
    }

    /// Inside a gst-launch description's quotes (GStreamer.quote).
    static func descriptionQuoted(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// As a GstStructure or a GValue prints a string (gst_value_serialize): a backslash
    /// before every ASCII character other than letters, digits and `_-+/:.`; a control
    /// character or a byte past ASCII as a backslash and three octal digits.
    static func structureEscaped(_ s: String) -> String {
        var out = ""
        for byte in s.utf8 {
            let c = Unicode.Scalar(byte)
            if byte < 0x20 || byte >= 0x7F {
                out += "\\" + octal(byte)
            } else if c.properties.isAlphabetic || ("0"..."9").contains(c) || "_-+/:.".unicodeScalars.contains(c) {
                out.unicodeScalars.append(c)
            } else {
                out += "\\" + String(c)
            }
        }
        return out
    }

    /// As g_strescape writes it: `\b \f \n \r \t \\ \"` and every other byte below a
    /// space or past ASCII as three octal digits.
    static func strescaped(_ s: String) -> String {
        let named: [UInt8: String] = [0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x5C: "\\\\", 0x22: "\\\""]
        var out = ""
        for byte in s.utf8 {
            if let n = named[byte] { out += n } else if byte < 0x20 || byte >= 0x7F { out += "\\" + octal(byte) } else {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }

    private static func octal(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 8)
        return String(repeating: "0", count: 3 - digits.count) + digits
    }
}
