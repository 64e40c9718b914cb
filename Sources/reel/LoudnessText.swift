import Foundation
import ReelMedia
import ReelModel
import ReelRender

/// Loudness measurements and reports as lines for a person and as JSON (`render`'s report and last progress line,
/// `inspect --loudness`).
enum LoudnessText {
    private static func number(_ value: Double?, _ digits: Int = 2) -> String {
        guard let value, value.isFinite else { return "null" }
        let text = String(format: "%.\(digits)f", value)
        return text == "-0.00" ? "0.00" : text
    }

    /// `-16.00 LUFS, LRA 5.20 LU, true peak -1.20 dBTP`.
    static func text(_ measurement: LoudnessMeasurement) -> String {
        let integrated = measurement.integrated.map { number($0) + " LUFS" } ?? "below the -70 LUFS gate"
        let peak = measurement.truePeak.map { number($0) + " dBTP" } ?? "none (digital silence)"
        return "\(integrated), LRA \(number(measurement.range)) LU, true peak \(peak)"
    }

    /// `{"integrated":-16.00,"range":5.20,"truePeak":-1.20,"samples":480000}`; null for a value not measured.
    static func json(_ measurement: LoudnessMeasurement) -> String {
        "{\"integrated\":\(number(measurement.integrated)),\"range\":\(number(measurement.range)),"
            + "\"truePeak\":\(number(measurement.truePeak)),\"samples\":\(measurement.sampleCount)}"
    }

    static func json(_ target: LoudnessTarget) -> String {
        "{\"integrated\":\(ProjectWriter.numberText(target.integrated)),"
            + "\"truePeak\":\(ProjectWriter.numberText(target.truePeak)),"
            + "\"range\":\(target.range.map(ProjectWriter.numberText) ?? "null")}"
    }

    /// The render's loudness report, one or more lines.
    static func text(_ report: LoudnessReport) -> String {
        var lines = ["loudness: input \(text(report.input))"]
        if report.belowGate {
            lines.append("  the mix is below the -70 LUFS absolute gate (silent or near-silent): left as it is, "
                         + "not amplified")
        } else {
            let gain = (report.gainDB >= 0 ? "+" : "") + number(report.gainDB)
            var applied = "  gain \(gain) dB"
            if report.limiterEngaged {
                applied += "; true-peak limiter engaged (ceiling \(number(report.limiterCeiling)) dBTP): "
                    + "\(report.limitedSampleCount) samples turned down, by \(number(-report.deepestReductionDB)) dB "
                    + "at most"
            } else {
                applied += "; limiter not needed"
            }
            lines.append(applied)
        }
        lines.append("  output \(text(report.output))")
        if let encoded = report.encoded { lines.append("  encoded \(text(encoded))") }
        if let miss = report.miss { lines.append("  warning: " + miss) }
        if report.rangeExceeded, let range = report.target.range {
            lines.append("  warning: the loudness range \(number(report.output.range)) LU exceeds the target's "
                         + "\(ProjectWriter.numberText(range)) LU (reported, not compressed)")
        }
        return lines.joined(separator: "\n")
    }

    /// The render's loudness report as one JSON object.
    static func json(_ report: LoudnessReport) -> String {
        "{\"target\":\(json(report.target)),\"input\":\(json(report.input)),\"output\":\(json(report.output)),"
            + "\"encoded\":\(report.encoded.map(json) ?? "null"),"
            + "\"miss\":\(report.miss.map(JSONWriter.quoted) ?? "null"),"
            + "\"gain\":\(number(report.belowGate ? 0 : report.gainDB)),\"belowGate\":\(report.belowGate),"
            + "\"limiter\":{\"engaged\":\(report.limiterEngaged),\"ceiling\":\(number(report.limiterCeiling)),"
            + "\"samples\":\(report.limitedSampleCount),\"deepestReduction\":\(number(report.deepestReductionDB))},"
            + "\"rangeExceeded\":\(report.rangeExceeded),\"measuringPasses\":\(report.measuringPasses)}"
    }
}
