package trace_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

func f64(v float64) *float64 { return &v }

// A run interrupted at 3012.5 ms of a planned 20 s window: the window ends
// at the interrupt, the header says so, and the trace reads back.
func TestRunEndInterrupted(t *testing.T) {
	h := trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 20000}, Conditions: json.RawMessage(`{"loop":"open"}`)}
	got, err := h.WithRunEnd(trace.RunEnd{Reason: trace.RunInterrupted, AtMS: f64(3012.5), PlannedDurationMS: 20000, PlannedWindow: h.Window})
	if err != nil {
		t.Fatal(err)
	}
	if got.Window != (trace.Window{StartMS: 0, EndMS: 3012.5}) {
		t.Errorf("window %+v", got.Window)
	}
	re, err := got.RunEnd()
	if err != nil || re == nil || !re.CutShort() || *re.AtMS != 3012.5 || re.PlannedDurationMS != 20000 {
		t.Fatalf("run end %+v, %v", re, err)
	}
	if !strings.Contains(string(got.Conditions), `"loop":"open"`) {
		t.Errorf("other conditions lost: %s", got.Conditions)
	}
	tr := writeRead(t, got, 0)
	if tr.Header.Window.EndMS != 3012.5 {
		t.Errorf("read back window %+v", tr.Header.Window)
	}

	// Interrupted during the warm-up: an empty (1 µs) window at its start.
	h.Window = trace.Window{StartMS: 5000, EndMS: 25000}
	w, err := h.WithRunEnd(trace.RunEnd{Reason: trace.RunInterrupted, AtMS: f64(1200), PlannedDurationMS: 20000, PlannedWindow: h.Window})
	if err != nil || w.Window.StartMS != 5000 || w.Window.EndMS != 5000.001 {
		t.Errorf("warm-up interrupt: %+v %v", w.Window, err)
	}
	// Interrupted after the window, while the last answers were streaming:
	// the window is whole, the run is not "cut short".
	d, err := h.WithRunEnd(trace.RunEnd{Reason: trace.RunInterrupted, AtMS: f64(26000), PlannedDurationMS: 20000, PlannedWindow: h.Window})
	if re, _ := d.RunEnd(); err != nil || d.Window != h.Window || re.CutShort() {
		t.Errorf("drain interrupt: %+v %v", d.Window, err)
	}
}

// The header written while the run is under way is padded so that the
// final one can replace it in place; the padding reads back.
func TestHeaderLinePadding(t *testing.T) {
	h := trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 1000}}
	planned, err := h.WithRunEnd(trace.RunEnd{Reason: trace.RunNotFinished, PlannedDurationMS: 1000, PlannedWindow: h.Window})
	if err != nil {
		t.Fatal(err)
	}
	line, err := trace.HeaderLine(planned, 600)
	if err != nil || len(line) != 601 || line[600] != '\n' || line[599] != ' ' {
		t.Fatalf("%d bytes, %v", len(line), err)
	}
	tr := writeRead(t, planned, 600)
	re, _ := tr.Header.RunEnd()
	if re.Reason != trace.RunNotFinished || !re.CutShort() {
		t.Errorf("run end %+v", re)
	}
	if _, err := trace.HeaderLine(planned, 20); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("too narrow: %v", err)
	}
}

func writeRead(t *testing.T, h trace.Header, width int) *trace.Trace {
	t.Helper()
	line, err := trace.HeaderLine(h, width)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.Write(line)
	tw := trace.NewAttemptWriter(&buf)
	if err := tw.Write(&trace.Attempt{ID: "a", StartMS: 1, Outcome: trace.InFlight}); err != nil {
		t.Fatal(err)
	}
	tw.Flush()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, buf.Bytes(), 0o644)
	tr, err := trace.ReadFile(path)
	if err != nil {
		t.Fatalf("does not read back: %v\n%s", err, buf.String())
	}
	return tr
}

