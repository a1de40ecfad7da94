package loadgen_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/loadgen"
)

// The header says when (wall clock at the trace clock's origin, UTC),
// against what (the URL as given) and with what (the client build) the run
// was measured, and the trace reader accepts it.
func TestHeaderMetaStartURLClient(t *testing.T) {
	_, url := startSim(t, fast)
	given := url + "/v1/"
	before := time.Now()
	res, tr, _ := run(t, context.Background(), loadgen.Config{URL: given, Model: "m", Rate: 50, Duration: 60 * time.Millisecond})
	after := time.Now()
	var m struct {
		Tool, StartedAt, URL, Client string
	}
	raw := map[string]string{}
	if err := json.Unmarshal(tr.Header.Meta, &raw); err != nil {
		t.Fatalf("header meta %s: %v", tr.Header.Meta, err)
	}
	m.Tool, m.StartedAt, m.URL, m.Client = raw["tool"], raw["started_at"], raw["url"], raw["client"]
	at, err := time.Parse(time.RFC3339Nano, m.StartedAt)
	if err != nil {
		t.Fatalf("meta.started_at %q is not RFC 3339: %v", m.StartedAt, err)
	}
	if !strings.HasSuffix(m.StartedAt, "Z") {
		t.Errorf("meta.started_at %q is not UTC", m.StartedAt)
	}
	if at.Before(before.Truncate(time.Microsecond)) || at.After(after) || !at.Equal(res.Start.Truncate(time.Microsecond).UTC()) {
		t.Errorf("meta.started_at %v: want the run's start %v (between %v and %v)", at, res.Start, before, after)
	}
	if m.URL != given {
		t.Errorf("meta.url %q, want the URL as given %q", m.URL, given)
	}
	if m.Client != coursekit.ClientVersion() || !strings.HasPrefix(m.Client, "coursekit "+coursekit.Version) {
		t.Errorf("meta.client %q, want %q", m.Client, coursekit.ClientVersion())
	}
	if m.Tool != "coursekit bench" {
		t.Errorf("meta.tool %q", m.Tool)
	}
}
