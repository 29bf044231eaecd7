import HTTPTypes
import Testing

@testable import SketchwiseServer

@Suite struct RequestMetricHandlesTests {
    @Test func eachRouteMethodAndStatusHasOneSetOfHandles() {
        let handles = RequestMetricHandles()
        let first = handles.answer(route: "/api/suggest", method: .post, status: .ok)
        let again = handles.answer(route: "/api/suggest", method: .post, status: .ok)
        #expect(first.requests === again.requests && first.duration === again.duration)
        let other = handles.answer(route: "/api/suggest", method: .post, status: .badRequest)
        #expect(other.requests !== first.requests, "another status counts apart")
        #expect(handles.answer(route: "/api/classify", method: .post, status: .ok).requests !== first.requests)
        let error = handles.errors(route: "/api/suggest", method: .post, status: .badRequest)
        #expect(error === handles.errors(route: "/api/suggest", method: .post, status: .badRequest))
        #expect(handles.inFlight(method: .get) === handles.inFlight(method: .get))
        #expect(handles.inFlight(method: .get) !== handles.inFlight(method: .post))
    }

    /// Methods are whatever tokens clients send: past the bound, handles are made per request
    /// instead of kept.
    @Test func onlyABoundedNumberOfHandlesIsKept() throws {
        let handles = RequestMetricHandles()
        for index in 0..<RequestMetricHandles.maximumKeys {
            _ = handles.inFlight(method: try #require(HTTPRequest.Method("M\(index)")))
        }
        let kept = handles.inFlight(method: try #require(HTTPRequest.Method("M0")))
        #expect(kept === handles.inFlight(method: try #require(HTTPRequest.Method("M0"))))
        let extra = try #require(HTTPRequest.Method("EXTRA"))
        #expect(handles.inFlight(method: extra) !== handles.inFlight(method: extra))
    }
}
