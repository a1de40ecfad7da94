package trace_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// TestTPOTEndsAtTheFinish: llama.cpp and vLLM count the end-of-sequence
// token (and a stop string's tokens) in usage's completion tokens but send
// them without text, so the N-th token arrives with the finish_reason chunk,
// not with the last text event. Three text tokens 10 ms apart and a
// text-less fourth by the finish 10 ms later: TPOT is the 10 ms step, not
// 20/3 ms. Without finish_ms (the unit's traces, imports) or when the
// events carry every token, t_N stays the last event.
func TestTPOTEndsAtTheFinish(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       float64
	}{
		{"finish after a text-less token", `{"attempt":"a","start_ms":0,"outcome":"ok","events":[{"t_ms":100},{"t_ms":110},{"t_ms":120}],"end_ms":140,"finish_ms":130,"quality":null,"output_tokens":4}`, 10},
		{"no finish_ms", `{"attempt":"a","start_ms":0,"outcome":"ok","events":[{"t_ms":100},{"t_ms":110},{"t_ms":120}],"end_ms":140,"quality":null,"output_tokens":4}`, 20.0 / 3},
		{"events carry every token", `{"attempt":"a","start_ms":0,"outcome":"ok","events":[{"t_ms":100},{"t_ms":110},{"t_ms":120}],"end_ms":140,"finish_ms":130,"quality":null,"output_tokens":3}`, 10},
		{"events carry every token, finish later", `{"attempt":"a","start_ms":0,"outcome":"ok","events":[{"t_ms":100},{"t_ms":110},{"t_ms":120}],"end_ms":140,"finish_ms":135,"quality":null}`, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := read(t, header, tc.line)
			if err != nil {
				t.Fatal(err)
			}
			a := tr.Attempts[0]
			if got, ok := a.TPOT(); !ok || got != tc.want {
				t.Errorf("TPOT = %v, %v; want %v", got, ok, tc.want)
			}
			// The writer gives back the same line (the reader's fast path
			// reads it), and so does the slow path on a reordered line.
			var b bytes.Buffer
			w, _ := trace.NewWriter(&b, tr.Header)
			if err := w.Write(&a); err != nil {
				t.Fatal(err)
			}
			w.Flush()
			if got := strings.SplitN(b.String(), "\n", 3)[1]; got != tc.line {
				t.Errorf("written\n%s\nwant\n%s", got, tc.line)
			}
			back, err := trace.Read(&b, "back")
			if err != nil {
				t.Fatal(err)
			}
			if y := back.Attempts[0]; y.HasFinish != a.HasFinish || y.FinishMS != a.FinishMS {
				t.Errorf("round trip: finish %v %v, want %v %v", y.HasFinish, y.FinishMS, a.HasFinish, a.FinishMS)
			}
		})
	}
	slow, err := read(t, header, `{"finish_ms":130,"attempt":"a","start_ms":0,"outcome":"ok","events":[{"t_ms":100},{"t_ms":110},{"t_ms":120}],"end_ms":140,"output_tokens":4}`)
	if err != nil {
		t.Fatal(err)
	}
	if a := slow.Attempts[0]; !a.HasFinish || a.FinishMS != 130 {
		t.Errorf("slow path: finish %v %v", a.HasFinish, a.FinishMS)
	}
}

// TestFinishValidated: the finish chunk arrives after the last text event
// and no later than the stream's end; anything else names the field.
func TestFinishValidated(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"attempt":"a","start_ms":0,"outcome":"ok","events":[{"t_ms":100},{"t_ms":120}],"end_ms":140,"finish_ms":110}`, "finish_ms: 110 is before the last event at 120"},
		{`{"attempt":"a","start_ms":0,"outcome":"ok","events":[{"t_ms":100},{"t_ms":120}],"end_ms":140,"finish_ms":150}`, "finish_ms: 150 is after end_ms 140"},
		{`{"attempt":"a","start_ms":50,"outcome":"empty_output","events":[],"end_ms":140,"finish_ms":40}`, "finish_ms: 40 is before start_ms 50"},
		{`{"attempt":"a","start_ms":0,"outcome":"ok","events":[{"t_ms":100}],"end_ms":140,"finish_ms":"x"}`, "finish_ms"},
		{`{"attempt":"a","start_ms":0,"outcome":"ok","events":[{"t_ms":100}],"end_ms":140,"finish_ms":120,"finish_ms":120}`, "finish_ms"},
	} {
		_, err := read(t, header, tc.line)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "t.jsonl:2") {
			t.Errorf("%s\ngot %v, want an error at t.jsonl:2 containing %q", tc.line, err, tc.want)
		}
	}
	// In flight (no end yet): only the lower bound applies.
	if _, err := read(t, header, `{"attempt":"a","start_ms":0,"outcome":"in_flight","events":[{"t_ms":100}],"end_ms":null,"finish_ms":120}`); err != nil {
		t.Errorf("in flight with a finish: %v", err)
	}
}
