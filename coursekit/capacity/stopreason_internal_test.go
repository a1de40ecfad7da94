package capacity

import (
	"strings"
	"testing"
)

// The search's stop reason said "bisected to 1 req/s", which reads like a
// rate it found; 1 req/s is the resolution: the reason says so, with the
// two rates it ended between, printed by the shared formatter.
func TestBisectedStopReasonNamesTheResolution(t *testing.T) {
	got := bisectedReason(15.08203125, 15.2109375, 0.25)
	for _, want := range []string{"--resolution 0.25 req/s", "15.082", "15.211"} {
		if !strings.Contains(got, want) {
			t.Errorf("stop reason %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "15.08203125") || strings.HasPrefix(got, "bisected to 0.25") {
		t.Errorf("stop reason %q", got)
	}
}
