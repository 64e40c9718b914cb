/// What a smart render copied and what it re-encoded, and why: the render report of `reel render --smart`.
public struct SmartRenderReport: Sendable {
    /// One stretch of output frames.
    public struct Span: Sendable {
        /// Output frames, half-open.
        public let frames: Range<Int64>
        /// Whether its compressed pictures were copied from a source.
        public let copied: Bool
        /// The asset copied from; nil for re-encoded stretches.
        public let asset: String?
        /// Why a re-encoded stretch could not be copied; nil for copied ones.
        public let reason: String?
    }

    /// The stretches in output order.
    public let spans: [Span]
    /// Output frames in all.
    public let frameCount: Int64
    /// Why the whole render fell back to a full re-encode; nil when something was copied.
    public let fallback: String?

    /// Frames copied.
    public var copiedFrameCount: Int64 { spans.filter(\.copied).reduce(0) { $0 + Int64($1.frames.count) } }

    init(plan: SmartPlan, frameCount: Int64) {
        spans = plan.spans.map { span in
            switch span {
            case .copy(let run):
                Span(frames: span.frames, copied: true, asset: run.asset, reason: nil)
            case .encode(let frames, let reason):
                Span(frames: frames, copied: false, asset: nil, reason: reason)
            }
        }
        self.frameCount = frameCount
        fallback = plan.headerAsset == nil ? (plan.refusal ?? "nothing can be copied") : nil
    }
}
