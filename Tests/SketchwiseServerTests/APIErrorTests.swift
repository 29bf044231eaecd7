import Foundation
import HTTPTypes
import SketchwiseCore
import SketchwiseTestSupport
import SketchwiseWork
import Testing
@testable import SketchwiseServer

/// The errors the API answers, and the OpenAPI document that lists them.
@Suite struct APIErrorTests {
    @Test func workErrorsBecomeTheirAnswers() {
        let busy = APIError(work: WorkQueue.Busy(waiting: 3))
        #expect(busy?.code == .busy && busy?.status == .serviceUnavailable && busy?.headers[.retryAfter] == "1")
        let late = APIError(work: DeadlineExceeded())
        #expect(late?.code == .timeout && late?.status == .serviceUnavailable && late?.headers[.retryAfter] == "1")
        #expect(APIError(work: SketchError.empty)?.code == .badRequest)
        #expect(APIError(work: CocoaError(.fileNoSuchFile)) == nil, "other errors stay internal")
    }

    @Test func theOpenAPIDocumentListsEveryErrorCode() throws {
        let url = SharedData.packageRoot.appendingPathComponent("Sources/SketchwiseServer/Web/openapi.yaml")
        let text = try String(contentsOf: url, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.contains("enum: [bad_request") })
        let listed = Set(line.split(separator: "[")[1].dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(listed == Set(APIError.Code.allCases.map(\.rawValue)))
        for code in APIError.Code.allCases {
            #expect(text.contains("`\(code.rawValue)` \(code.status.code)"), "the description gives \(code.rawValue)'s status")
        }
    }
}
