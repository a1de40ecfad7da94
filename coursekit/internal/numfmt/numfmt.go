// Package numfmt is the one number formatter behind every view of a
// summary: the card's text and Markdown, the report and the charts, the
// capacity search's text, the notebooks' tables and the import's
// comparison. Each function is one way of writing a number that a view
// uses; a view picks the function, never a format verb of its own, so the
// same number reads the same wherever it appears. The units the views
// print are constants here too, so that a view switches on a constant,
// never on a string it spells itself.
package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// Unit is a unit a view prints after a number.
type Unit = string

// The units of the card's distributions and measures.
const (
	UnitMS         Unit = "ms"       // milliseconds: TTFT, E2E, a gap between events
	UnitMSPerToken Unit = "ms/token" // TPOT, the server's decode time per token
	UnitPercent    Unit = "%"        // a share, times 100
	UnitNone       Unit = ""         // a bare number
)

// Exact is v the shortest way that reads back as v: 0.5, 4, 87.5, 1720
// (rates, SLOs and flags as given).
func Exact(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Clean is v without the float noise of arithmetic on trace times
// (4379.497 − 1000.1 = 3379.3970000000004): to the nanosecond when
// |v| ≥ 1 (a time in ms, finer than any trace clock's µs), else to 12
// significant digits (a share, a cost). The JSON card writes its floats so.
func Clean(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	if math.Abs(v) >= 1 {
		if r := math.Round(v*1e6) / 1e6; !math.IsInf(r*1e6, 0) {
			return r
		}
		return v
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return r
}

// Num is v rounded to at most three decimals, trailing zeros dropped: 0.5,
// 4, 87.5, 61.667. An overflowed number is ∞ or -∞, and NaN is ?.
func Num(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return "-∞"
	case math.IsNaN(v):
		return "?"
	}
	return Trim(v, 3)
}

// MS is a time in milliseconds at most one decimal: 700, 1720, 12.5 (a
// millisecond clock has no more); ? when it is not a number.
func MS(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "?"
	}
	return Exact(Round1(v))
}

// OneDecimal is v at most one decimal: 61.2, 4, 0.5.
func OneDecimal(v float64) string { return Exact(Round1(v)) }

// Round1 is v rounded to one decimal, the precision of MS, OneDecimal and Pct.
func Round1(v float64) float64 { return math.Round(v*10) / 10 }

// Trim is v with d decimals, trailing zeros and a trailing point dropped.
func Trim(v float64, d int) string {
	s := strconv.FormatFloat(v, 'f', d, 64)
	if d > 0 {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Fixed is v with exactly d decimals: 100.0, 0.50.
func Fixed(v float64, d int) string { return strconv.FormatFloat(v, 'f', d, 64) }

// Signed is v with exactly d decimals and its sign, + included, a
// negative one with the minus sign "−" (U+2212) as every other view prints
// a signed figure (compare's differences): +0.50, −3.25 (a slope, a
// change). A value that rounds to zero prints +0.00, never −0.00.
func Signed(v float64, d int) string {
	s := Fixed(math.Abs(v), d)
	if math.Signbit(v) && strings.Trim(s, "0.") != "" {
		return "−" + s
	}
	return "+" + s
}

// Cell is a number in a table cell: Exact, unless that takes more than 12
// characters, then 6 significant digits (0.1, not 0.100000; 1.23457e+15).
func Cell(v float64) string {
	s := Exact(v)
	if len(s) > 12 {
		s = strconv.FormatFloat(v, 'g', 6, 64)
	}
	return s
}

// Pct is a share (0.875) in percent at most one decimal: 87.5%, 100%.
func Pct(share float64) string { return Exact(Round1(share*100)) + "%" }

// PctFixed is a share in percent with exactly one decimal: 87.5%, 100.0%
// (the capacity search's column of attainments and intervals).
func PctFixed(share float64) string { return Fixed(share*100, 1) + "%" }

// Measure is a measured value with its unit, rounded for a reader the same
// way in cards, tables and chart labels: milliseconds whole from 1000 ms
// up and at one decimal below, a percentage at one decimal, anything else
// at three significant digits ("61.2 token/s", "0.526 次/s", whole from
// 1000 up). UnitNone prints the number alone. ok is false for a value that is
// not a number, which the caller names in its reader's language.
func Measure(v float64, unit Unit) (s string, ok bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "", false
	}
	decimals := 1
	switch {
	case unit == UnitMS && math.Abs(v) >= 1000:
		decimals = 0
	case unit == UnitMS || unit == UnitPercent:
	case v == 0:
		decimals = 0
	default:
		decimals = max(0, 2-int(math.Floor(math.Log10(math.Abs(v)))))
	}
	scale := math.Pow(10, float64(decimals))
	s = Exact(math.Round(v*scale) / scale)
	switch unit {
	case UnitNone:
		return s, true
	case UnitPercent:
		return s + "%", true
	}
	return s + " " + unit, true
}

// MiB is a byte count in mebibytes at one decimal: "512.0 MiB".
func MiB(n int64) string { return Fixed(float64(n)/(1<<20), 1) + " MiB" }
