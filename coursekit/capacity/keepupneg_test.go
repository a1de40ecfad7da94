package capacity

import (
	"strings"
	"testing"
)

// A window that completed more than the offered rate keeps up, and its
// reason does not say "short by at most -0.25/s" (issue 35); the bound
// itself stays as computed.
func TestKeepsUpReasonNegativeBound(t *testing.T) {
	c, err := CheckLoad(LoadWindow{OfferedPerS: 12, WindowS: 4, Arrivals: 48, Completions: 50, InFlightStart: 1, Resolution: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c.KeepUpBound != -0.25 || !c.KeepsUp {
		t.Fatalf("%+v: want keeps up, bound -0.25", c)
	}
	r := c.keepsUpReason()
	if strings.Contains(r, "-0.25") || !strings.Contains(r, "completed at least the offered 12/s") {
		t.Errorf("reason %q", r)
	}
}