// A malformed run_end is an error at line 1 naming the field; conditions
// without one, or that are not an object, are as before.
func TestRunEndBadInput(t *testing.T) {
	head := `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000},"conditions":`
	for _, c := range []struct{ cond, want string }{
		{`{"run_end":"stopped"}`, "t.jsonl:1: conditions.run_end: want {"},
		{`{"run_end":{"reason":"crashed","planned_duration_ms":1000,"planned_window":{"start_ms":0,"end_ms":1000}}}`, `conditions.run_end.reason: "crashed" is not a way a run ends`},
		{`{"run_end":{"reason":"interrupted","planned_duration_ms":1000,"planned_window":{"start_ms":0,"end_ms":1000}}}`, "conditions.run_end.at_ms: is given exactly when"},
		{`{"run_end":{"reason":"completed","at_ms":5,"planned_duration_ms":1000,"planned_window":{"start_ms":0,"end_ms":1000}}}`, "conditions.run_end.at_ms"},
		{`{"run_end":{"reason":"completed","planned_duration_ms":900,"planned_window":{"start_ms":0,"end_ms":1000}}}`, "planned_duration_ms: 900 is not the planned window's length 1000"},
		{`{"run_end":{"reason":"interrupted","at_ms":-1,"planned_duration_ms":1000,"planned_window":{"start_ms":0,"end_ms":1000}}}`, "at_ms: is negative"},
		{`{"run_end":{"reason":"completed","planned_duration_ms":500,"planned_window":{"start_ms":0,"end_ms":500}}}`, "window: [0, 1000) is not inside the planned window [0, 500)"},
		{`{"run_end":{"reason":"completed","planned_duration_ms":1000,"planned_window":{"start_ms":0,"end_ms":1000},"why":"x"}}`, `unknown field "why"`},
	} {
		_, err := trace.Read(strings.NewReader(head+c.cond+"}\n"), "t.jsonl")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "t.jsonl:1: ") {
			t.Errorf("%s: %v, want %q", c.cond, err, c.want)
		}
	}
	for _, cond := range []string{`{"loop":"open"}`, `"free text"`, `{"run_end":null}`} {
		tr, err := trace.Read(strings.NewReader(head+cond+"}\n"), "t.jsonl")
		if err != nil {
			t.Errorf("%s: %v", cond, err)
			continue
		}
		if re, err := tr.Header.RunEnd(); re != nil || err != nil {
			t.Errorf("%s: run end %+v %v", cond, re, err)
		}
	}
}

// run_end.sends is checked when read: planned is sent + unsent, and the
// lag's percentiles are ordered; a bad one names its field.
func TestRunEndSendsChecked(t *testing.T) {
	h := trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 3000}}
	good := trace.Sends{Planned: 59, Sent: 29, Unsent: 30, LagN: 29, LagP50MS: 382, LagP99MS: 1100, LagMaxMS: 1100}
	end := trace.RunEnd{Reason: trace.RunCompleted, PlannedDurationMS: 3000, PlannedWindow: h.Window, Sends: &good}
	got, err := h.WithRunEnd(end)
	if err != nil {
		t.Fatal(err)
	}
	if re, err := writeRead(t, got, 0).Header.RunEnd(); err != nil || re.Sends == nil || *re.Sends != good {
		t.Fatalf("read back %+v, %v", re, err)
	}
	for field, bad := range map[string]trace.Sends{
		"conditions.run_end.sends.planned":    {Planned: 58, Sent: 29, Unsent: 30},
		"conditions.run_end.sends.unsent":     {Planned: 28, Sent: 29, Unsent: -1},
		"conditions.run_end.sends.lag_p99_ms": {Planned: 1, Sent: 1, LagN: 1, LagP50MS: 5, LagP99MS: 4, LagMaxMS: 5},
	} {
		end.Sends = &bad
		if _, err := h.WithRunEnd(end); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%+v: error %v, want one naming %s", bad, err, field)
		}
	}
}
