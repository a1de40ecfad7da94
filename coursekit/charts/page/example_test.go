package page_test

import (
	"fmt"
	"os"

	"github.com/llmperf-course/course/coursekit/charts/page"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Write writes one offline HTML file: the card and any charts.
func ExampleWrite() {
	t, _ := trace.ReadFile("../../../data/unit01/trace.jsonl")
	s := metrics.Summarize(t, metrics.Options{SLOsMS: []float64{1000, 500}})
	f, err := os.CreateTemp("", "report-*.html")
	if err != nil {
		panic(err)
	}
	defer os.Remove(f.Name())
	err = page.Write(f, "第 01 单元", page.Card(s, "trace.jsonl"),
		page.Figure(tracefig.Attempts(t, 1000), "全部尝试,失败也在图里"),
		page.Figure(tracefig.SLOSweep(t, nil, tracefig.DefaultMarksMS), "门槛扫描"))
	fmt.Println(err, f.Close())
	// Output:
	// <nil> <nil>
}
