package capacity

import (
	"strings"
	"testing"
)

// Walk 35e, F1: the guide's search on the default simulator (saturation
// 14.3 req/s) met 15 req/s with 72 completed in 6 s, 9 of them begun before
// the window, in flight 9 → 26; its reason said "keeps up". The window
// shows a saturation of at least (72 − 9)/6 = 10.5/s, within --resolution
// 5 of the offered 15: the reason says that, not "keeps up".
func TestKeepsUpReasonWithinResolution(t *testing.T) {
	c, err := CheckLoad(LoadWindow{OfferedPerS: 15, WindowS: 6, Arrivals: 89, Completions: 72, InFlightStart: 9, InFlightEnd: 26, ExpectedInFlight: 20.564892, Resolution: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !c.KeepsUp || c.KeepUpBound != 4.5 || !c.WithinResolution() || c.SaturationShown() != 10.5 {
		t.Fatalf("fixture %+v: want KeepsUp within the resolution, bound 4.5, saturation ≥ 10.5", c)
	}
	r := c.keepsUpReason()
	if strings.Contains(r, "keeps up") {
		t.Errorf("reason %q says keeps up for a server that may be 4.50/s short", r)
	}
	want := "within the resolution: the window shows the server completes at least 10.50/s (saturation ≥ 10.50/s), so it may be short of the offered 15/s by up to 4.50/s ≤ --resolution 5/s"
	if r != want {
		t.Errorf("reason\n%q\nwant\n%q", r, want)
	}
	// A window that completed at least the offered rate keeps up.
	full, _ := CheckLoad(LoadWindow{OfferedPerS: 4, WindowS: 16, Arrivals: 64, Completions: 64, Resolution: 1})
	if full.WithinResolution() || !strings.HasPrefix(full.keepsUpReason(), "keeps up: completed at least the offered 4/s") {
		t.Errorf("a window that completed the offered rate: %q", full.keepsUpReason())
	}
}

// Walk 35e, F2, and walk 35h, item 2: at 20 req/s, 39 completed in 3 s
// (offered − completed +7.00/s, 95% [+2.22, +10.76]) while 61 arrived and
// in flight went 13 → 35 against an expected level of 25.6 (1.2 standard
// errors). The completions fell behind both the offered rate and the
// arrivals: that alone is overload (either signal fails a step), and the
// reason names it.
func TestCompletionsBehindAloneIsOverload(t *testing.T) {
	c, err := CheckLoad(LoadWindow{OfferedPerS: 20, WindowS: 3, Arrivals: 61, Completions: 39, InFlightStart: 13, InFlightEnd: 35, ExpectedInFlight: 25.592777, Resolution: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Overloaded || !c.FellBehind || c.Grew || c.GrowingUndecided || c.BelowOfferedOnly() {
		t.Fatalf("fixture %+v: want overloaded by completions alone", c)
	}
	if r := c.Reason(); !strings.HasPrefix(r, "overload: 39 completions in 3.00 s = 13/s, 95% [9.24, 17.78], below the offered 20/s and the window's 61 arrivals (completions fell behind)") || strings.Contains(r, "grew") {
		t.Errorf("reason %q", r)
	}
	// The in-flight count alone: 10 → 40 in 3 s at 20 req/s, 30 completed
	// of 60 arrivals, over an expected level of 12: growth 4.7 standard
	// errors while completions came in below the offered rate.
	g, _ := CheckLoad(LoadWindow{OfferedPerS: 20, WindowS: 3, Arrivals: 60, Completions: 30, InFlightStart: 10, InFlightEnd: 40, ExpectedInFlight: 12, Resolution: 5})
	if !g.Grew || !g.Overloaded {
		t.Errorf("in flight 10 → 40 over an expected 12: %+v", g)
	}
	// A burst the server keeps pace with: 54 arrived where 39 were
	// offered, 39 completed, in flight 7 → 22 over an expected 9 (2.3
	// standard errors): completions kept up with the offered rate, so the
	// growth is the burst's, not overload (seen at 13 req/s on a server
	// saturating at 25).
	b, _ := CheckLoad(LoadWindow{OfferedPerS: 13, WindowS: 3, Arrivals: 54, Completions: 39, InFlightStart: 7, InFlightEnd: 22, ExpectedInFlight: 9, Resolution: 5})
	if b.Overloaded || b.Grew || !(b.GrowthZ > overloadZ) {
		t.Errorf("a burst kept pace with: %+v", b)
	}
}

// Walk 35h, item 4: a light window, 9 arrivals where λW = 20 were
// planned, all 9 completed: the completions' interval lies below the
// offered rate but the server completed what came. Not overload, and the
// reason says fewer came, not that completions fell behind.
func TestLightWindowIsNotCalledBehind(t *testing.T) {
	c, err := CheckLoad(LoadWindow{OfferedPerS: 2, WindowS: 10, Arrivals: 9, Completions: 9, Resolution: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c.Overloaded || c.FellBehind || !c.BelowOfferedOnly() || !(c.SlopeLow > 0) {
		t.Fatalf("fixture %+v: want below the offered rate only", c)
	}
	r := c.notShownReason()
	want := "; completions came in below the offered rate (offered − completed 95% [+0.29, +1.59], wholly above 0), but not below the window's arrivals: the server completed what came; 9 arrivals in 10.0 s where λW ≈ 20.0 were expected"
	if !strings.Contains(r, want) || strings.Contains(r, "fell behind") {
		t.Errorf("reason\n%q\nlacks\n%q", r, want)
	}
	// A window whose completions' interval holds the offered rate says
	// nothing of it.
	even, _ := CheckLoad(LoadWindow{OfferedPerS: 15, WindowS: 6, Arrivals: 89, Completions: 72, InFlightStart: 9, InFlightEnd: 26, ExpectedInFlight: 20.564892, Resolution: 5})
	if even.BelowOfferedOnly() || strings.Contains(even.keepsUpReason(), "below the offered rate") {
		t.Errorf("completions' interval holds the offered rate, yet: %q", even.keepsUpReason())
	}
}

// A window whose completions were all begun before it shows no saturation
// of its own: its reason says so, not "completes at least 0.00/s" (walk
// 35i).
func TestNoSaturationShownReason(t *testing.T) {
	c, err := CheckLoad(LoadWindow{OfferedPerS: 0.5, WindowS: 4, Arrivals: 1, Completions: 4, InFlightStart: 4, InFlightEnd: 1, Resolution: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	r := c.keepsUpReason()
	if !strings.HasPrefix(r, "within the resolution: the window's 4 completions were all begun before it (4 in flight at its start), so it shows no saturation of its own") || strings.Contains(r, "0.00/s") {
		t.Errorf("reason %q", r)
	}
}
