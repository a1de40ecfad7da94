package compare

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
)

// compare --format json printed "a": 323.3000000000029 and "low":
// -13.899999999994316 where card --format json prints 323.3: the float
// noise of arithmetic on trace times. It writes its floats as the JSON card
// does, and they read back as the cleaned values.
func TestJSONWithoutFloatNoise(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	r := &Result{Metrics: []Metric{{
		Name: "ttft_ms.p95", A: f(323.3000000000029), B: f(309.40000000000873), Diff: f(-13.899999999994316),
		Rel: f(-0.042994123105482906), CI95: Bounds{Low: f(-13.899999999994316), High: f(2.1000000000058208)},
		ARuns: []*float64{f(323.3000000000029), nil}, BRuns: []*float64{f(309.40000000000873)},
		Method: "bootstrap", Verdict: Same,
	}}}
	var out bytes.Buffer
	if err := Write(&out, r, cardfmt.JSON, lang.EN); err != nil {
		t.Fatal(err)
	}
	j := out.String()
	for _, want := range []string{`"a": 323.3,`, `"b": 309.4,`, `"diff": -13.9,`, `"low": -13.9,`, `"high": 2.1`, `"rel": -0.0429941231055,`} {
		if !strings.Contains(j, want) {
			t.Errorf("compare's JSON lacks %s:\n%s", want, j)
		}
	}
	if strings.Contains(j, "0000000") || strings.Contains(j, "9999") {
		t.Errorf("compare's JSON keeps float noise:\n%s", j)
	}
	var back Result
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if m := back.Metrics[0]; *m.A != 323.3 || *m.CI95.Low != -13.9 || m.ARuns[1] != nil || *m.BRuns[0] != 309.4 {
		t.Errorf("read back %+v", m)
	}
}
