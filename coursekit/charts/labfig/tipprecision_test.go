package labfig_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts/labfig"
)

// formatters are every tooltip text (a "formatter" key) in a decoded option.
func formatters(v any) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "formatter" {
				out = append(out, s)
			}
			out = append(out, formatters(e)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, formatters(e)...)
		}
	}
	return out
}

func hasTip(tips []string, parts ...string) bool {
	for _, s := range tips {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(s, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// The lab charts' tooltips printed milliseconds at one decimal (123.5)
// where the card prints three (123.457), and cut an attempt id at 40
// runes. They print the card's precision and the whole id (walk 35h).
func TestLabTooltipsCardPrecisionWholeID(t *testing.T) {
	long := "conversation-0f3c2a7e-5b1d-4c9a-8e2f-7a6b5c4d3e2f/turn-3/attempt-1" // 66 runes
	tr := labTrace()
	a := &tr.Attempts[0] // ok, sent at 0
	a.ID, a.Request = long, long
	a.Events[0].TMS = 123.456
	d := &tr.Attempts[3] // timeout without a first output, ended after 2000 ms
	d.EndMS = 3500.257
	b := &tr.Attempts[1] // ok, sent at 200: its TTFT is bin 0's P95
	b.Events[0].TMS = 200 + 201.234
	run := labfig.Run{Name: "开环", Trace: tr, Gauges: labRun("x").Gauges}

	tips := formatters(decoded(t, labfig.TTFT([]labfig.Run{run}, 0)))
	if !hasTip(tips, long, "TTFT 123.456 ms") {
		t.Errorf("TTFT chart: no tooltip with the whole id %q and TTFT 123.456 ms in %q", long, tips)
	}
	if !hasTip(tips, "d ·", "2000.257 ms 后放弃") {
		t.Errorf("TTFT chart: no tooltip giving up at 2000.257 ms in %q", tips)
	}
	tips = formatters(decoded(t, labfig.BusyVsTTFT(run, 1000)))
	if !hasTip(tips, "成功 TTFT P95 201.234 ms") {
		t.Errorf("busy chart: no bin tooltip with P95 201.234 ms in %q", tips)
	}
	v := 698.444
	tips = formatters(decoded(t, labfig.PercentileByN("t", "s", 0.95, "ms", []labfig.IntervalPoint{{N: 72, Value: &v, Low: fp(562.6), High: fp(979.125)}})))
	if !hasTip(tips, "P95 = 698.444 ms", "979.125 ms") {
		t.Errorf("interval chart: no tooltip at the card's precision in %q", tips)
	}
	er := engineRun()
	q0 := &er.Trace.Attempts[0]
	q0.ID = long
	q0.Events[0].TMS = 160.125
	q0.Meta = json.RawMessage(`{"server_timings":{"prompt_ms":157.4567}}`)
	tips = formatters(decoded(t, labfig.ServerSplit(er)))
	if !hasTip(tips, long, "TTFT 160.125 ms = 服务器 prompt_ms 157.457 ms + 其余 2.668 ms") {
		t.Errorf("server split: no tooltip with the whole id and the card's precision in %q", tips)
	}
}
