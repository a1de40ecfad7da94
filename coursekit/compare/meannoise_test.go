package compare_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// Three runs of 10 % failures against two runs of 10 %: the mean of the
// three was 0.10000000000000002, so B − A was 1.4e-17 and the change
// column said −0.000000000000014%, the JSON "rel": -1.3877787807814457e-16.
// A side's mean is written as the card writes a number (numfmt.Clean), so
// equal runs give B − A = 0 exactly, in every format.
func TestEqualRunsDifferByZero(t *testing.T) {
	g := failing(20, 2)
	o := compare.Options{Resamples: 50}
	a := []compare.Run{run(g, "a1", o), run(g, "a2", o), run(g, "a3", o)}
	b := []compare.Run{run(g, "b1", o), run(g, "b2", o)}
	r, err := compare.Compare(a, b, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range r.Metrics {
		if m.A == nil || m.B == nil {
			continue
		}
		if *m.A != *m.B || *m.Diff != 0 || (m.Rel != nil && *m.Rel != 0) {
			t.Errorf("%s: A %v, B %v, B − A %v, rel %v; want equal values and 0", m.Name, *m.A, *m.B, *m.Diff, m.Rel)
		}
	}
	for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.JSON} {
		var out bytes.Buffer
		if err := compare.Write(&out, r, f, lang.EN); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "0000000") || strings.Contains(out.String(), "e-1") {
			t.Errorf("%s keeps float noise:\n%s", f, out.String())
		}
		if f == cardfmt.JSON {
			var back compare.Result
			if err := json.Unmarshal(out.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
		}
	}
}
