// What every end-to-end test gets with `import ReelTestSupport`: the process-free helpers too (TemporaryDirectory,
// Workplace), so a test file needs one import whichever layer a helper lives in.
@_exported import ReelUnitTestSupport
