package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A metrics sidecar read as a trace is refused as what it is, not as a
// header with an unknown field "t_ms"; IsSidecarFile tells one from a trace.
func TestSidecarIsNotATrace(t *testing.T) {
	dir := t.TempDir()
	side := filepath.Join(dir, "run.jsonl.metrics.jsonl")
	long := `{"t_ms":1,"dur_ms":2,"values":{` + strings.Repeat(`"sim_requests_total{outcome=\"ok\"}":1,`, 3000) + `"sim_queue_depth":0}}` + "\n"
	if err := os.WriteFile(side, []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(side)
	if err == nil || !strings.Contains(err.Error(), side+":1: "+SidecarMsg) {
		t.Errorf("ReadFile(sidecar) = %v; want %q", err, SidecarMsg)
	}
	if !IsSidecarFile(side) {
		t.Errorf("IsSidecarFile(a sidecar with a %d-byte first line) = false", len(long))
	}
	tr := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(tr, []byte(`{"trace":"`+Version+`","clock":"monotonic","window":{"start_ms":0,"end_ms":1000}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{tr, filepath.Join(dir, "nosuch"), dir} {
		if IsSidecarFile(p) {
			t.Errorf("IsSidecarFile(%s) = true", p)
		}
	}
}
