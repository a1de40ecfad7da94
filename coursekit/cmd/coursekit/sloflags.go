package main

import (
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// msFlag is an optional positive duration, kept in ms (0: not given).
type msFlag struct{ ms *float64 }

func (f msFlag) String() string {
	if f.ms == nil || *f.ms == 0 {
		return ""
	}
	return strconv.FormatFloat(*f.ms, 'g', -1, 64) + "ms"
}

func (f msFlag) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is not a duration (write 2s or 50ms)", v)
	}
	if d <= 0 {
		return fmt.Errorf("%q: an SLO must be positive", v)
	}
	*f.ms = float64(d) / float64(time.Millisecond)
	return nil
}

// sloFlags are the SLOs of joint qualification: TTFT (repeatable, one
// condition each) and the per-attempt SLOs beyond it.
type sloFlags struct {
	ttft sloList
	lat  metrics.LatencySLO
}

// register adds --slo-ttft (with ttftHelp), --slo-e2e, --slo-itl-p95 and --slo-tpot.
func (s *sloFlags) register(fs *flag.FlagSet, ttftHelp string) {
	if ttftHelp != "" {
		fs.Var(&s.ttft, "slo-ttft", ttftHelp)
	}
	fs.Var(msFlag{&s.lat.E2EMS}, "slo-e2e", "per-attempt E2E SLO, joint with TTFT (default: none)")
	fs.Var(msFlag{&s.lat.ITLP95MS}, "slo-itl-p95", "SLO on the P95 of each attempt's own gaps between text events, joint with TTFT (default: none)")
	fs.Var(msFlag{&s.lat.TPOTMS}, "slo-tpot", "per-attempt TPOT SLO, (t_N − t_1) / (N − 1): the mean gap between output tokens after the first, joint with TTFT (default: none)")
}

// options fills the SLOs of a card; with only latency SLOs, TTFT takes
// the default.
func (s *sloFlags) options(o metrics.Options) metrics.Options {
	o.SLOsMS, o.Latency = s.ttft, s.lat
	if len(o.SLOsMS) == 0 && s.lat.Set() {
		o.SLOsMS = []float64{metrics.DefaultSLOMS}
	}
	return o
}

// given reports whether any SLO flag was given.
func (s *sloFlags) given() bool { return len(s.ttft) > 0 || s.lat.Set() }

// set is the SLO set a bench run records in its header (conditions.slo).
func (s *sloFlags) set() metrics.SLOSet {
	o := s.options(metrics.Options{})
	if len(o.SLOsMS) == 0 {
		o.SLOsMS = []float64{metrics.DefaultSLOMS}
	}
	return metrics.SLOSet{TTFTMS: o.SLOsMS, LatencySLO: o.Latency}
}
