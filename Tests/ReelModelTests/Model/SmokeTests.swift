import Testing
import ReelModel
import ReelTime

@Test func smoke() {
    let text = """
    {"reel": 1, "output": {"path": "out.mp4", "sise": [1280, 720], "frameRate": 30, "preset": null},
     "assets": {"cat": {"path": "cat.mov"}, "music": {"path": "m.m4a"}},
     "timeline": {"clips": [{"asset": "cat", "in": 2, "out": 10}, {"gap": 1}, {"asset": "cat", "in": "1f", "duration": 4, "speed": 2, "volume": "-6dB"}, {"asset": "dog"}, {"asset": "cat", "in": 5, "out": 3}]}}
    """
    for d in readProject(text).diagnostics { print(d.humanText) }
    let ok = """
    {"reel": 1, "output": {"path": "out.mp4", "frameRate": 30},
     "assets": {"cat": {"path": "cat.mov"}, "wide": {"path": "w.mov"}},
     "timeline": {"clips": [{"asset": "cat", "in": 2, "out": 10}, {"gap": 1}, {"asset": "wide", "in": "1f", "duration": 4, "speed": 2, "volume": "-6dB"}, {"asset": "cat", "in": 1, "duration": 1, "speed": "1/3"}]}}
    """
    let (compiled, diags) = compileProject(ok, facts: ["cat": videoFacts(duration: t(20)), "wide": videoFacts(duration: t(20), width: 1920, height: 800)])
    for d in diags { print(d.humanText) }
    if let compiled {
        let text = ProjectWriter.explicitProject(compiled)
        print(text)
        let (again, d2) = compileProject(text, facts: [:])
        for d in d2 { print(d.humanText) }
        print(again == compiled)
    }
}
