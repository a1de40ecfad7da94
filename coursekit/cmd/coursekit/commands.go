package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/internal/spill"
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
	var slos sloFlags
	var cost costFlag
	slos.register(fs, "TTFT SLO of a condition (repeat for side-by-side conditions; default: the trace's conditions.slo, else 1s)")
	method := fs.String("percentile", string(metrics.NearestRank), "percentile method: nearest-rank or linear")
	fs.Var(&cost, "window-cost", "cost of the whole window, in the trace's currency (default: the header's window_cost)")
	format := fs.String("format", string(cardfmt.Text), "output: text, markdown or json")
	levels := fs.String("percentiles", "", "percentile levels every distribution shows, with their 95% intervals, e.g. 50,90,99,99.9 (default: the trace's conditions.percentiles, else 50,90,95,99)")
	langName := langFlag(fs)
	cpuprofile := fs.String("cpuprofile", "", "write a Go CPU profile of the card's computation to this file (default: none)")
	memory := fs.String("memory", "", "memory budget for the samples, attempt ids and requests, e.g. 512MiB or 4GiB; past it they are spilled to a temporary directory as sorted runs, with the same card (default: half of the memory available to the process)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	path, err := oneTrace("card", pos)
	if err != nil {
		return err
	}
	m, err := metrics.ParseMethod(*method)
	if err != nil {
		return usagef("card: %v", err)
	}
	f, err := cardfmt.ParseFormat(*format)
	if err != nil {
		return usagef("card: %v", err)
	}
	l, err := resolveLang("card", *langName)
	if err != nil {
		return err
	}
	var lv []float64
	if *levels != "" {
		if lv, err = metrics.ParseLevels(*levels); err != nil {
			return usagef("card: --percentiles: %v", err)
		}
	}
	budget := spill.DefaultLimit()
	if *memory != "" {
		if budget, err = spill.ParseSize(*memory); err != nil {
			return usagef("card: --memory: %v", err)
		}
	}
	// The collector keeps the heap near the budget too: what the stores
	// free when they spill is reused before the heap grows.
	debug.SetMemoryLimit(budget*2 + 64<<20)
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
	s, err := metrics.SummarizeFile(path, slos.options(metrics.Options{Method: m, WindowCost: cost.v, Levels: lv, MemoryBytes: budget}))
	if err != nil {
		return err
	}
	// Text and Markdown are read on a terminal: the trace's own strings
	// (clock, currency, attempt ids, errors) have their control codes
	// escaped. The JSON card escapes them itself (cardfmt, safetext.JSON).
	out := stdout
	var term *safetext.Writer
	if f != cardfmt.JSON {
		term = safetext.NewWriter(stdout)
		out = term
	}
	w := bufio.NewWriter(out)
	if err := cardfmt.WriteLang(w, s, path, f, l); err != nil {
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
