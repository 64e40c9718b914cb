import Testing
@testable import ReelTime

@Suite struct RationalTests {
    @Test(arguments: [
        (Rational(2, 4), Int64(1), Int64(2)),
        (Rational(3, -6), -1, 2),
        (Rational(-30000, -1001), 30000, 1001),
        (Rational(0, -5), 0, 1),
        (Rational(.min, -2), 1 << 62, 1),
        (Rational(7), 7, 1),
    ])
    func reduces(rational: Rational, numerator: Int64, denominator: Int64) {
        #expect(rational.numerator == numerator)
        #expect(rational.denominator == denominator)
    }

    @Test func checkedReportsInsteadOfTrapping() throws {
        #expect(throws: TimeError.divisionByZero) { try Rational.checked(1, 0) }
        #expect(throws: TimeError.overflow) { try Rational.checked(.min, -1) }
        #expect(try Rational.checked(6, -4) == Rational(-3, 2))
    }

    @Test func inverse() throws {
        #expect(try Rational(30000, 1001).inverse == Rational(1001, 30000))
        #expect(try Rational(-2, 3).inverse == Rational(-3, 2))
        #expect(throws: TimeError.divisionByZero) { try Rational.zero.inverse }
        #expect(throws: TimeError.overflow) { try Rational(.min).inverse }
    }

    @Test func arithmetic() throws {
        #expect(try Rational(30000, 1001).multiplied(by: Rational(1001, 1000)) == Rational(30))
        #expect(try Rational(1, 2).divided(by: Rational(3, 4)) == Rational(2, 3))
        #expect(try Rational(1, 2) + Rational(1, 3) == Rational(5, 6))
        #expect(try Rational(1, 2) - Rational(1, 3) == Rational(1, 6))
        #expect(throws: TimeError.overflow) { try Rational(.max).multiplied(by: Rational(2)) }
        #expect(throws: TimeError.overflow) { try Rational(.max) + Rational(1) }
        #expect(throws: TimeError.overflow) { try Rational(.min) - Rational(1) }
        #expect(throws: TimeError.divisionByZero) { try Rational(1).divided(by: .zero) }
        #expect(try Rational(-5, 2).rounded(.nearest) == -3)
        #expect(try Rational(-5, 2).rounded(.up) == -2)
    }

    @Test func comparesAndDescribes() {
        #expect(Rational(30000, 1001) < Rational(30))
        #expect(Rational(24000, 1001) > Rational(2397, 100))
        #expect(Rational(.min) < Rational(.max))
        #expect(Rational(30000, 1001).description == "30000/1001")
        #expect(Rational(25, 2).description == "12.5")
        #expect(Rational(25).description == "25")
        #expect(Rational(1, 4).doubleValue == 0.25)
    }
}
