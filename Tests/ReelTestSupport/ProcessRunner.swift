import Foundation
import Synchronization

/// A failure of a test-support helper: a tool that could not be started, exited
/// with an error, did not finish in time, or produced output the helper cannot interpret.
public struct SupportError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, including the tool's stderr when there was one.
    public let message: String

    /// Makes an error with the given message.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// The outcome of a finished child process.
public struct ProcessResult: Sendable {
    /// The exit status, or the signal number when the process was killed by a signal.
    public let status: Int32
    /// Whether the process ended by a signal rather than by exiting.
    public let terminatedBySignal: Bool
    /// Everything the process wrote to stdout.
    public let stdout: Data
    /// Everything the process wrote to stderr.
    public let stderr: Data

    /// stdout decoded as UTF-8 (invalid bytes replaced).
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// stderr decoded as UTF-8 (invalid bytes replaced).
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

/// How long a child process may run before the runner kills it (SIGKILL) and throws: a guard against a hung tool
/// holding the whole suite, not a performance bound. 30 minutes, far above the slowest render the suites start even
/// under AddressSanitizer; `REEL_TEST_PROCESS_TIMEOUT` (seconds) replaces it.
public let defaultProcessTimeout: Duration = {
    let seconds = ProcessInfo.processInfo.environment["REEL_TEST_PROCESS_TIMEOUT"].flatMap { Int($0) } ?? 1800
    return .seconds(max(1, seconds))
}()

/// Runs a program to completion and collects its output.
///
/// An ffmpeg call that reads only lavfi sources and writes one file runs once per test process: later identical
/// calls get a copy of its file and its result (`GeneratedMedia`).
/// stdout and stderr are drained on their own threads while stdin is written on a
/// third, so a child that writes a lot before reading (or the other way round)
/// never deadlocks on a full pipe.
/// - Parameters:
///   - executable: a path (anything containing `/`) or a program name looked up in `PATH`.
///   - args: the arguments, without the program name.
///   - stdin: bytes fed to the child's stdin, which is then closed; `nil` gives it an empty stdin.
///   - environment: variables added to (or replacing entries of) this process's environment;
///     `nil` inherits it unchanged.
///   - directory: the child's working directory; `nil` keeps this process's.
///   - timeout: how long the child may run; it is then killed and `SupportError` thrown.
/// - Throws: `SupportError` when the program cannot be found or started, or outlives `timeout`.
///   A non-zero exit is not an error: check `status`.
public func run(
    _ executable: String,
    _ args: [String],
    stdin: Data? = nil,
    environment: [String: String]? = nil,
    in directory: URL? = nil,
    timeout: Duration = defaultProcessTimeout
) throws -> ProcessResult {
    // Media made from lavfi sources alone is made once per test process (GeneratedMedia).
    if executable == "ffmpeg", stdin == nil, environment == nil, directory == nil,
       let output = GeneratedMedia.output(ofGenerating: args) {
        let key = (args.dropLast() + [output.pathExtension]).joined(separator: "\u{1F}")
        return try GeneratedMedia.result(key: key, output: output) { file in
            try start(executable, args.dropLast() + [file.path]).wait(timeout: timeout)
        }
    }
    return try start(executable, args, stdin: stdin, environment: environment, in: directory).wait(timeout: timeout)
}

/// Runs a program whose stdin is produced by `writeInput` on a separate thread.
///
/// `writeInput` may write any amount; the handle is closed after it returns or throws.
/// A write failing because the child closed its stdin early (EPIPE) ends the input quietly.
func run(
    _ executable: String,
    _ args: [String],
    environment: [String: String]?,
    timeout: Duration = defaultProcessTimeout,
    writeInput: @escaping @Sendable (FileHandle) throws -> Void
) throws -> ProcessResult {
    try RunningProcess(executable, args, environment: environment, directory: nil, writeInput: writeInput)
        .wait(timeout: timeout)
}

/// Runs a program and returns its stdout, throwing with its stderr if it fails.
@discardableResult
public func runChecked(_ executable: String, _ args: [String], stdin: Data? = nil,
                       timeout: Duration = defaultProcessTimeout) throws -> Data {
    let result = try run(executable, args, stdin: stdin, timeout: timeout)
    try result.check(executable)
    return result.stdout
}

/// Starts a program and returns at once, for a test that watches it run (its files, its progress) or signals it.
///
/// Its stdout and stderr are collected as `run` collects them; `wait(timeout:)` returns them.
/// - Parameters: as for `run`.
/// - Throws: `SupportError` when the program cannot be found or started.
public func start(
    _ executable: String,
    _ args: [String],
    stdin: Data? = nil,
    environment: [String: String]? = nil,
    in directory: URL? = nil
) throws -> RunningProcess {
    try RunningProcess(executable, args, environment: environment, directory: directory) { handle in
        if let stdin, !stdin.isEmpty {
            try handle.write(contentsOf: stdin)
        }
    }
}

/// A child process started by `start`: the one place the test suites create a `Process`.
///
/// If the object goes away while the child still runs, the child is killed, so a failed expectation never
/// leaves a render running behind the suite.
public final class RunningProcess {
    private let process = Process()
    private let exited = DispatchSemaphore(value: 0)
    private let output: Completion<Data>
    private let errors: Completion<Data>
    private let inputDone: Completion<Bool>
    private let name: String

