package tracefig_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
	"github.com/llmperf-course/course/coursekit/tracegen"
)

// genTrace is a seeded practice trace of about n attempts.
func genTrace(t testing.TB, requests int) *trace.Trace {
	t.Helper()
	var b bytes.Buffer
	if _, err := tracegen.Generate(&b, tracegen.Config{Seed: 5, Requests: requests, RatePerS: 200, TimeoutMS: 3000}); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(&b, "gen.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// seriesLens is the number of data items of every series of a chart.
func seriesLens(m map[string]any) []int {
	var out []int
	for _, s := range m["series"].([]any) {
		d, _ := s.(map[string]any)["data"].([]any)
		out = append(out, len(d))
	}
	return out
}

// Above the limit (MaxChartPoints; 400 here), the per-attempt charts embed at most
// that many points per series and say in their subtitle, in the
// chart's language, that they are a sample; the counts in the subtitle
// are the whole trace's summary's: the attempts in the window, and those
// outside it.
func TestPerAttemptChartsSampleAboveTheThreshold(t *testing.T) {
	limit := tracefig.SetChartPoints(t, 400) // the rule is the same at MaxChartPoints; small traces decode fast
	tr := genTrace(t, limit+300)
	n := len(tr.Attempts)
	if n <= limit {
		t.Fatalf("generated only %d attempts", n)
	}
	for _, l := range []lang.Lang{lang.ZH, lang.EN} {
		word := map[lang.Lang]string{lang.ZH: "抽样", lang.EN: "sampled"}[l]
		for name, c := range map[string]chart{
			"attempts": tracefig.Attempts(tr, 1000, charts.WithID("a"), charts.WithLang(l)),
			"ttft_cdf": tracefig.TTFTDistribution(tr, charts.WithID("d"), charts.WithLang(l)),
		} {
			m := decoded(t, c)
			for i, k := range seriesLens(m) {
				if k > limit {
					t.Errorf("%s %s: series %d has %d points, more than %d", l, name, i, k, limit)
				}
			}
			title, _ := json.Marshal(m["title"])
			if !strings.Contains(string(title), word) {
				t.Errorf("%s %s: the title does not say %q: %s", l, name, word, title)
			}
		}
		m := decoded(t, tracefig.Attempts(tr, 1000, charts.WithID("a"), charts.WithLang(l)))
		if rows := len(m["yAxis"].([]any)[0].(map[string]any)["data"].([]any)); rows > limit {
			t.Errorf("%s: %d rows", l, rows)
		}
		title, _ := json.Marshal(m["title"])
		s := metrics.Summarize(tr, metrics.Options{})
		if s.Attempts+s.OutsideWindow != int64(n) || s.OutsideWindow == 0 {
			t.Fatalf("summary: %d in the window and %d outside, of %d", s.Attempts, s.OutsideWindow, n)
		}
		for _, want := range map[lang.Lang][]string{lang.ZH: {"共 %d 次尝试", "窗口外 %d"}, lang.EN: {"%d attempts", "outside the window %d"}}[l] {
			v := s.Attempts
			if strings.Contains(want, "外") || strings.Contains(want, "outside") {
				v = s.OutsideWindow
			}
			if !strings.Contains(string(title), strings.Replace(want, "%d", itoa(int(v)), 1)) {
				t.Errorf("%s: the subtitle does not say %q of the summary: %s", l, want, title)
			}
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// drawnIDs are the row labels Attempts draws from a digest.
func drawnIDs(t *testing.T, d *tracefig.Digest) []any {
	m := decoded(t, tracefig.AttemptsOf(d, &metrics.Summary{}, 0, charts.WithID("a")))
	return m["yAxis"].([]any)[0].(map[string]any)["data"].([]any)
}

// The sample is the same however the trace is read: in memory, or
// streamed from a file on every core, or with its lines in another order.
// Failures and in-flight attempts are all drawn when they fit in half the
// rows.
func TestDigestSampleIsDeterministic(t *testing.T) {
	limit := tracefig.SetChartPoints(t, 400) // the rule is the same at MaxChartPoints; small traces decode fast
	var b bytes.Buffer
	if _, err := tracegen.Generate(&b, tracegen.Config{Seed: 9, Requests: limit + 600, RatePerS: 200, TimeoutMS: 3000}); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(b.String(), "\n")
	tr, err := trace.Read(strings.NewReader(b.String()), "gen.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := drawnIDs(t, tracefig.DigestOf(tr))
	if len(want) != limit {
		t.Fatalf("%d rows drawn, want %d", len(want), limit)
	}

	dir := t.TempDir()
	write := func(name string, ls []string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(ls, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rev := slices.Clone(lines[1 : len(lines)-1]) // the last is the empty string after the final newline
	slices.Reverse(rev)
	for name, path := range map[string]string{
		"file":     write("a.jsonl", lines),
		"reversed": write("r.jsonl", append([]string{lines[0]}, rev...)),
	} {
		d, err := tracefig.DigestFile(path, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d.Rows() != int64(len(tr.Attempts)) {
			t.Errorf("%s: %d rows digested, want %d", name, d.Rows(), len(tr.Attempts))
		}
		got := drawnIDs(t, d)
		if name == "reversed" { // rows sent at the same ms are drawn in file order
			got, want := slices.Clone(got), slices.Clone(want)
			byID := func(a, b any) int { return strings.Compare(a.(string), b.(string)) }
			slices.SortFunc(got, byID)
			slices.SortFunc(want, byID)
			if !slices.Equal(got, want) {
				t.Errorf("%s: a different sample than in memory", name)
			}
		} else if !slices.Equal(got, want) {
			t.Errorf("%s: a different sample than in memory", name)
		}
	}

	failing := map[string]bool{}
	for _, a := range tr.Attempts {
		if a.Outcome != trace.OK {
			failing[charts.Label(a.ID)] = true
		}
	}
	if len(failing) > limit/2 {
		t.Fatalf("%d failures: too many for this check", len(failing))
	}
	drawn := 0
	for _, id := range want {
		if failing[id.(string)] {
			drawn++
		}
	}
	if drawn != len(failing) {
		t.Errorf("%d of %d failures and in-flight attempts drawn, want all", drawn, len(failing))
	}
}
