package tracefig_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Long attempt IDs (AIPerf's UUIDs) were clipped at the attempts chart's
// left edge, showing only "-dbe67831604c" (walk 35g F7). The y-axis shows
// "…" and an ID's last runes, distinct from every other row's, in a grid
// whose left margin fits them; each row's tooltip has the whole ID, and
// labels stay escaped. Short IDs are drawn whole.
func TestAttemptsAxisShortensLongIDs(t *testing.T) {
	ids := []string{
		"1fcf0778-086f-42e8-9c4c-dbe67831604c",
		"7f7154fe-31cf-4e56-b1a3-af9f2fb74b27",
		// the same last 12 runes as the first: both labels grow to differ
		"0000aaaa-086f-42e8-9c4c-dbe67831604c",
		"<script>alert(1)</script>-long-attempt-id",
		"q7",
	}
	var as []trace.Attempt
	for i, id := range ids {
		s := 100 + float64(i)*10
		as = append(as, trace.Attempt{ID: id, Request: id, StartMS: s, Outcome: trace.OK,
			Events: []trace.Event{{TMS: s + 50, Tokens: 1}}, EndMS: s + 80, HasEnd: true})
	}
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 1000}}, Attempts: as}
	m := decoded(t, tracefig.Attempts(tr, 1000, charts.WithID("a")))
	axis := m["yAxis"].([]any)[0].(map[string]any)["data"].([]any)
	seen := map[string]bool{}
	longest := 0
	for i, v := range axis {
		got := v.(string)
		longest = max(longest, utf8.RuneCountInString(got))
		if seen[got] {
			t.Errorf("label %q twice on a category axis", got)
		}
		seen[got] = true
		whole := draw.TipID(ids[i]) // escaped, not cut: the axis shows the id's own end
		switch {
		case ids[i] == "q7":
			if got != "q7" {
				t.Errorf("short ID drawn %q", got)
			}
		case !strings.HasPrefix(got, "…") || !strings.HasSuffix(whole, strings.TrimPrefix(got, "…")):
			t.Errorf("row %d: label %q is not \"…\" and the end of %q", i, got, whole)
		case i != 0 && i != 2 && utf8.RuneCountInString(got) != tracefig.AxisIDRunes+1:
			t.Errorf("row %d: label %q, want %d runes", i, got, tracefig.AxisIDRunes+1)
		}
		if strings.ContainsAny(got, "<>") {
			t.Errorf("label %q not escaped", got)
		}
	}
	if axis[0] == axis[2] || !strings.Contains(axis[2].(string), "0000aaaa") && utf8.RuneCountInString(axis[2].(string)) <= tracefig.AxisIDRunes+1 {
		t.Errorf("rows 0 and 2 share their tail and did not grow apart: %q, %q", axis[0], axis[2])
	}
	grid := m["grid"].([]any)[0].(map[string]any)
	if left := fmt.Sprint(grid["left"]); left == "90" && longest > 11 {
		t.Errorf("grid left %s px for labels up to %d runes", left, longest)
	}
	opt := string(option(t, tracefig.Attempts(tr, 1000, charts.WithID("a"))))
	for _, id := range ids[:3] {
		if !strings.Contains(opt, id+" · ") {
			t.Errorf("no tooltip holds the whole ID %q", id)
		}
	}
}
