import Dispatch
import Foundation
import ReelMedia
import ReelModel
import Synchronization
import Testing
@testable import ReelRender

/// Holds every request it is given and finishes a batch of `batch` in reverse order from another thread, so
/// results arrive out of order; records how many requests were ever in flight at once.
private final class ReversingCompositor: VideoCompositor {
    private struct State {
        var held: [AsynchronousCompositionRequest] = []
        var inFlight = 0
        var mostInFlight = 0
    }

    private let state = Mutex(State())
    private let batch: Int
    var sourcePixelFormats: [PixelFormat] { [.yuv420p] }
    var outputPixelFormats: [PixelFormat] { [.yuv420p] }

    init(batch: Int) { self.batch = batch }

    var mostInFlight: Int { state.withLock { $0.mostInFlight } }

    func renderContextChanged(_ context: RenderContext) throws(MediaError) {}

    func startRequest(_ request: AsynchronousCompositionRequest) {
        let ready = state.withLock { state -> [AsynchronousCompositionRequest] in
            state.held.append(request)
            state.inFlight += 1
            state.mostInFlight = max(state.mostInFlight, state.inFlight)
            guard state.held.count == batch else { return [] }
            defer { state.held.removeAll() }
            return state.held
        }
        guard !ready.isEmpty else { return }
        DispatchQueue.global().async { [self] in
            for request in ready.reversed() {
                state.withLock { $0.inFlight -= 1 }
                let layer = request.request.layers[0]
                request.finish(with: layer.picture)
            }
        }
    }

    func cancelAllPendingRequests() {
        let held = state.withLock { state in
            defer { state.held.removeAll() }
            return state.held
        }
        for request in held { request.finishCancelled() }
    }
}

/// Fails odd frames, passes even ones through, at once.
private final class FailingCompositor: VideoCompositor {
    var sourcePixelFormats: [PixelFormat] { [.yuv420p] }
    var outputPixelFormats: [PixelFormat] { [.yuv420p] }
    func renderContextChanged(_ context: RenderContext) throws(MediaError) {}
    func startRequest(_ request: AsynchronousCompositionRequest) {
        if request.request.frameIndex % 2 == 1 {
            request.finish(with: MediaError(.internal, "odd frame"))
        } else {
            request.finish(with: request.request.layers[0].picture)
        }
    }
    func cancelAllPendingRequests() {}
}

@Suite struct CompositorQueueTests {
    private static func flatLayer(_ value: UInt8, width: Int = 16, height: Int = 8) throws -> LayerSource {
        LayerSource(track: 1, frame: try TestPicture.flat(width: width, height: height, y: value))
    }

    @Test func resultsComeBackInSubmissionOrderWithThreeInFlight() throws {
        let compositor = ReversingCompositor(batch: 3)
        let queue = try CompositionQueue(compositor: compositor, renderContext: TestPicture.context(16, 8), depth: 3)
        var received: [Int64] = []
        var values: [Int] = []
        for n in 0..<12 {
            if queue.pendingCount >= queue.depth, let done = try queue.next() {
                received.append(done.frameIndex)
                values.append(TestPicture.sample(done.frame, 0, 0))
            }
            try queue.submit(TestPicture.request([try Self.flatLayer(UInt8(20 + n))], index: Int64(n)))
        }
        while let done = try queue.next() {
            received.append(done.frameIndex)
            values.append(TestPicture.sample(done.frame, 0, 0))
        }
        #expect(received == Array(0..<12))
        #expect(values == (0..<12).map { 20 + $0 })
        #expect(compositor.mostInFlight == 3)
    }

    @Test func builtInCompositorUsesSeveralThreadsAndKeepsOrder() throws {
        let compositor = BuiltInCompositor(threadCount: 2)
        let queue = try CompositionQueue(compositor: compositor, renderContext: TestPicture.context(1280, 720))
        var threads = Set<UInt>()
        var order: [Int64] = []
        var values: [Int] = []
        func take(_ done: ComposedFrame) {
            order.append(done.frameIndex)
            values.append(TestPicture.sample(done.frame, 640, 360))
            if let thread = done.threadID { threads.insert(thread) }
            #expect(!done.isSourceFrame)
        }
        for n in 0..<16 {
            if queue.pendingCount >= queue.depth, let done = try queue.next() { take(done) }
            // A half-pixel offset goes through the bilinear path: a few milliseconds per frame.
            let layer = LayerSource(track: 1, frame: try TestPicture.flat(width: 1280, height: 720, y: UInt8(30 + n)),
                                    transform: .translation(0.5, 0.5))
            try queue.submit(TestPicture.request([layer], index: Int64(n)))
        }
        while let done = try queue.next() { take(done) }
        #expect(order == Array(0..<16))
        #expect(values == (0..<16).map { 30 + $0 })
        #expect(threads.count > 1)
    }

