package loadgen

import (
	"testing"
	"time"
)

// At 0.5 sends/s, a one-second interval holds 0 or 1 send: the progress
// rate is a trailing mean over RateSpan, not 0.0/s and 1.0/s in turn
// (issue 35).
func TestProgressRateTrailingMean(t *testing.T) {
	tr := trailingRate{span: RateSpan}
	tr.add(0, 0)
	sent := int64(0)
	for s := 1; s <= 20; s++ {
		if s%2 == 0 {
			sent++
		}
		got, span := tr.add(time.Duration(s)*time.Second, sent)
		if s >= 6 && (got < 0.3 || got > 0.7) {
			t.Errorf("at %d s: rate %.2f/s, want about 0.5/s", s, got)
		}
		if want := time.Duration(min(s, 5)) * time.Second; span != want {
			t.Errorf("at %d s: span %v, want %v", s, span, want)
		}
	}
	if len(tr.at) > 7 {
		t.Errorf("keeps %d reports, want those of the last %v", len(tr.at), RateSpan)
	}
	// Reports further apart than the span: the previous interval.
	wide := trailingRate{span: RateSpan}
	wide.add(0, 0)
	wide.add(10*time.Second, 30)
	if got, span := wide.add(20*time.Second, 40); got != 1 || span != 10*time.Second {
		t.Errorf("10 s intervals: rate %v over %v, want 1 over 10s (the last interval's)", got, span)
	}
}
