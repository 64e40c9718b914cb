import Foundation

/// A real browser for tests of the pages reel writes: Debian's `chromium`, headless, through the one process runner.
///
/// `probe(page:script:in:)` opens a copy of the page with two additions and nothing else changed: a first script in
/// `<head>` that records every console error, uncaught exception and content-security-policy violation, and the
/// test's `script` at the end of `<body>`. The script runs after the page's `load` event, may click and wait (the
/// browser runs with a virtual-time budget, so timers fire without real waiting), and ends by calling
/// `reelProbeDone(value)`, which writes `{"errors": [...], "resources": [...], "result": value}` as JSON into the
/// DOM; `--dump-dom` prints the DOM and the JSON is read back from it. `resources` lists every resource the page
/// fetched (Resource Timing), which a self-contained page keeps empty.
public enum HeadlessBrowser {
    /// The chromium executable, or nil when it is not installed.
    public static var path: String? { toolPath("chromium") ?? toolPath("chromium-browser") }

    /// Whether a browser is present, for `.enabled(if:)`.
    public static var isPresent: Bool { path != nil }

    /// What a probe found.
    public struct Probe: @unchecked Sendable {
        /// Console errors, uncaught exceptions and blocked loads, as text.
        public let errors: [String]
        /// URLs of resources the page fetched.
        public let resources: [String]
        /// The value the script passed to `reelProbeDone`.
        public let result: Any
        /// Chromium's own log (standard error), for messages.
        public let log: String
    }

    /// Opens `page` with `script` appended (see the type's comment) in a headless browser whose scratch profile
    /// lives in `folder`, and returns what the script reported.
    public static func probe(page: URL, script: String, in folder: URL, width: Int = 1400, height: Int = 1000) throws
        -> Probe
    {
        guard let path else { throw SupportError("chromium is not installed") }
        let html = try String(contentsOf: page, encoding: .utf8)
        let recorder = """
            <script>window.__reelErrors=[];\
            (function(){var e=console.error;console.error=function(){window.__reelErrors.push('console.error: '+\
            Array.prototype.join.call(arguments,' '));e.apply(console,arguments);};\
            window.addEventListener('error',function(ev){window.__reelErrors.push('error: '+(ev.message||\
            (ev.target&&(ev.target.src||ev.target.href))||'a resource failed'));},true);\
            window.addEventListener('unhandledrejection',function(ev){window.__reelErrors.push('rejection: '+ev.reason);});\
            document.addEventListener('securitypolicyviolation',function(ev){window.__reelErrors.push('blocked: '+\
            ev.blockedURI+' ('+ev.violatedDirective+')');});})();\
            window.reelProbeDone=function(value){var pre=document.createElement('pre');pre.id='reel-probe-result';\
            pre.textContent=JSON.stringify({errors:window.__reelErrors,resources:\
            performance.getEntriesByType('resource').map(function(r){return r.name;}),result:value});\
            document.body.appendChild(pre);};</script>
            """
        guard let head = html.range(of: "<head>"), let bodyEnd = html.range(of: "</body>", options: .backwards) else {
            throw SupportError("\(page.path) has no <head> or </body>")
        }
        var probed = html
        let probeScript = "<script>window.addEventListener('load',function(){try{\(script)}catch(e){"
            + "window.__reelErrors.push('probe: '+e);reelProbeDone(null);}});</script>"
        probed.replaceSubrange(bodyEnd.lowerBound..<bodyEnd.lowerBound, with: probeScript)
        probed.replaceSubrange(head.upperBound..<head.upperBound, with: recorder)
        let copy = folder.appendingPathComponent("probed-" + page.lastPathComponent)
        try probed.write(to: copy, atomically: true, encoding: .utf8)
        let profile = folder.appendingPathComponent("chromium-profile-\(UUID().uuidString)")
        let result = try run(path, [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--disable-background-networking", "--user-data-dir=\(profile.path)", "--window-size=\(width),\(height)",
            "--virtual-time-budget=10000", "--run-all-compositor-stages-before-draw", "--dump-dom",
            copy.absoluteString,
        ], timeout: .seconds(180))
        try? FileManager.default.removeItem(at: profile)
        let dom = result.stdoutText
        guard let first = dom.range(of: "<pre id=\"reel-probe-result\">", options: .backwards),
              let last = dom.range(of: "</pre>", range: first.upperBound..<dom.endIndex)
        else {
            throw SupportError("the probe reported nothing (status \(result.status)): \(result.stderrText.suffix(1500))")
        }
        let text = String(dom[first.upperBound..<last.lowerBound])
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
                as? [String: Any]
        else { throw SupportError("the probe's report is not a JSON object: \(text.prefix(400))") }
        return Probe(errors: object["errors"] as? [String] ?? ["no error list"],
                     resources: object["resources"] as? [String] ?? ["no resource list"],
                     result: object["result"] ?? NSNull(), log: result.stderrText)
    }

    /// Writes a PNG screenshot of `page` to `screenshot` (for docs/), `width` × `height` CSS pixels.
    public static func screenshot(page: URL, to screenshot: URL, in folder: URL, width: Int = 1280, height: Int = 2400)
        throws
    {
        guard let path else { throw SupportError("chromium is not installed") }
        let profile = folder.appendingPathComponent("chromium-profile-\(UUID().uuidString)")
        let result = try run(path, [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
            "--user-data-dir=\(profile.path)", "--window-size=\(width),\(height)", "--virtual-time-budget=5000",
            "--screenshot=\(screenshot.path)", page.absoluteString,
        ], timeout: .seconds(180))
        try? FileManager.default.removeItem(at: profile)
        try result.check("chromium")
    }
}
