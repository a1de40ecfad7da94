package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts/tracefig"
)

// scaleRequests is the size of the generated trace of the large-report
// test: four times the sampling threshold, so that a page of every attempt
// would be about 25 MB, twice maxPageBytes. (The 1M-attempt figures are a
// benchmark: docs/benchmarks.md.)
const scaleRequests = 20000

// maxPageBytes bounds the report's page whatever the size of the trace.
const maxPageBytes = 12 << 20

// chartOptions are the ECharts options embedded in a report page, by
// chart id.
func chartOptions(t *testing.T, page string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	re := regexp.MustCompile(`(?m)^\s*let option_(\w+) = (\{.*\});?\s*$`)
	for _, m := range re.FindAllStringSubmatch(page, -1) {
		var o map[string]any
		if err := json.Unmarshal([]byte(m[2]), &o); err != nil {
			t.Fatalf("chart %s: option is not JSON: %v", m[1], err)
		}
		out[m[1]] = o
	}
	return out
}

// A report of a trace far above the sampling threshold: every chart embeds
// at most the threshold's points per series, the per-attempt charts say
// they are a sample, in the page's language, and the page stays small.
func TestReportLargeTraceIsSampled(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "big.jsonl")
	if code, _, stderr := runCLI(t, "gen", "--seed", "11", "--requests", strconv.Itoa(scaleRequests), "--rate", "200", "-o", tr); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, stderr)
	}
	for _, l := range []struct{ flag, word string }{{"zh", "抽样"}, {"en", "sampled"}} {
		out := filepath.Join(dir, l.flag+".html")
		if code, _, stderr := runCLI(t, "report", tr, "-o", out, "--lang", l.flag, "--memory", "256MiB"); code != 0 {
			t.Fatalf("report --lang %s: exit %d: %s", l.flag, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > maxPageBytes {
			t.Errorf("%s: the page is %d bytes, more than %d", l.flag, len(b), maxPageBytes)
		}
		opts := chartOptions(t, string(b))
		for _, id := range []string{"attempts", "ttft_cdf", "slo_sweep", "funnel_0"} {
			if opts[id] == nil {
				t.Errorf("%s: no chart %s in the page", l.flag, id)
			}
		}
		for id, o := range opts {
			series, _ := o["series"].([]any)
			for i, s := range series {
				if d, _ := s.(map[string]any)["data"].([]any); len(d) > tracefig.MaxChartPoints {
					t.Errorf("%s: chart %s series %d embeds %d points, more than %d", l.flag, id, i, len(d), tracefig.MaxChartPoints)
				}
			}
		}
		for _, id := range []string{"attempts", "ttft_cdf"} {
			title, _ := json.Marshal(opts[id]["title"])
			if !strings.Contains(string(title), l.word) {
				t.Errorf("%s: chart %s does not say %q: %.300s", l.flag, id, l.word, title)
			}
		}
	}
}
