package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/importer/importertest"
)

// Every fixture given to every other importer is named as its own tool's
// file, with the --from that reads it, not reported by the wrong importer
// as that importer's error (issue 35: AIPerf's records under --from vllm
// were "40 runs ... choose one with --run").
func TestWrongToolNamesTheRightOne(t *testing.T) {
	// The tool that was asked, as the message names it ("not vLLM's output").
	asked := map[string]string{"vllm": "vLLM's output", "aiperf": "AIPerf's output", "genai-perf": "GenAI-Perf's output",
		"guidellm": "guidellm's output", "llmperf": "llmperf's output", "inference-perf": "inference-perf's output"}
	for _, fx := range importertest.Fixtures {
		if fx.Summary != "" {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("testdata", fx.File))
		if err != nil {
			t.Fatal(err)
		}
		for _, from := range Tools {
			if asked[from] == "" {
				t.Fatalf("--from %s: no expected name", from)
			}
			if from == fx.From {
				continue
			}
			var out bytes.Buffer
			_, err := Import(from, bytes.NewReader(raw), fx.File, &out)
			if err == nil {
				t.Errorf("--from %s %s: imported", from, fx.File)
				continue
			}
			want := fx.File + ": this looks like "
			if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "try --from "+fx.From) ||
				!strings.Contains(err.Error(), ", not "+asked[from]+":") {
				t.Errorf("--from %s %s: %v\nwant %q... not %s: try --from %s", from, fx.File, err, want, asked[from], fx.From)
			}
			if out.Len() != 0 {
				t.Errorf("--from %s %s: wrote %d bytes", from, fx.File, out.Len())
			}
		}
	}
}

// A file that is already a coursekit trace is said to be one, for every
// --from, instead of the importer's first missing field.
func TestTraceGivenToImport(t *testing.T) {
	raw := "{\"trace\":\"llm-serving/v1\",\"clock\":\"client\",\"window\":{\"start_ms\":0,\"end_ms\":1000}}\n" +
		"{\"id\":\"a\",\"request_id\":\"r\",\"start_ms\":0,\"outcome\":\"ok\"}\n"
	for _, from := range Tools {
		_, err := Import(from, strings.NewReader(raw), "run.jsonl", &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "run.jsonl: this is already a coursekit trace") ||
			!strings.Contains(err.Error(), "coursekit card") {
			t.Errorf("--from %s: %v", from, err)
		}
	}
}

// Where the file's layout is nobody's or two tools' at once, the importer's
// own error stands: nothing is guessed.
func TestWrongToolNoGuess(t *testing.T) {
	for _, c := range []struct{ name, raw string }{
		{"nobody", `{"hello": 1}`},
		{"two tools", `{"metadata": {}, "metrics": {}, "benchmarks": []}`},
		{"cut", `{"metadata": {"x": `},
	} {
		_, err := Import("vllm", strings.NewReader(c.raw), "f.json", &bytes.Buffer{})
		if err == nil || strings.Contains(err.Error(), "looks like") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
