import Foundation
import Synchronization

/// `reel-fuzz TARGET …`: with `-DFUZZING` (and `-sanitize=fuzzer,address`, as `make fuzz` builds it) libFuzzer
/// drives TARGET with the remaining arguments as its own (corpus folders, `-max_total_time=N`, …); in an ordinary
/// build it replays files, `reel-fuzz TARGET FILE…`, so that a failing input can be run and debugged anywhere.
///
/// The entry point is this program's own `main`, which hands over to `LLVMFuzzerRunDriver`: SwiftPM links every
/// executable through a renamed `main` of its own, so libFuzzer's `main` cannot be used.
@main
struct FuzzMain {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: reel-fuzz \(names) [FILE… | libFuzzer arguments]\n".utf8))
            exit(64)
        }
        selectedTarget.withLock { $0 = target }
        #if FUZZING
        // libFuzzer reads argv[0] and its own flags; the target name is not one of them.
        let forwarded = [arguments[0]] + arguments.dropFirst(2)
        var pointers = forwarded.map { strdup($0) } + [nil]
        var count = Int32(forwarded.count)
        pointers.withUnsafeMutableBufferPointer { buffer in
            var base = buffer.baseAddress
            exit(fuzzerRunDriver(&count, &base, fuzzOneInput))
        }
        #else
        for path in arguments.dropFirst(2) {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("reel-fuzz: cannot read \(path)\n".utf8))
                exit(66)
            }
            target.run(Array(data))
        }
        #endif
    }
}

/// The target the command line named, set once before fuzzing starts.
private let selectedTarget = Mutex<FuzzTarget?>(nil)

/// One input: runs the selected target on `size` bytes at `data`.
private func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selectedTarget.withLock { $0 }?.run(bytes)
    return 0
}

#if FUZZING
/// libFuzzer's driver (compiler-rt's FuzzerInterface.h), linked in by `-sanitize=fuzzer`.
@_silgen_name("LLVMFuzzerRunDriver")
private func fuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32
#endif
