import ReelTime

/// Everything that decides the picture of a compiled project at one composition time, as one comparable value:
/// two projects whose keys are equal at t show the same picture at t (`reel diff` compares keys before rendering
/// anything, and renders only the frames whose keys differ).
///
/// The key holds the canvas (sizes, background, compositor), the instruction covering t with its layers (JSON paths
/// left out: they name where a value was written, not what it is), for each layer the asset it shows and the
/// source time at t, the titles and overlays showing at t, and the burned-in caption cues showing at t. Key lists
/// are kept whole, in composition time: a project whose every event moved later shows keys that differ though its
/// pictures may not, which the render then finds; equal keys never hide a difference.
public struct PictureKey: Sendable, Hashable {
    /// One layer of the instruction and the source picture it shows.
    struct Layer: Sendable, Hashable {
        var instruction: LayerInstruction
        var source: AssetSource?
        var sourceTrack: Int?
        var sourceTime: Time?
        var timing: SegmentTiming?
        var fit: Fit?
    }

    var renderSize: PixelSize
    var encodedSize: PixelSize
    var background: RGBAColor
    var compositor: CompositorName
    var instructionBackground: RGBAColor?
    var postProcessing: Bool
    var layers: [Layer]
    var movieLayers: [MovieLayer]
    var cues: [CaptionCue]
    var captionLooks: [CaptionStyle]

    /// The key of `project`'s picture at composition time `time`; nil outside the composition or where no
    /// instruction covers it.
    public init?(_ project: CompiledProject, at time: Time, cursor: inout InstructionCursor) {
        guard !time.isNegative, time < project.duration, var instruction = cursor.instruction(at: time) else {
            return nil
        }
        instruction.path = .root
        let video = project.videoComposition
        renderSize = video.renderSize
        encodedSize = project.encodedSize
        background = video.background
        compositor = video.compositor
        instructionBackground = instruction.background
        postProcessing = instruction.postProcessing
        layers = instruction.layers.map { layer in
            var plain = layer
            plain.path = .root
            plain.effects = plain.effects.map { effect in
                var bare = effect
                bare.path = .root
                return bare
            }
            let segment = project.composition.tracks.first { $0.id == layer.track }?.segments
                .first { $0.target.contains(time) }
            return Layer(instruction: plain, source: segment?.asset.flatMap { project.asset($0)?.source },
                         sourceTrack: segment?.sourceTrack,
                         sourceTime: segment?.mapping.flatMap { try? $0.sourceTime(atTarget: time) },
                         timing: segment?.timing, fit: segment?.fit)
        }
        movieLayers = postProcessing ? video.movieLayers.filter { $0.timeRange.contains(time) }.map { layer in
            var bare = layer
            bare.path = .root
            bare.animations = bare.animations.map { animation in
                var plain = animation
                plain.path = .root
                return plain
            }
            return bare
        } : []
        var cues: [CaptionCue] = [], looks: [CaptionStyle] = []
        for captions in video.captions where captions.captions.mode.burns {
            let showing = captions.cues.filter { $0.start <= time && time < $0.end }
            if !showing.isEmpty {
                cues += showing
                looks.append(captions.captions.style)
            }
        }
        self.cues = cues
        captionLooks = looks
    }
}