    @Test func passthroughReturnsTheSourceFrameObject() throws {
        let queue = try CompositionQueue(compositor: BuiltInCompositor(), renderContext: TestPicture.context(16, 8))
        let source = try TestPicture.flat(width: 16, height: 8, y: 99)
        try queue.submit(TestPicture.request([LayerSource(track: 1, frame: source)]))
        let done = try #require(try queue.next())
        #expect(done.frame === source)
        #expect(done.isSourceFrame)
    }

    @Test func otherSourceFormatsAreConvertedOnce() throws {
        let rgb = try #require(PixelFormat(name: "rgb24"))
        let source = try VideoFrame(width: 16, height: 8, format: rgb)
        for y in 0..<8 {
            (source.plane(0) + y * source.stride(0)).update(repeating: 128, count: 48)
        }
        let queue = try CompositionQueue(compositor: BuiltInCompositor(), renderContext: TestPicture.context(16, 8))
        for n in 0..<2 {
            try queue.submit(TestPicture.request([LayerSource(track: 1, frame: source)], index: Int64(n)))
        }
        let first = try #require(try queue.next()), second = try #require(try queue.next())
        // Mid grey in limited range: 16 + 219·128/255 ≈ 126.
        #expect(abs(TestPicture.sample(first.frame, 5, 5) - 126) <= 1)
        // The converted picture is passed through, and the conversion was reused for the held source.
        #expect(first.isSourceFrame && second.isSourceFrame)
        #expect(first.frame === second.frame)
        #expect(first.frame !== source)
    }

    @Test func cancelAllFinishesPendingRequestsAsCancelled() throws {
        let compositor = BuiltInCompositor(threadCount: 1)
        let context = TestPicture.context(1920, 1080)
        try compositor.renderContextChanged(context)
        let source = try TestPicture.flat(width: 1920, height: 1080, y: 50)
        // Forty rotated full-frame layers: far longer than the time it takes to cancel.
        let layers = (0..<40).map {
            LayerSource(track: $0, frame: source, opacity: 0.5,
                        transform: AffineTransform(translate: (0, 0), rotateDegrees: Double($0) + 1))
        }
        let requests = (0..<3).map {
            AsynchronousCompositionRequest(TestPicture.request(layers, index: Int64($0)), renderContext: context)
        }
        for request in requests { compositor.startRequest(request) }
        // Let the single worker start on the first request.
        Thread.sleep(forTimeInterval: 0.02)
        let clock = ContinuousClock()
        let elapsed = clock.measure { compositor.cancelAllPendingRequests() }
        #expect(requests.allSatisfy { $0.isFinished })
        for request in requests {
            guard case .cancelled = request.waitUntilFinished() else {
                Issue.record("frame \(request.request.frameIndex) was not cancelled")
                continue
            }
        }
        #expect(elapsed < .seconds(1))
    }

    @Test func queueCancelAllLeavesNothingPending() throws {
        let compositor = ReversingCompositor(batch: 5)
        let queue = try CompositionQueue(compositor: compositor, renderContext: TestPicture.context(16, 8), depth: 4)
        for n in 0..<3 {
            try queue.submit(TestPicture.request([try Self.flatLayer(40)], index: Int64(n)))
        }
        #expect(queue.pendingCount == 3)
        queue.cancelAll()
        #expect(queue.pendingCount == 0)
        #expect(try queue.next() == nil)
    }

    @Test func compositorErrorsSurfaceInOrder() throws {
        let queue = try CompositionQueue(compositor: FailingCompositor(), renderContext: TestPicture.context(16, 8))
        for n in 0..<3 {
            try queue.submit(TestPicture.request([try Self.flatLayer(40)], index: Int64(n)))
        }
        #expect(try queue.next()?.frameIndex == 0)
        #expect(throws: MediaError.self) { _ = try queue.next() }
        #expect(try queue.next()?.frameIndex == 2)
        #expect(try queue.next() == nil)
    }

    @Test func trackMapRunsThroughTheQueue() throws {
        #expect(throws: MediaError.self) {
            _ = try CompositionQueue(compositor: TrackMapCompositor(), renderContext: TestPicture.context(15, 8))
        }
        let queue = try CompositionQueue(compositor: TrackMapCompositor(), renderContext: TestPicture.context(16, 8))
        try queue.submit(TestPicture.request([try Self.flatLayer(40)], index: 0))
        let map = try #require(try queue.next())
        #expect(TestPicture.sample(map.frame, 0, 0) == Int(YUVColor(TrackMapCompositor.color(forTrack: 1)).y))
        #expect(!map.isSourceFrame)
    }
}
