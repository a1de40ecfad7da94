package loadgen

import (
	"strings"
	"testing"
	"time"
)

// A tick's lag is one number in both places it is printed: an attempt's
// meta.client_lag_ms (the card's "at most") and the run's distribution
// (bench's "max"). Walk 35l read the same tick as 381.334 in the card and
// 381.335 in bench: the meta truncated it to the µs, the distribution
// rounded it.
func TestClientLagOneNumberPerTick(t *testing.T) {
	start := time.Now()
	p := &latenessProbe{start: start, done: make(chan struct{})}
	lag := 381334800 * time.Nanosecond // 381.3348 ms
	p.record(start.Add(10*time.Millisecond), lag)
	meta := string(p.appendMeta([]byte(`{}`), 0, 100))
	st := p.stop()
	if want := `"client_lag_ms":381.335`; !strings.Contains(meta, want) {
		t.Errorf("meta %s, want %s (the µs the distribution rounds to)", meta, want)
	}
	if st.Max != 381.335 || st.N != 1 {
		t.Errorf("distribution %+v, want max 381.335 of 1 tick", st)
	}
	if got := p.maxDuring(0, 100); got != st.Max {
		t.Errorf("an attempt's lag %v, the run's max %v: the same tick", got, st.Max)
	}
}