    fileprivate init(
        _ executable: String,
        _ args: [String],
        environment: [String: String]?,
        directory: URL?,
        writeInput: @escaping @Sendable (FileHandle) throws -> Void
    ) throws {
        ignoreBrokenPipeSignal()
        name = executable
        process.executableURL = try resolveExecutable(executable)
        process.arguments = args
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        if let directory {
            process.currentDirectoryURL = directory
        }
        let inputPipe = Pipe()
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardInput = inputPipe
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        let exited = exited
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            throw SupportError("cannot start \(executable): \(error)")
        }
        output = drainInBackground(outputPipe.fileHandleForReading)
        errors = drainInBackground(errorPipe.fileHandleForReading)
        inputDone = onThread {
            let handle = inputPipe.fileHandleForWriting
            try? writeInput(handle)
            try? handle.close()
        }
    }

    /// The child's process id.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Whether the child has not exited yet.
    public var isRunning: Bool { process.isRunning }

    /// The exit status, or the signal number when a signal ended the child; meaningful once `isRunning` is false.
    public var terminationStatus: Int32 { process.terminationStatus }

    /// Whether a signal ended the child rather than an exit; meaningful once `isRunning` is false.
    public var terminatedBySignal: Bool { process.terminationReason == .uncaughtSignal }

    /// Sends `signal` (SIGINT, SIGTERM, …) to the child.
    public func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the child to exit and returns what it wrote.
    /// - Throws: `SupportError` when it is still running after `timeout`; it is killed first.
    public func wait(timeout: Duration = defaultProcessTimeout) throws -> ProcessResult {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        if exited.wait(timeout: .now() + seconds) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
            exited.signal()
            inputDone.wait()
            _ = output.wait()
            _ = errors.wait()
            throw SupportError("\(name) did not finish within \(timeout) and was killed")
        }
        // Later calls find the child exited too.
        exited.signal()
        process.waitUntilExit()
        inputDone.wait()
        return ProcessResult(
            status: process.terminationStatus,
            terminatedBySignal: process.terminationReason == .uncaughtSignal,
            stdout: output.wait(),
            stderr: errors.wait()
        )
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
    }
}

extension ProcessResult {
    /// Throws unless the process exited with status 0.
    func check(_ name: String) throws {
        guard !terminatedBySignal, status == 0 else {
            let how = terminatedBySignal ? "was killed by signal \(status)" : "exited with status \(status)"
            throw SupportError("\(name) \(how): \(stderrText)")
        }
    }
}

/// The absolute URL of a program: `name` itself when it contains a `/`, else its first
/// executable match in `PATH`.
func resolveExecutable(_ name: String) throws -> URL {
    if name.contains("/") {
        return URL(fileURLWithPath: name)
    }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") where !directory.isEmpty {
        let candidate = String(directory) + "/" + name
        if FileManager.default.isExecutableFile(atPath: candidate) {
            return URL(fileURLWithPath: candidate)
        }
    }
    throw SupportError("\(name) not found in PATH")
}

/// The path of `tool` in `PATH`, or nil: for `.enabled(if:)` conditions naming a tool a test needs.
public func toolPath(_ tool: String) -> String? {
    (try? resolveExecutable(tool))?.path
}

// Writing to a child that has exited must fail with EPIPE, not kill the test process.
private let brokenPipeSignalIgnored: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()

private func ignoreBrokenPipeSignal() {
    brokenPipeSignalIgnored
}

/// A value filled in once by a background thread and read after it finishes.
private final class Completion<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    private let finished = DispatchSemaphore(value: 0)

    init(_ placeholder: Value) {
        value = Mutex(placeholder)
    }

    func finish(_ result: Value) {
        value.withLock { $0 = result }
        finished.signal()
    }

    @discardableResult
    func wait() -> Value {
        finished.wait()
        finished.signal()
        return value.withLock { $0 }
    }
}

// Dedicated threads, not the cooperative pool: these block in read/write for as long
// as the child runs.
private func onThread(_ body: @escaping @Sendable () -> Void) -> Completion<Bool> {
    let completion = Completion(false)
    let thread = Thread {
        body()
        completion.finish(true)
    }
    thread.start()
    return completion
}

private func drainInBackground(_ handle: FileHandle) -> Completion<Data> {
    let completion = Completion(Data())
    let thread = Thread {
        let data = (try? handle.readToEnd()) ?? Data()
        completion.finish(data)
    }
    thread.start()
    return completion
}

/// Waits up to `seconds` for `condition`, polling every 5 ms; true if it held.
public func waitUntil(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(5_000)
    }
    return try condition()
}
