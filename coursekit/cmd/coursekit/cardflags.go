package main

import (
	"flag"
	"runtime/debug"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/internal/spill"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// cardFlags are the flags that say how a card is computed and printed,
// shared by every command that computes cards (card, compare): SLOs,
// percentile method and levels, output format, language, memory budget.
type cardFlags struct {
	slos                   sloFlags
	method, levels, format *string
	langName, memory       *string
}

// register adds the flags; levelsHelp and ttftHelp say what
// --percentiles and --slo-ttft mean for the command.
func (c *cardFlags) register(fs *flag.FlagSet, ttftHelp, levelsHelp string) {
	c.slos.register(fs, ttftHelp)
	c.method = fs.String("percentile", string(metrics.NearestRank), "percentile method: nearest-rank or linear")
	c.format = fs.String("format", string(cardfmt.Text), "output: text, markdown or json")
	c.levels = fs.String("percentiles", "", levelsHelp)
	c.langName = langFlag(fs)
	c.memory = fs.String("memory", "", "memory budget for the samples, attempt ids and requests, e.g. 512MiB or 4GiB; past it they are spilled to a temporary directory as sorted runs, with the same card (default: half of the memory available to the process)")
}

// cardSetup is what the flags asked for.
type cardSetup struct {
	opts   metrics.Options // SLOs, method, memory budget
	levels []float64       // --percentiles, nil if not given
	format cardfmt.Format
	lang   lang.Lang
}

// parse reads the flags of command cmd; a bad value is a usage error. It
// also keeps the heap near the memory budget: what the stores free when
// they spill is reused before the heap grows.
func (c *cardFlags) parse(cmd string) (cardSetup, error) {
	var st cardSetup
	m, err := metrics.ParseMethod(*c.method)
	if err != nil {
		return st, usagef("%s: %v", cmd, err)
	}
	if st.format, err = cardfmt.ParseFormat(*c.format); err != nil {
		return st, usagef("%s: %v", cmd, err)
	}
	if st.lang, err = resolveLang(cmd, *c.langName); err != nil {
		return st, err
	}
	if *c.levels != "" {
		if st.levels, err = metrics.ParseLevels(*c.levels); err != nil {
			return st, usagef("%s: --percentiles: %v", cmd, err)
		}
	}
	budget := spill.DefaultLimit()
	if *c.memory != "" {
		if budget, err = spill.ParseSize(*c.memory); err != nil {
			return st, usagef("%s: --memory: %v", cmd, err)
		}
	}
	debug.SetMemoryLimit(budget*2 + 64<<20)
	st.opts = c.slos.options(metrics.Options{Method: m, Levels: st.levels, MemoryBytes: budget})
	return st, nil
}
