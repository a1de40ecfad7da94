package card

import "testing"

// The consistency band is strict: one qualified attempt fewer than ten
// (exactly 10 % apart) is a wrong count, not a rounding.
func TestConsistentBandIsStrict(t *testing.T) {
	if consistent(9.0/16, 10.0/16, perSecTol) {
		t.Error("9/16 agrees with 10/16")
	}
	if !consistent(0.309, 5.0/16, perSecTol) || !consistent(0.2, 3.0/16+0.005, perSecTol) {
		t.Error("a rounding does not agree")
	}
}
