// Whether a font family is installed is asked of fontconfig through its own header
// (CFontconfig), the library Pango draws an overlay's text with.

import XCTest
@testable import MediaPub

final class InstalledFontsTests: XCTestCase {
    /// A family fc-list lists is known, one it does not is not, and each answer is the
    /// same when asked again (fonts-dejavu-core is a dependency: scripts/install-deps.sh).
    func testAFamilyIsKnownExactlyWhenFcListListsIt() throws {
        let listed = try Proc.check("fc-list", [":", "family"]).stdout
        XCTAssertTrue(listed.contains("DejaVu Sans"), listed)
        for _ in 0..<3 {
            XCTAssertEqual(InstalledFonts.has(family: "DejaVu Sans"), true)
            XCTAssertEqual(InstalledFonts.has(family: "NoSuchFamilyAtAll"), false)
        }
        XCTAssertEqual(OverlayFont.refusal(of: "DejaVu Sans Bold 20"), nil)
        XCTAssertEqual(OverlayFont.refusal(of: "NoSuchFamilyAtAll 20"),
                       "no font \"NoSuchFamilyAtAll\" is installed (fc-list lists them; Sans, Serif and Monospace always are)")
    }
}
