package trace_test

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// A gzipped trace is named as such, with the fix, instead of "not valid
// JSON" at a control character: every command reads traces through Scan.
func TestGzippedTraceSaysDecompressFirst(t *testing.T) {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(header + "\n"))
	z.Close()
	_, err := trace.Read(&b, "run.jsonl.gz")
	if err == nil || !strings.Contains(err.Error(), "run.jsonl.gz:1: gzip-compressed: decompress it first") {
		t.Errorf("gzipped trace: %v", err)
	}
}
