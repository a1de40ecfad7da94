package nb

import (
	"math"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

func TestAttemptsFrameKeepsFailuresAndMissing(t *testing.T) {
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	df := AttemptsFrame(tr)
	if df.Err != nil || df.Nrow() != 10 {
		t.Fatalf("rows %d, err %v", df.Nrow(), df.Err)
	}
	ttft := df.Col("ttft_ms").Float()
	if ttft[6] != 1200 || !math.IsNaN(ttft[8]) || !math.IsNaN(ttft[9]) {
		t.Fatalf("ttft column: %v", ttft)
	}
	if h := TableHTML(df); !strings.Contains(h, Missing) || !strings.Contains(h, "connect_error") {
		t.Fatal("the table must show R9/R10 with 缺失 TTFT")
	}
}
