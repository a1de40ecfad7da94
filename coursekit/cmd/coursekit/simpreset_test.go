package main

import (
	"fmt"

	"github.com/llmperf-course/course/coursekit/sim"
)

// `sim --preset bench` is the client benchmark's server: never the
// bottleneck, short answers, a truth log for long runs. A flag given
// explicitly keeps its value.
func Example_applyBenchPreset() {
	cfg := sim.DefaultConfig
	cfg.DefaultMaxTokens = 16 // as if --max-tokens 16 were given
	applyBenchPreset(&cfg, map[string]bool{"max-tokens": true})
	fmt.Println("max batch:", cfg.MaxBatch, "decode step:", cfg.DecodeStep, "per seq:", cfg.DecodePerSeq,
		"prefill per token:", cfg.PrefillPerToken, "max tokens:", cfg.DefaultMaxTokens, "truth limit:", cfg.TruthLimit)
	// Output:
	// max batch: 1048576 decode step: 1ms per seq: 0s prefill per token: 0s max tokens: 16 truth limit: 2097152
}
