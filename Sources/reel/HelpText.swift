import ArgumentParser

/// The exit codes, for every command's --help and manual page, spelled from the codes of ExitStatus.swift.
let exitCodesHelp: String = {
    let codes: [(ExitCode, String)] = [
        (.success, "done"), (.usage, "usage: a wrong flag or argument"),
        (.invalid, "invalid project, or invalid data in a source"), (.missingInput, "missing or unreadable input"),
        (.unsupported, "unsupported codec, encoder or feature"), (.internalError, "internal error"),
        (.cannotCreate, "cannot create the output: it exists without --force,\n       or its folder is missing or not writable"),
        (.io, "I/O error, or standard output closed by its reader"), (.interrupted, "interrupted by SIGINT or SIGTERM"),
    ]
    // Padded by hand and kept under 80 columns: the help formatter wraps long lines without their indent.
    return "Exit codes:\n" + codes.map { code, meaning in
        let number = String(code.rawValue)
        return "  " + number + String(repeating: " ", count: 5 - number.count) + meaning
    }.joined(separator: "\n")
}()
