/// LeakSanitizer suppressions for the test runner's own process only (`make asan`): LeakSanitizer asks every process
/// for `__lsan_default_suppressions`, and only the test runner links this library, so reel's processes keep the
/// plain list (scripts/sanitizers/lsan.supp) and every leak of their own is still reported.
///
/// Each entry was read in a full `make asan` run's report. None is reel's memory: Foundation's `Process` objects (and
/// the run-loop sources, URLs and argument arrays they hold) stay in a cycle of their own once a test has started and
/// killed a child (ExportSafetyTests signals `reel` through `start`, ProcessRunner.swift), and Swift 6.3.1's
/// `String(contentsOf:encoding:)` loses the buffer `readBytesFromFile` reads into. Library code the tests run in
/// this process (export sessions, the player item) is not matched by any entry, so its leaks are still reported.
@_cdecl("__lsan_default_suppressions")
public func leakSanitizerDefaultSuppressions() -> UnsafePointer<CChar> {
    // A static string's bytes live as long as the program and end with a NUL, as LeakSanitizer reads them.
    let suppressions: StaticString = """
        leak:readBytesFromFile
        leak:Foundation7ProcessC
        leak:CFRunLoopSourceCreate
        leak:FoundationEssentials9_SwiftURL
        leak:FoundationEssentials13RFC3986Parser
        leak:FoundationEssentials13URLComponents
        leak:removingURLPercentEncoding
        leak:ReelCLITests17ExportSafetyTests

        """
    return UnsafeRawPointer(suppressions.utf8Start).assumingMemoryBound(to: CChar.self)
}
