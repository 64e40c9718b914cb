import ReelMedia
import ReelModel

/// Image pictures with their alpha: overlays (SPEC §3.5) and transparent images on the storyline.
///
/// Images are decoded through FFmpeg (PNG, JPEG, WebP, BMP, TIFF), turned upright by a JPEG's EXIF orientation,
/// and premultiplied before any scaling, so that resampling never bleeds the colour of transparent pixels into
/// the edge of the picture.
enum ImageLayer {
    /// The upright, premultiplied picture of the image file at `path` (its video stream `stream`). An SVG file is
    /// drawn by librsvg at `size` (its nominal size when nil); other images come at their own size, whatever `size`.
    static func decode(path: String, stream: Int, opener: any SourceOpener,
                       size: PixelSize? = nil) throws(MediaError) -> LayerRaster {
        if SVGImage.isSVG(path) {
            let svg = try SVGImage(path: path)
            let drawn = size ?? svg.size
            return try svg.raster(width: drawn.width, height: drawn.height)
        }
        let decoded = try opener.openVideo(path: path, stream: stream).frame(at: .zero)
        return try premultiplied(decoded).oriented(exif: decoded.exifOrientation ?? 1)
    }

    /// A decoded picture as premultiplied RGBA, as stored.
    private static func premultiplied(_ decoded: VideoFrame) throws(MediaError) -> LayerRaster {
        let converted = try Scaler().converted(decoded, width: decoded.width, height: decoded.height, format: .rgba)
        guard let straight = converted.rgbaBytes else {
            throw MediaError(.internal, "the image did not convert to rgba")
        }
        return LayerRaster.premultiplying(straight: straight, width: decoded.width, height: decoded.height)
    }

    /// `raster` resampled to `width`×`height` (bicubic, libswscale; premultiplied values scale channel by channel).
    static func scaled(_ raster: LayerRaster, width: Int, height: Int) throws(MediaError) -> LayerRaster {
        guard width != raster.width || height != raster.height else { return raster }
        let frame = try VideoFrame.rgba(width: raster.width, height: raster.height, pixels: raster.pixels)
        let result = try Scaler().converted(frame, width: width, height: height, format: .rgba)
        guard var pixels = result.rgbaBytes else { throw MediaError(.internal, "the image did not scale") }
        // Bicubic overshoot may leave a colour above its alpha; premultiplied values never exceed it.
        var index = 0
        while index < pixels.count {
            let alpha = pixels[index + 3]
            for channel in 0..<3 where pixels[index + channel] > alpha { pixels[index + channel] = alpha }
            index += 4
        }
        return LayerRaster(width: width, height: height, pixels: pixels,
                           anchor: LayerPoint(x: Double(width) / 2, y: Double(height) / 2))
    }

    /// A yuva420p copy of `decoded`, a picture with alpha, for an image clip: the compositor blends it with its
    /// alpha, so its transparent parts show the layers below, or the background. It keeps the stored orientation,
    /// which the clip's geometry was computed for. Wholly transparent pixels take the colour `background`, so
    /// that scaling the picture (which the compositor does on straight values) bleeds that colour, not whatever
    /// the file stored there, into the edges.
    static func withAlpha(_ decoded: VideoFrame, transparentShowing background: RGBAColor) throws(MediaError)
        -> VideoFrame {
        let converted = try Scaler().converted(decoded, width: decoded.width, height: decoded.height, format: .rgba)
        guard let pixels = converted.rgbaBytes else { throw MediaError(.internal, "the image did not convert to rgba") }
        return try withAlpha(straight: pixels, width: decoded.width, height: decoded.height,
                             transparentShowing: background)
    }

    /// The yuva420p picture of a premultiplied raster (an SVG image drawn for a clip), as `withAlpha(_:…)` makes it.
    static func withAlpha(_ raster: LayerRaster, transparentShowing background: RGBAColor) throws(MediaError)
        -> VideoFrame {
        var straight = raster.pixels
        var index = 0
        while index < straight.count {
            let alpha = Int(straight[index + 3])
            if alpha > 0 && alpha < 255 {
                for channel in 0..<3 {
                    straight[index + channel] = UInt8(min(255, (Int(straight[index + channel]) * 255 + alpha / 2) / alpha))
                }
            }
            index += 4
        }
        return try withAlpha(straight: straight, width: raster.width, height: raster.height,
                             transparentShowing: background)
    }

    private static func withAlpha(straight: [UInt8], width: Int, height: Int,
                                  transparentShowing background: RGBAColor) throws(MediaError) -> VideoFrame {
        var pixels = straight
        var index = 0
        while index < pixels.count {
            if pixels[index + 3] == 0 {
                pixels[index] = background.red
                pixels[index + 1] = background.green
                pixels[index + 2] = background.blue
            }
            index += 4
        }
        let frame = try VideoFrame.rgba(width: width, height: height, pixels: pixels)
        return try Scaler().converted(frame, width: width, height: height, format: .yuva420p)
    }
}
