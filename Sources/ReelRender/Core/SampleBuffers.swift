/// Planar float sample buffers owned by one object: `channels` planes of `capacity` samples each.
final class SampleBuffers {
    /// The number of planes.
    let channels: Int
    /// Samples per plane.
    let capacity: Int
    /// One plane per channel, `capacity` samples each, zeroed when made; freed with the object.
    let planes: [UnsafeMutablePointer<Float>]

    /// Zeroed buffers of `channels` × `capacity` samples.
    init(channels: Int, capacity: Int) {
        self.channels = channels
        self.capacity = capacity
        planes = (0..<channels).map { _ in
            let plane = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
            plane.initialize(repeating: 0, count: capacity)
            return plane
        }
    }

    deinit {
        for plane in planes { plane.deallocate() }
    }

    /// Zeroes the first `sampleCount` samples of every plane.
    func clear(sampleCount: Int) {
        for plane in planes { plane.update(repeating: 0, count: sampleCount) }
    }

    /// The planes, for reading.
    var readOnly: [UnsafePointer<Float>] { planes.map { UnsafePointer($0) } }
}
