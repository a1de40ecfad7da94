package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts/comparefig"
	"github.com/llmperf-course/course/coursekit/compare"
)

// cmdCompare compares the runs of A with those of B: `compare A B` or
// `compare A1 A2 A3 -- B1 B2 B3`. The flags may stand on either side of --.
// maxResamples bounds --resamples, so that the resamples of every metric
// fit in memory.
const maxResamples = 1_000_000

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	var opts cardopts.Flags
	opts.RegisterSLOsDefault(fs, "TTFT SLO of a condition; each adds a qualified rate and a goodput (repeat; default: the first A trace's conditions.slo, else 1s)", "the first A trace's recorded SLO (conditions.slo), none if it has none; any --slo-* flag replaces the whole recorded set")
	opts.RegisterMethod(fs)
	opts.RegisterLevels(fs, "percentile levels compared for TTFT, E2E and event gaps alike, e.g. 50,99 (default: TTFT 50,95,99; E2E 95; event gaps 50,95)")
	opts.RegisterMemory(fs)
	format := fs.String("format", string(cardfmt.Text), "output: text, markdown or json")
	langName := langFlag(fs)
	seed := fs.Uint64("seed", compare.DefaultSeed, "seed of the bootstrap; the same seed gives the same intervals")
	resamples := fs.Int("resamples", compare.DefaultResamples, "bootstrap resamples per interval")
	chart := fs.String("chart", "", "also write an offline HTML page with a forest plot of every metric's B − A and its 95% interval (default: none)")
	cut := slices.Index(args, "--")
	left, right := args, []string(nil)
	if cut >= 0 {
		left, right = args[:cut], args[cut+1:]
		if second := slices.Index(right, "--"); second >= 0 {
			return usagef("compare: a second -- (argument %d): one -- splits A's runs from B's; there are two sides", cut+second+2)
		}
	}
	a, err := parse(fs, left)
	if err != nil {
		return err
	}
	var b []string
	if cut >= 0 {
		if b, err = parse(fs, right); err != nil {
			return err
		}
	}
	f, l, err := reportOutput("compare", *format, *langName, &opts)
	if err != nil {
		return err
	}
	if a, err = traceArgs("compare", l, a, stderr); err != nil {
		return err
	}
	if cut >= 0 {
		if b, err = traceArgs("compare", l, b, stderr); err != nil {
			return err
		}
		if len(a) == 0 || len(b) == 0 {
			return usagef("compare: want at least one trace on each side of --, got %d and %d", len(a), len(b))
		}
	} else {
		if len(a) != 2 {
			return usagef("compare: want two traces (A B), or A1 A2 … -- B1 B2 …, got %d (%s)", len(a), strings.Join(a, " "))
		}
		a, b = a[:1], a[1:]
	}
	if *seed == 0 {
		return usagef("compare: --seed: want a seed > 0")
	}
	if *resamples < 100 {
		return usagef("compare: --resamples: want at least 100, got %d", *resamples)
	}
	// Each interval keeps its resamples (8 bytes each): a million is 8 MB
	// a metric, far past where the interval's ends stop moving.
	if *resamples > maxResamples {
		return usagef("compare: --resamples: want at most %d, got %d", maxResamples, *resamples)
	}
	o := compare.Options{Card: opts, Seed: *seed, Resamples: *resamples}
	if opts.Levels != nil {
		o.TTFT, o.E2E, o.ITL = opts.Levels, opts.Levels, opts.Levels
	}
	page, err := createChart("compare", *chart, slices.Concat(a, b)...) // before the traces are read
	if err != nil {
		return err
	}
	res, err := compareFiles(a, b, o)
	if err != nil {
		page.discard()
		var dup *compare.DuplicateError
		if errors.As(err, &dup) {
			return usagef("%v", err)
		}
		if !strings.HasPrefix(err.Error(), "compare:") {
			err = fmt.Errorf("compare: %w", err) // whose error it is, as the flags' errors say
		}
		return err
	}
	if err := page.write(stderr, l, func(w io.Writer) error { return comparefig.WritePage(w, res, l) }); err != nil {
		return err
	}
	return writeReport(stdout, f, func(w io.Writer) error { return compare.Write(w, res, f, l) })
}

// compareFiles is compare.Files, with one trace argument "-" read from
// standard input (named stdin); "-" twice is refused.
func compareFiles(a, b []string, o compare.Options) (*compare.Result, error) {
	all := slices.Concat(a, b)
	n := slices.Index(all, "-")
	if n < 0 {
		return compare.Files(a, b, o)
	}
	if slices.Index(all[n+1:], "-") >= 0 {
		return nil, usagef("compare: standard input (-) given twice: it holds one trace, one run; give the other runs as files")
	}
	spooled, done, err := spoolStdin()
	if err != nil {
		return nil, err
	}
	defer done()
	named := func(paths []string) []compare.File {
		out := make([]compare.File, len(paths))
		for i, p := range paths {
			out[i] = compare.File{Path: p, Name: p}
			if p == "-" {
				out[i] = compare.File{Path: spooled, Name: stdinName}
			}
		}
		return out
	}
	res, err := compare.NamedFiles(named(a), named(b), o)
	return res, stdinErr(err, spooled)
}
