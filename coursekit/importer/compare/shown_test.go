package compare

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/importer"
	"github.com/llmperf-course/course/coursekit/importer/importertest"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// englishWords is two English words in a row (a phrase, not a key such as
// ttft_ms or a path such as experiments[].requests[]).
var englishWords = regexp.MustCompile(`(^|[^A-Za-z_.\[])[A-Za-z]{2,}[ ,]+[A-Za-z]{2,}($|[^A-Za-z_.(\[])`)

// Under --lang zh the comparison import prints has no English phrase in its
// head line (the layout), its percentile method or its metric column: each
// importer's description of them is printed in Chinese (walk: "布局 records
// (metadata, metrics, error)", "工具的分位数：linear (numpy default)",
// "ttft_ms (total: every request, no first token as 0)"). Every fixture of
// every importer, so that a new layout without its Chinese fails here.
func TestImportComparisonIsChineseUnderZh(t *testing.T) {
	for _, c := range importertest.Fixtures {
		raw, err := os.ReadFile(filepath.Join("..", "testdata", c.File))
		if err != nil {
			t.Fatal(err)
		}
		opt := importer.Options{}
		if c.Summary != "" {
			f, err := os.Open(filepath.Join("..", "testdata", c.Summary))
			if err != nil {
				t.Fatal(err)
			}
			opt.Summary, err = importer.ReadSummary(c.From, f, c.Summary)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			opt.SummaryName = c.Summary
		}
		var out bytes.Buffer
		rep, err := importer.ImportWith(c.From, bytes.NewReader(raw), c.File, &out, opt)
		if err != nil {
			t.Fatalf("%s: %v", c.File, err)
		}
		tr, err := trace.Read(bytes.NewReader(out.Bytes()), c.File)
		if err != nil {
			t.Fatal(err)
		}
		card, err := cardopts.Summarize(tr, cardopts.Flags{})
		if err != nil {
			t.Fatal(err)
		}
		described := []string{rep.Layout, rep.PercentileMethod}
		for _, st := range rep.Stats {
			described = append(described, st.Metric)
		}
		for _, d := range described {
			if englishWords.MatchString(d) && !Known(d) {
				t.Errorf("%s: %q has no Chinese (compare.shown)", c.File, d)
			}
		}
		var zh, en bytes.Buffer
		Write(&zh, lang.ZH, rep, tr, card, c.File, "out.jsonl")
		Write(&en, lang.EN, rep, tr, card, c.File, "out.jsonl")
		head, _, _ := strings.Cut(zh.String(), "\n\n")
		for _, d := range described {
			if englishWords.MatchString(d) && strings.Contains(zh.String(), d) {
				t.Errorf("%s: under zh the comparison prints %q in English:\n%s", c.File, d, head)
			}
			if !strings.Contains(en.String(), d) {
				t.Errorf("%s: under en the comparison no longer prints %q", c.File, d)
			}
		}
	}
}
