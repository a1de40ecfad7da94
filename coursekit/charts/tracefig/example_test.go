package tracefig_test

import (
	"fmt"
	"strings"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// In a GoNB cell, show any chart with nb.Chart(c). Here: the unit trace's
// TTFT distribution carries both P95s.
func ExampleTTFTDistribution() {
	t, err := trace.ReadFile("../../../data/unit01/trace.jsonl")
	if err != nil {
		panic(err)
	}
	c := tracefig.TTFTDistribution(t, charts.WithID("ttft"))
	opt := c.RenderSnippet().Option
	fmt.Println(strings.Contains(opt, "P95 最近秩 2000 ms"))
	fmt.Println(strings.Contains(opt, "P95 线性插值 1720 ms"))
	// Output:
	// true
	// true
}

// The funnel reads its counts from a metrics.Summary condition.
func ExampleFunnel() {
	t, _ := trace.ReadFile("../../../data/unit01/trace.jsonl")
	s := metrics.Summarize(t, metrics.Options{SLOsMS: []float64{1000}})
	c := tracefig.Funnel(s, 0, charts.WithID("funnel"))
	fmt.Println(s.Attempts, s.CompleteSuccess, s.QualityPasses, s.Conditions[0].Qualified)
	fmt.Println(strings.Contains(c.RenderSnippet().Option, "TTFT > 1 s：2"))
	// Output:
	// 10 8 7 5
	// true
}
