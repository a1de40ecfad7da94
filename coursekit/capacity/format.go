package capacity

import (
	"math"
	"strconv"

	"github.com/llmperf-course/course/coursekit/internal/numfmt"
)

// The numbers of a step's load evidence, formatted once for every output
// (the stderr reason, the text and the chart): one value, one string.
//
// Bounds are rounded outwards, a low down and a high up, so that a printed
// interval always holds the true one. A bound that a rule compares with a
// limit ("below the offered 16.5/s", "wholly above 0") gets more decimals,
// up to six, until the printed comparison holds as the rule's did: a
// completion-rate high of 16.4976 below the offered 16.5 prints 16.498,
// not 16.5; a slope low of 0.0024 above 0 prints +0.002, not +0.00.

// boundDecimals is the decimals of a bound that no comparison needs more of.
const boundDecimals = 2

// down is v rounded down to d decimals; up is v rounded up.
func down(v float64, d int) float64 { p := math.Pow(10, float64(d)); return math.Floor(v*p+1e-9) / p }
func up(v float64, d int) float64   { p := math.Pow(10, float64(d)); return math.Ceil(v*p-1e-9) / p }

// low formats a low bound rounded down, with decimals added until it shows
// above limit when it is (a nil limit compares with nothing).
func low(v float64, limit *float64, signed bool) string {
	d := boundDecimals
	for limit != nil && v > *limit && down(v, d) <= *limit && d < 6 {
		d++
	}
	return fixed(down(v, d), d, signed)
}

// high formats a high bound rounded up, with decimals added until it shows
// below limit when it is.
func high(v float64, limit *float64, signed bool) string {
	d := boundDecimals
	for limit != nil && v < *limit && up(v, d) >= *limit && d < 6 {
		d++
	}
	return fixed(up(v, d), d, signed)
}

func fixed(v float64, d int, signed bool) string {
	if v == 0 {
		v = 0 // no "-0.00"
	}
	if signed {
		return numfmt.Signed(v, d)
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// LoadFigures are a LoadCheck's numbers as every output prints them.
type LoadFigures struct {
	Offered                                       string // the offered rate, as the step's rate is printed (Rate)
	CompletionPerS, CompletionLow, CompletionHigh string
	// Slope is offered − completed (λ − completions/T), signed: +4.23. It
	// is not the measured change of the in-flight count (InFlightStart →
	// InFlightEnd), and every output says what it is.
	Slope, SlopeLow, SlopeHigh string
	KeepUpBound, Resolution    string
	// SaturationShown is the saturation the window shows at least
	// (LoadCheck.SaturationShown), rounded down: 10.50 for 63 in 6 s.
	SaturationShown  string
	ExpectedInFlight string
	GrowthZ          string
	// Window is the window in seconds and ArrivalsExpected the arrivals
	// λW the offered rate plans in it, one decimal each (the sentence of a
	// window short of arrivals, LoadCheck.ArrivalsShortReason).
	Window, ArrivalsExpected string
}

// Figures formats c's numbers (LoadFigures).
func (c LoadCheck) Figures() LoadFigures {
	zero, offered := 0.0, c.OfferedPerS
	return LoadFigures{
		Offered:          Rate(c.OfferedPerS),
		CompletionPerS:   numfmt.Num(c.CompletionPerS), // as the card prints a rate: 117 in 8 s = 14.625
		CompletionLow:    low(c.CompletionLow, nil, false),
		CompletionHigh:   high(c.CompletionHigh, &offered, false),
		Slope:            numfmt.Signed(c.SlopePerS, boundDecimals),
		SlopeLow:         low(c.SlopeLow, &zero, true),
		SlopeHigh:        high(c.SlopeHigh, nil, true),
		KeepUpBound:      high(c.KeepUpBound, nonZero(c.Resolution), false),
		Resolution:       numfmt.Num(c.Resolution),
		SaturationShown:  low(c.SaturationShown(), nil, false),
		ExpectedInFlight: numfmt.Fixed(c.ExpectedInFlight, 1),
		GrowthZ:          numfmt.Fixed(c.GrowthZ, 1),
		Window:           numfmt.Fixed(c.WindowS, 1),
		ArrivalsExpected: numfmt.Fixed(c.ArrivalsExpected, 1),
	}
}

func nonZero(v float64) *float64 {
	if v == 0 {
		return nil
	}
	return &v
}

// Rate is an offered rate as every output prints it, the step traces'
// names included: at most three decimals (15.469), since a bisection's
// midpoints have more than a rate's precision means (15.46875).
func Rate(r float64) string { return numfmt.Num(r) }
