// Scenarios that mostly wait on the wall clock (realtime runs, live feeds, servers
// that answer late), each with a run, folder and servers of its own, run at once:
// the suite takes the longest of them instead of their sum. Each checks what its
// own test did.

import Foundation
import XCTest

extension XCTestCase {
    /// Runs each of `scenarios` on a thread of its own and returns once all have
    /// ended; one that throws fails the test with its name. Their checks are
    /// recorded on this test as they are made, from whichever thread. What each
    /// took is printed.
    func atOnce(_ scenarios: [(name: String, run: () throws -> Void)], timeout: TimeInterval = 300,
                file: StaticString = #filePath, line: UInt = #line) {
        nonisolated(unsafe) let scenarios = scenarios   // each touched by its one thread only
        let done = DispatchGroup()
        for index in scenarios.indices {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                let began = Date()
                do { try scenarios[index].run() } catch {
                    XCTFail("\(scenarios[index].name): \(error)", file: file, line: line)
                }
                print("\(scenarios[index].name): \(String(format: "%.1f", Date().timeIntervalSince(began))) s")
            }
        }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            XCTFail("the scenarios did not all end within \(timeout) s", file: file, line: line)
        }
    }
}
