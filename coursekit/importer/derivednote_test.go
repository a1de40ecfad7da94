package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/lang"
)

// The note on numbers recomputed from the rows names the file the user
// gave, not the tool's default name (walk 35e: `import --from aiperf
// aip_ka.jsonl` said "profile_export.jsonl holds no summary"); the
// tool's summary file keeps its default name, as the place to look.
func TestDerivedNoteNamesTheGivenFile(t *testing.T) {
	for _, c := range []struct{ from, file, summary string }{
		{"aiperf", "aiperf_profile_export.jsonl", "profile_export_aiperf.json"},
		{"genai-perf", "genai_perf_profile_export.json", "profile_export_genai_perf.json"},
		{"llmperf", "llmperf_individual_responses.json", "*_summary.json"},
		{"inference-perf", "inference_perf_per_request.json", "summary_lifecycle_metrics.json"},
	} {
		raw, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		const name = "my_run<1>.jsonl"
		rep, err := ImportWith(c.from, strings.NewReader(string(raw)), name, new(strings.Builder), Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.from, err)
		}
		for _, l := range []lang.Lang{lang.EN, lang.ZH} {
			first := rep.NotesIn(l)[0]
			if !strings.HasPrefix(first, name+" ") || !strings.Contains(first, c.summary) {
				t.Errorf("%s %s: the first note does not name %q (and the summary file %s): %q", c.from, l, name, c.summary, first)
			}
		}
	}
}
