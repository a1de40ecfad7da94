package trace_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// A sidecar line that is not a scrape is an error at FILE:LINE.
func TestReadScrapesBadLine(t *testing.T) {
	ok := `{"t_ms":0.1,"dur_ms":2,"values":{"llamacpp:requests_processing":1}}` + "\n"
	s, err := trace.ReadScrapes(strings.NewReader(ok+"\n"+`{"t_ms":1000,"dur_ms":1,"error":"EOF"}`+"\n"), "m.jsonl")
	if err != nil || len(s) != 2 || s[0].Values["llamacpp:requests_processing"] != 1 || s[1].Error != "EOF" {
		t.Fatalf("%+v %v", s, err)
	}
	for _, c := range []struct{ in, want string }{
		{ok + "{\"t_ms\":1,\n", "m.jsonl:2: "},
		{ok + ok + `{"t_ms":-4,"dur_ms":1}` + "\n", "m.jsonl:3: t_ms: -4"},
		{`{"tms":3}` + "\n", "m.jsonl:1: "},
	} {
		_, err := trace.ReadScrapes(strings.NewReader(c.in), "m.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !trace.IsBadInput(err) {
			t.Errorf("%q: %v, want %q…", c.in, err, c.want)
		}
	}
}

// The header names a file beside the trace, and nothing elsewhere.
func TestSidecarPath(t *testing.T) {
	h := func(name any) *trace.Header {
		b, _ := json.Marshal(map[string]any{"metrics_sidecar": name})
		return &trace.Header{Conditions: b}
	}
	p, ok, err := trace.SidecarPath(filepath.Join("runs", "t.jsonl"), h("t.jsonl.metrics.jsonl"))
	if !ok || err != nil || p != filepath.Join("runs", "t.jsonl.metrics.jsonl") {
		t.Errorf("%q %v %v", p, ok, err)
	}
	if _, ok, err := trace.SidecarPath("t.jsonl", &trace.Header{Conditions: []byte(`{"model":"m"}`)}); ok || err != nil {
		t.Errorf("no sidecar: %v %v", ok, err)
	}
	for _, bad := range []any{"../etc/passwd", "/abs/x", "", "..", 7} {
		if _, ok, err := trace.SidecarPath("t.jsonl", h(bad)); !ok || err == nil || !strings.Contains(err.Error(), "t.jsonl:1: conditions.metrics_sidecar") {
			t.Errorf("%v: ok %v, %v", bad, ok, err)
		}
	}
}
