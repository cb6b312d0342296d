import Foundation

/// Why an Icecast server refused a source, or what went wrong with it, from shout2send's error.
enum IcecastRefusal {
    /// The failure in words (libshout's own, from the debug details), and whether the
    /// server refused us (a wrong password or user, a mount that takes no source).
    static func describe(_ error: ErrorMessage) -> (why: String, refused: Bool) {
        // The debug details' last line is libshout's: "shout_open() failed: err=Login failed".
        let detail = error.debug?.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) }
        let message = error.message.hasSuffix(".") ? String(error.message.dropLast()) : error.message
        let why = message + (detail.map { ": \($0)" } ?? "")
        return (why, detail?.hasSuffix("err=Login failed") == true)
    }

    /// What an ERROR of shout2send's pipeline comes to: a refused login, or libshout's words.
    static func failure(of error: ErrorMessage) -> OutputFailure {
        let (why, refused) = describe(error)
        return refused ? OutputFailure("rejected: the server refused the source login: \(why)", .refused)
                       : OutputFailure(why, .library(error.code))
    }
}
