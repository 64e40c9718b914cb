import ReelMedia
import ReelModel
import ReelTime

/// A contact sheet: composited pictures of a project tiled in columns and rows, each over a strip with its timecode
/// (`reel thumbnail --sheet`, and the review page's thumbnails).
///
/// A tile is exactly the picture `ImageGenerator` makes at that time and size (the single thumbnail's pixels); the
/// timecode is drawn by the titles' text renderer (Pango, Cairo) in a strip below it, so no picture is covered.
/// Cells fill rows left to right, top to bottom; cells without a time stay the sheet's dark grey.
///
/// ```
/// ┌────────┬────────┬────────┐
/// │ tile 0 │ tile 1 │ tile 2 │
/// │00:00:01│00:00:04│00:00:07│   ← label strip, `labelHeight` pixels
/// ├────────┼────────┼────────┤
/// │ tile 3 │  …     │        │
/// ```
public struct ContactSheet: Sendable {
    /// Tiles across and down.
    public let columns: Int, rows: Int
    /// One tile's picture size.
    public let tile: PixelSize
    /// The height of the timecode strip below each tile (even, so a JPEG sheet keeps even sides).
    public let labelHeight: Int

    /// The sheet's background and the strips' colour (R, G, B).
    static let background: (UInt8, UInt8, UInt8) = (24, 24, 24)

    /// A sheet of `columns` × `rows` tiles of `tile` pixels.
    public init(columns: Int, rows: Int, tile: PixelSize) {
        self.columns = columns
        self.rows = rows
        self.tile = tile
        labelHeight = max(14, Int((Double(tile.height) * 0.14).rounded())) & ~1
    }

    /// Cells on the sheet.
    public var capacity: Int { columns * rows }

    /// The whole sheet's size: columns × tile width by rows × (tile height + label strip).
    public var size: PixelSize {
        PixelSize(width: columns * tile.width, height: rows * (tile.height + labelHeight))
    }

    /// The top-left pixel of tile `index`'s picture.
    public func origin(ofTile index: Int) -> (x: Int, y: Int) {
        ((index % columns) * tile.width, (index / columns) * (tile.height + labelHeight))
    }

    /// One time per video instruction: the start of the frame holding the instruction's middle (so the picture is
    /// one the render shows, under that frame's timecode), inside the instruction and the composition.
    public static func instructionMidpoints(of project: CompiledProject) -> [Time] {
        project.videoComposition.instructions.compactMap { instruction in
            let range = instruction.timeRange
            guard let middle = try? range.start + range.duration.multiplied(by: Rational(1, 2)),
                  let frame = try? middle.quotient(dividingBy: project.frameDuration, rounding: .down),
                  let snapped = try? Time.frames(frame, frameDuration: project.frameDuration)
            else { return nil }
            let time = max(range.start, snapped)
            return time < range.end && time < project.duration ? time : nil
        }
    }

    /// 0, step, 2·step, … before `duration` (at most 100,000 times): `--every`'s pictures.
    public static func times(every step: Time, before duration: Time) -> [Time] {
        var times: [Time] = []
        var time = Time.zero
        while step > .zero, time < duration, times.count < 100_000 {
            times.append(time)
            guard let next = try? time + step else { break }
            time = next
        }
        return times
    }

    /// `HH:MM:SS:FF` of the frame holding `time` (non-drop-frame), or seconds when the rate has no timecode.
    public static func timecode(_ time: Time, frameDuration: Time) -> String {
        if let frame = try? time.quotient(dividingBy: frameDuration, rounding: .down),
           let code = try? Timecode(frameNumber: frame, frameRate: frameDuration.rational.inverse, dropFrame: false) {
            return code.description
        }
        return (time.decimalText ?? String(time.seconds)) + " s"
    }

    /// Draws the pictures of `generator` at `times` (at most `capacity`) with their `labels`, as one RGBA picture.
    public func render(times: [Time], labels: [String], generator: ImageGenerator,
                       isCancelled: () -> Bool = { false }) throws(RenderError) -> VideoFrame {
        precondition(times.count <= capacity && labels.count == times.count, "one label per time, within the sheet")
        let size = size
        var canvas = [UInt8](repeating: 255, count: size.width * size.height * 4)
        for index in stride(from: 0, to: canvas.count, by: 4) {
            (canvas[index], canvas[index + 1], canvas[index + 2]) = Self.background
        }
        for (index, (time, label)) in zip(times, labels).enumerated() {
            if isCancelled() { throw RenderError(.cancelled, "interrupted") }
            let picture = try generator.rgbaPicture(at: time, size: tile)
            guard let pixels = picture.rgbaBytes else { throw RenderError(.internal, "a tile is not RGBA") }
            let (x, y) = origin(ofTile: index)
            for row in 0..<tile.height {
                let from = row * tile.width * 4, to = ((y + row) * size.width + x) * 4
                canvas.replaceSubrange(to..<(to + tile.width * 4), with: pixels[from..<(from + tile.width * 4)])
            }
            try drawLabel(label, centre: (x + tile.width / 2, y + tile.height + labelHeight / 2), on: &canvas,
                          width: size.width)
        }
        do throws(MediaError) {
            return try VideoFrame.rgba(width: size.width, height: size.height, pixels: canvas)
        } catch {
            throw RenderError(media: error)
        }
    }

    /// The sheet of `render(times:labels:generator:)` encoded as a PNG or JPEG file's bytes.
    public func image(times: [Time], labels: [String], generator: ImageGenerator, format: ImageFormat,
                      isCancelled: () -> Bool = { false }) throws(RenderError) -> [UInt8] {
        let picture = try render(times: times, labels: labels, generator: generator, isCancelled: isCancelled)
        do throws(MediaError) {
            return try ImageWriter.encode(picture, as: format)
        } catch {
            throw RenderError(media: error)
        }
    }

    /// Blends `text` (white, DejaVu Sans, 70 % of the strip's height) centred at `centre`, clipped to its cell.
    private func drawLabel(_ text: String, centre: (x: Int, y: Int), on canvas: inout [UInt8], width: Int)
        throws(RenderError)
    {
        let style = TextStyle(text: text, size: Double(labelHeight) * 0.7)
        let raster = try TextRasterizer.rasterize(style, scale: 1, phase: LayerPoint(x: 0, y: 0))
        let left = centre.x - Int(raster.anchor.x), top = centre.y - Int(raster.anchor.y)
        let cellLeft = centre.x - tile.width / 2, cellTop = centre.y - labelHeight / 2
        for row in 0..<raster.height {
            let y = top + row
            guard y >= cellTop, y < cellTop + labelHeight else { continue }
            for column in 0..<raster.width {
                let x = left + column
                guard x >= cellLeft, x < cellLeft + tile.width else { continue }
                let source = (row * raster.width + column) * 4, target = (y * width + x) * 4
                let alpha = Int(raster.pixels[source + 3])
                guard alpha > 0 else { continue }
                for channel in 0..<3 {
                    let below = Int(canvas[target + channel])
                    canvas[target + channel] = UInt8(min(255, Int(raster.pixels[source + channel])
                                                          + (below * (255 - alpha) + 127) / 255))
                }
            }
        }
    }
}
