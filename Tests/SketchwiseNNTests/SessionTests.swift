import Foundation
import Testing
@testable import SketchwiseNN

@Suite struct SessionTests {
    @Test func sequencesOfEveryLengthRunInThePlannedWorkspace() throws {
        let model = try Model(contentsOf: Fixtures.model("seq"))
        let session = model.makeSession()
        let full = randomFloats(40 * 3, seed: 7)
        var first: [Float] = []
        for length in [40, 1, 13, 40, 2] {
            let outputs = try session.run(input: Array(full.prefix(length * 3)))
            #expect(outputs.logits.allSatisfy(\.isFinite) && outputs.logits.count == 7)
            if length == 40 {
                if first.isEmpty { first = outputs.logits } else { #expect(outputs.logits == first) }
            }
        }
    }

    @Test func wrongInputShapesAreRejected() throws {
        let cnn = try Model(contentsOf: Fixtures.model("cnn")).makeSession()
        #expect(throws: InferenceError.inputShape(expected: "[1, 20, 20]", got: .image(channels: 1, height: 28, width: 28))) {
            try cnn.run(input: [Float](repeating: 0, count: 784), shape: .image(channels: 1, height: 28, width: 28))
        }
        #expect(throws: InferenceError.inputCount(expected: 400, got: 399)) { try cnn.run(input: [Float](repeating: 0, count: 399)) }
        let seq = try Model(contentsOf: Fixtures.model("seq")).makeSession()
        #expect(throws: InferenceError.self) { try seq.run(input: [Float](repeating: 0, count: 41 * 3)) }
        #expect(throws: InferenceError.self) { try seq.run(input: []) }
        #expect(throws: InferenceError.inputCount(expected: 6, got: 7)) {
            try seq.run(input: [Float](repeating: 0, count: 7), shape: .sequence(length: 2, channels: 3))
        }
        #expect(throws: InferenceError.self) { try seq.run(input: [0, 0, 1, 0], shape: .sequence(length: 1, channels: 4)) }
        var logits = [Float](repeating: 0, count: 3)
        #expect(throws: InferenceError.outputCount(output: "logits", expected: 7, got: 3)) {
            try logits.withUnsafeMutableBufferPointer { logits in
                try [Float](repeating: 0, count: 6).withUnsafeBufferPointer { try seq.run(input: $0, logits: logits) }
            }
        }
        let error = InferenceError.inputShape(expected: "[1…40, 3]", got: .sequence(length: 41, channels: 3))
        #expect(error.description == "input shape [41, 3] does not fit the model input [1…40, 3]")
    }

    /// Sessions of one model on eight tasks at once answer as one session alone: a workspace shared
    /// by mistake would mix their inputs. Within 1e-5, not bit for bit: under load a CI run once
    /// saw the tasks agree with each other and differ from the lone session in the last bits
    /// (BLAS may split a sum differently on another thread).
    @Test func manyTasksSharingOneModelGetTheSameResults() async throws {
        let model = try Model(contentsOf: Fixtures.model("seq"))
        let inputs = (0..<8).map { randomFloats((5 + 4 * $0) * 3, seed: UInt64($0)) }
        let baseline = try inputs.map { try model.makeSession().run(input: $0) }
        let results = try await withThrowingTaskGroup(of: [Session.Outputs].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let session = model.makeSession()
                    var outputs: [Session.Outputs] = []
                    for _ in 0..<5 { outputs += try inputs.map { try session.run(input: $0) } }
                    return outputs
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 8)
        let expected = Array(repeating: baseline, count: 5).flatMap { $0 }
        for outputs in results {
            #expect(outputs.count == expected.count)
            for (output, wanted) in zip(outputs, expected) {
                #expect(maxDifference(output.logits, wanted.logits) <= 1e-5)
                #expect(maxDifference(output.embedding ?? [], wanted.embedding ?? []) <= 1e-5)
            }
        }
    }
}

/// A session reuses the workspace it allocated at creation: every output of every run, whatever the
/// input length, lives at the same address inside it. (Whether the run path itself calls malloc
/// cannot be observed from inside a Swift test on Linux — the runtime's allocation hooks are not
/// usable there — so that part was measured with an interposed malloc in a release build: 0 calls.)
@Suite struct WorkspaceReuseTests {
    @Test(arguments: ["cnn", "seq"])
    func outputsStayInTheSessionWorkspace(model name: String) throws {
        let model = try Model(contentsOf: Fixtures.model(name))
        let session = model.makeSession()
        let workspace = UnsafePointer(session.workspace) ..< UnsafePointer(session.workspace + model.program.workspaceCount)
        var logits: Set<UnsafePointer<Float>?> = [], embeddings: Set<UnsafePointer<Float>?> = []
        for _ in 0..<2 {
            for input in Fixtures.cases(name).map(\.input) {
                try input.withUnsafeBufferPointer { input in
                    try session.run(input: input) { output in
                        logits.insert(output.logits.baseAddress)
                        embeddings.insert(output.embedding?.baseAddress)
                    }
                }
            }
        }
        #expect(logits.count == 1 && embeddings.count == 1)
        #expect(logits.allSatisfy { $0.map(workspace.contains) == true })
        #expect(embeddings.allSatisfy { $0.map(workspace.contains) == true })
    }

    @Test func sessionsHaveTheirOwnWorkspaces() throws {
        let model = try Model(contentsOf: Fixtures.model("cnn"))
        let (a, b) = (model.makeSession(), model.makeSession())
        #expect(a.workspace != b.workspace)
        #expect(model.program.workspaceCount > 0)
    }
}
