package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/tracegen"
)

// sloList collects repeated --slo-ttft flags.
type sloList []float64

func (s *sloList) String() string { return fmt.Sprint([]float64(*s)) }

func (s *sloList) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is not a duration (write 1s or 500ms)", v)
	}
	if d <= 0 {
		return fmt.Errorf("%q: an SLO must be positive", v)
	}
	*s = append(*s, float64(d)/float64(time.Millisecond))
	return nil
}

// costFlag is an optional non-negative number.
type costFlag struct{ v *float64 }

func (c *costFlag) String() string {
	if c.v == nil {
		return ""
	}
	return strconv.FormatFloat(*c.v, 'g', -1, 64)
}

func (c *costFlag) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%q is not a non-negative cost", s)
	}
	c.v = &f
	return nil
}

func cmdCard(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("card", flag.ContinueOnError)
	var cf cardFlags
	var cost costFlag
	cf.register(fs, "TTFT SLO of a condition (repeat for side-by-side conditions; default: the trace's conditions.slo, else 1s)",
		"percentile levels every distribution shows, with their 95% intervals, e.g. 50,90,99,99.9 (default: the trace's conditions.percentiles, else 50,90,95,99)")
	fs.Var(&cost, "window-cost", "cost of the whole window, in the trace's currency (default: the header's window_cost)")
	cpuprofile := fs.String("cpuprofile", "", "write a Go CPU profile of the card's computation to this file (default: none)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	path, err := oneTrace("card", pos)
	if err != nil {
		return err
	}
	st, err := cf.parse("card")
	if err != nil {
		return err
	}
	f, l := st.format, st.lang
	opts := st.opts
	opts.WindowCost = cost.v
	if *cpuprofile != "" {
		pf, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	s, err := metrics.SummarizeFile(path, opts)
	if err != nil {
		return err
	}
	return writeReport(stdout, f, func(w io.Writer) error { return cardfmt.WriteLang(w, s, path, f, l) })
}

// writeReport writes a report in format f through write, buffered. Text
// and Markdown are read on a terminal: the trace's own strings (clock,
// currency, attempt ids, errors, file names) have their control codes
// escaped. JSON escapes them itself.
func writeReport(stdout io.Writer, f cardfmt.Format, write func(io.Writer) error) error {
	out := stdout
	var term *safetext.Writer
	if f != cardfmt.JSON {
		term = safetext.NewWriter(stdout)
		out = term
	}
	w := bufio.NewWriter(out)
	if err := write(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if term != nil {
		return term.Flush()
	}
	return nil
}

func cmdGen(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	var cfg tracegen.Config
	fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed; the same seed gives the same trace")
	fs.IntVar(&cfg.Requests, "requests", 2000, "business requests to send (retries are extra attempts)")
	fs.Float64Var(&cfg.RatePerS, "rate", 20, "open-loop Poisson arrival rate, requests/s")
	fs.Float64Var(&cfg.TimeoutMS, "timeout-ms", 3000, "client timeout to the first token, ms")
	out := fs.String("o", "", "write the trace to FILE (default: stdout)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("gen: unexpected argument %q", pos[0])
	}
	if cfg.Requests < 1 || cfg.RatePerS <= 0 || cfg.TimeoutMS <= 0 {
		return usagef("gen: --requests, --rate and --timeout-ms must be positive")
	}
	w, done, err := output(*out, stdout)
	if err != nil {
		return err
	}
	defer done()
	st, err := tracegen.Generate(w, cfg)
	if err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(stderr, "coursekit gen: wrote %d attempts for %d requests to %s\n", st.Attempts, st.Requests, *out)
	}
	return nil
}

// output is FILE when -o names one, else stdout; done closes the file.
func output(path string, stdout io.Writer) (io.Writer, func(), error) {
	if path == "" {
		return stdout, func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}
