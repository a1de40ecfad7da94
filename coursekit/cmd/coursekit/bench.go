package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// cmdBench is bench as three steps: its flags (benchFlagsOf), the options
// they make once checked (benchFlags.options), and the run (runBench), as
// vegeta's attack command parses its flags into options for attack.
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl, err := benchFlagsOf(args)
	if err != nil {
		return err
	}
	opts, err := fl.options(stderr)
	if err != nil {
		return err
	}
	// A server may echo the --api-key-env token back: what bench prints
	// holds it no more than what it writes.
	hide := loadgen.Hider(opts.cfg.Header)
	return loadgen.HideError(runBench(ctx, opts, stdout, loadgen.HideWriter(stderr, hide)), hide)
}

// benchFlags are bench's flags as given, not yet checked.
type benchFlags struct {
	cfg                                                       loadgen.Config
	arrival, replay, dataset, keyEnv, out, cpuprofile, levels string
	lang                                                      string // --lang: checked, but bench's lines are English
	every                                                     time.Duration
	noPreflight                                               bool
	prompts                                                   promptFlags
	slos                                                      cardopts.Flags
	conds                                                     conditionFlags
	set                                                       map[string]bool // the flags given on the command line
}

// benchFlagsOf parses bench's command line.
func benchFlagsOf(args []string) (*benchFlags, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fl := &benchFlags{}
	cfg := &fl.cfg
	fs.StringVar(&cfg.URL, "url", "http://127.0.0.1:8000", "base URL of an OpenAI-compatible server")
	fs.StringVar(&cfg.API, "api", "completions", "completions or chat")
	fs.StringVar(&cfg.Model, "model", "", "model to request (default: the first in /v1/models; needed with --no-preflight)")
	fs.Float64Var(&cfg.Rate, "rate", 0, "open loop: requests/s on a schedule fixed in advance (0: not open loop; give --rate, --concurrency or --replay)")
	fs.StringVar(&fl.arrival, "arrival", "poisson", "open-loop arrivals: constant, poisson or gamma")
	fs.Float64Var(&cfg.Burstiness, "burstiness", 1, "gamma shape: 1 is Poisson, below 1 burstier, above 1 smoother (implies --arrival gamma)")
	fs.StringVar(&fl.replay, "replay", "", "open loop: replay the send times of the requests in this trace (default: none)")
	fs.IntVar(&cfg.Concurrency, "concurrency", 0, "closed loop: users, each waiting for its previous answer (0: not closed loop); the load follows the server, unlike --rate with --max-concurrency")
	fs.IntVar(&cfg.MaxConcurrency, "max-concurrency", 0, "open loop: at most this many requests in flight; arrivals of --rate or --replay beyond it wait, and the wait is in the send lag (default 0: no cap)")
	fs.DurationVar(&cfg.ThinkTime, "think-time", 0, "closed loop: pause of each user between answer and next request (default 0: none)")
	fs.DurationVar(&cfg.Duration, "duration", 30*time.Second, "measured window (after the warm-up)")
	fs.Int64Var(&cfg.NumRequests, "num-requests", 0, "stop after this many requests planned in the window (retries and warm-up not counted; the window then ends when the last attempt ends; --duration still bounds it; default 0: no cap)")
	fs.DurationVar(&cfg.Warmup, "warmup", 0, "warm-up before the window: sent and recorded, not measured (default 0: none)")
	fs.DurationVar(&cfg.Timeout, "timeout", 10*time.Second, "per attempt, send to end of stream (0: none)")
	fs.IntVar(&cfg.MaxTokens, "max-tokens", 64, "max_tokens of every request")
	fs.IntVar(&cfg.PromptTokens, "prompt-tokens", 32, "prompt length in words")
	fl.prompts.register(fs)
	fs.BoolVar(&cfg.IgnoreEOS, "ignore-eos", false, "ask vLLM-style servers for exactly --max-tokens tokens")
	fs.BoolVar(&cfg.ContinuousUsage, "continuous-usage", false, "ask for usage on every chunk (vLLM), to count tokens per event")
	fs.IntVar(&cfg.Retries, "retries", 0, "retries of a failed request (connect error, no response, timeout, 429, 5xx), each a new attempt (default 0: none)")
	fs.DurationVar(&cfg.RetryBackoff, "retry-backoff", 100*time.Millisecond, "pause before a retry")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the arrival schedule and of --dataset arith's questions")
	fs.StringVar(&fl.dataset, "dataset", "", "prompts whose answers are judged during the run: arith (built-in arithmetic questions with exact answers; the default seed gives data/datasets/arith.jsonl) "+
		`or a JSONL file, one {"prompt": …, "expect": {"exact"|"contains"|"regex"|"json_schema": …}} per line, sent in order (default: none; generated prompts, every answer unrated, goodput unknown)`)
	fs.StringVar(&fl.keyEnv, "api-key-env", "", "name of an environment variable holding a bearer token, sent only to the scheme, host and port of --url (bench never follows a redirect; default: no Authorization header)")
	fs.StringVar(&fl.out, "out", "", "trace file to write (default or -: stdout)")
	fs.DurationVar(&fl.every, "progress", time.Second, "progress line interval on stderr (0: off)")
	fs.StringVar(&cfg.MetricsURL, "metrics-url", "", "scrape this Prometheus /metrics URL during the run into TRACE.metrics.jsonl, named in the header as conditions.metrics_sidecar; coursekit report draws its request gauges beside the client's in-flight count (needs --out FILE; the --api-key-env token is sent only if it is on the origin of --url; default: none)")
	fs.DurationVar(&cfg.MetricsEvery, "metrics-interval", time.Second, "interval of the --metrics-url scrapes")
	fs.StringVar(&fl.cpuprofile, "cpuprofile", "", "write a Go CPU profile of the client to this file (default: none)")
	fs.BoolVar(&fl.noPreflight, "no-preflight", false, "send the load without first checking that --url answers GET /v1/models as an OpenAI-compatible server that lists --model (default: check, and stop before any load, exit 2, if it does not)")
	fl.slos.RegisterSLOs(fs, "TTFT SLO of a condition of the run's card (repeat; default 1s)")
	fs.Var(&fl.conds, "condition", conditionHelp)
	fs.StringVar(&fl.lang, "lang", "zh", "zh or en, accepted like the other commands' --lang (default: zh); bench's terminal lines (progress, errors) are English in both, and the trace is the same")
	fs.StringVar(&fl.levels, "percentiles", "", "percentile levels the run's card shows, e.g. 50,90,99,99.9, recorded as conditions.percentiles (default: 50,90,95,99)")
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 0 {
		return nil, usagef("bench: unexpected argument %q", pos[0])
	}
	fl.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { fl.set[f.Name] = true })
	return fl, nil
}

// benchOptions are a run of bench, its flags checked: the load client's
// config, complete, and what the command does around the run.
type benchOptions struct {
	cfg         loadgen.Config
	out         string // the trace file; "" or "-" for stdout
	cpuprofile  string
	noPreflight bool
	latencySLO  bool // a latency SLO beyond TTFT was given
}

// options checks the flags, in the order a user meets them, and builds
// the run's options: the loop, the URL, the prompts, the key, the
// conditions recorded in the header, the progress line on stderr.
func (fl *benchFlags) options(stderr io.Writer) (*benchOptions, error) {
	cfg := fl.cfg
	if err := atLeastOneToken("bench", cfg.MaxTokens); err != nil {
		return nil, err
	}
	if err := fl.loop(&cfg); err != nil {
		return nil, err
	}
	if u, err := url.Parse(cfg.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usagef("bench: --url %q is not an http(s) URL", loadgen.RedactURL(cfg.URL))
	}
	if fl.lang != "" {
		if _, err := resolveLang("bench", fl.lang); err != nil {
			return nil, err
		}
	}
	if fl.noPreflight && cfg.Model == "" {
		// The preflight is what asks /v1/models for a default model: without
		// it, ask for the model, not the server.
		return nil, usagef("bench: --no-preflight needs --model (a run without the preflight does not ask the server's /v1/models for a default model)")
	}
	if err := fl.requests(&cfg); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		if loops(cfg) != 1 { // the hint names the flags that choose the loop, and only for that error
			return nil, usagef("bench: %v (flags: --rate R | --concurrency N | --replay TRACE)", err)
		}
		return nil, usagef("bench: %v", err)
	}
	cfg.Conditions = map[string]any{}
	if fl.slos.SLOsGiven() {
		cfg.Conditions["slo"] = fl.slos.SLOSet()
	}
	if err := fl.conds.add(cfg.Conditions, &cfg); err != nil {
		return nil, usagef("bench: %v", err)
	}
	if fl.levels != "" {
		ps, err := metrics.ParseLevels(fl.levels)
		if err != nil {
			return nil, usagef("bench: --percentiles: %v", err)
		}
		cfg.Conditions["percentiles"] = ps
	}
	if fl.every > 0 {
		cfg.ProgressEvery = fl.every
		cfg.Progress = func(p loadgen.Progress) { fmt.Fprintln(stderr, "coursekit bench:", p) }
	}
	if cfg.MetricsURL != "" {
		if u, err := url.Parse(cfg.MetricsURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, usagef("bench: --metrics-url %q is not an http(s) URL", loadgen.RedactURL(cfg.MetricsURL))
		}
		if fl.out == "" || fl.out == "-" {
			return nil, usagef("bench: --metrics-url needs --out FILE (the scrapes go to FILE.metrics.jsonl beside it)")
		}
		if cfg.MetricsEvery <= 0 {
			return nil, usagef("bench: --metrics-interval must be positive")
		}
	}
	return &benchOptions{cfg: cfg, out: fl.out, cpuprofile: fl.cpuprofile, noPreflight: fl.noPreflight, latencySLO: fl.slos.Latency.Set()}, nil
}

// loop checks the flags that choose the loop: open (--rate, --replay, with
// its arrivals and --max-concurrency) or closed (--concurrency, with
// --think-time), and reads the replayed trace.
func (fl *benchFlags) loop(cfg *loadgen.Config) error {
	set := fl.set
	// A loop flag given a value that chooses no loop is answered about
	// that flag, not with "give exactly one of …" (0 turns a loop off,
	// which only makes sense beside another one).
	other := func(loop string) bool {
		return (loop != "rate" && cfg.Rate != 0) || (loop != "concurrency" && cfg.Concurrency != 0) || (loop != "replay" && fl.replay != "")
	}
	switch r := cfg.Rate; {
	case set["rate"] && (r < 0 || math.IsNaN(r) || math.IsInf(r, 0)), set["rate"] && r == 0 && !other("rate"):
		return usagef("bench: --rate must be > 0 (requests per second), got %g", r)
	case set["concurrency"] && (cfg.Concurrency < 0 || cfg.Concurrency == 0 && !other("concurrency")):
		return usagef("bench: --concurrency must be > 0 (users, each waiting for its previous answer), got %d", cfg.Concurrency)
	}
	if cfg.Rate > 0 || fl.replay != "" {
		a, err := loadgen.ParseArrival(fl.arrival)
		if err != nil {
			return usagef("bench: --arrival: %v", err)
		}
		if set["burstiness"] && !set["arrival"] {
			a = loadgen.Gamma
		}
		if set["burstiness"] && a != loadgen.Gamma {
			return usagef("bench: --burstiness needs --arrival gamma")
		}
		cfg.Arrival = a
	} else if set["arrival"] || set["burstiness"] {
		return usagef("bench: --arrival and --burstiness need --rate")
	}
	if fl.replay != "" {
		if cfg.Rate != 0 {
			return usagef("bench: give --rate or --replay, not both")
		}
		var err error
		if cfg.Replay, err = loadgen.ReplayOffsets(fl.replay); err != nil {
			return err
		}
		if !set["duration"] {
			cfg.Duration = 0 // the replay's own span
		}
	}
	if set["max-concurrency"] && cfg.Rate == 0 && fl.replay == "" {
		return usagef("bench: --max-concurrency caps an open loop: give it with --rate or --replay (--concurrency is a closed loop)")
	}
	if set["think-time"] && cfg.Concurrency == 0 {
		return usagef("bench: --think-time needs --concurrency (a closed loop)")
	}
	return nil
}

// requests checks the flags that make the requests: the dataset or the
// generated prompts, the bearer token, the API.
func (fl *benchFlags) requests(cfg *loadgen.Config) error {
	if fl.dataset != "" {
		if fl.set["prompt-tokens"] {
			return usagef("bench: --prompt-tokens applies to generated prompts, not to --dataset")
		}
		var err error
		if cfg.Dataset, err = dataset.Load(fl.dataset, cfg.Seed); err != nil {
			if trace.IsBadInput(err) || os.IsNotExist(err) {
				return err
			}
			return usagef("bench: %v", err)
		}
	}
	if err := fl.prompts.apply(cfg, fl.set); err != nil {
		return err
	}
	if fl.keyEnv != "" {
		key := os.Getenv(fl.keyEnv)
		if key == "" {
			return setupf("bench: --api-key-env %s: the variable is empty or unset", fl.keyEnv)
		}
		cfg.Header = http.Header{"Authorization": {"Bearer " + key}}
	}
	if cfg.API != "completions" && cfg.API != "chat" {
		return usagef("bench: --api %q: want chat or completions", cfg.API)
	}
	return nil
}

// runBench runs the options: the trace file and its sidecar locked, the
// pre-flight, the load, and the lines that say what happened.
func runBench(ctx context.Context, o *benchOptions, stdout, stderr io.Writer) error {
	cfg := o.cfg
	dst, err := openBenchOutputs(o.out, &cfg, stdout, stderr)
	if err != nil {
		return err
	}
	defer dst.close()
	if !o.noPreflight {
		// After the locks (a second bench on the same file is refused first),
		// before the first write: a wrong URL leaves the last trace as it was.
		if err := loadgen.PreflightModel(context.Background(), cfg.Client, cfg.URL, cfg.Header, cfg.Model); err != nil {
			return setupf("bench: pre-flight: %v; check --url and --model, or give --no-preflight to send the load anyway", err)
		}
	}
	stopTuning, err := tuneForStamping(o.cpuprofile)
	if err != nil {
		return err
	}
	defer stopTuning()
	ctx, stop := signalContext(ctx)
	defer stop()
	res, err := loadgen.Run(ctx, cfg, dst.w)
	if dst.outW != nil && dst.outW.emptied && dst.sideW != nil && !dst.sideW.emptied {
		// The run wrote its trace but no scrape: the last run's scrapes must not stay beside it.
		if terr := dst.sideW.f.Truncate(0); terr != nil && err == nil {
			err = terr
		}
	}
	benchLines(stderr, res, cfg, dst.name, o.latencySLO)
	if err != nil {
		return err
	}
	if dst.f != nil {
		if err := dst.f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "coursekit bench: next: coursekit card %s\n", dst.name)
	}
	return nil
}

// benchOutputs are where a run writes: stdout, or the --out file and its
// --metrics-url sidecar, each locked and emptied only by the run's first
// write, and removed afterwards if the run wrote nothing to a file that
// did not exist before.
type benchOutputs struct {
	w           io.Writer
	name        string
	f           *os.File
	outW, sideW *emptiedOnWrite
	cleanups    []func() // run last first by close
}

func (d *benchOutputs) close() {
	for i := len(d.cleanups) - 1; i >= 0; i-- {
		d.cleanups[i]()
	}
}

// openBenchOutputs opens the outputs of a run to out (stdout when "" or
// "-"), and names the sidecar in cfg's conditions.
func openBenchOutputs(out string, cfg *loadgen.Config, stdout, stderr io.Writer) (*benchOutputs, error) {
	d := &benchOutputs{w: stdout, name: "stdout"}
	if out != "" && out != "-" {
		warnRepeat(stderr, out, *cfg) // before the file is emptied: it reads the last run's header
		_, statErr := os.Stat(out)
		f, err := openLocked(out, "--out")
		if err != nil {
			return nil, err
		}
		d.f = f
		d.cleanups = append(d.cleanups, func() { f.Close() })
		if errors.Is(statErr, os.ErrNotExist) {
			// A run that fails before it writes leaves no empty file that card would refuse.
			d.cleanups = append(d.cleanups, func() {
				if !d.outW.emptied {
					os.Remove(out)
				}
			})
		}
		d.outW = &emptiedOnWrite{f: f}
		d.w, d.name = d.outW, out
	}
	if cfg.MetricsURL != "" {
		side := out + ".metrics.jsonl"
		_, statErr := os.Stat(side)
		mf, err := openLocked(side, "the --metrics-url sidecar")
		if err != nil {
			d.close()
			return nil, err
		}
		d.cleanups = append(d.cleanups, func() { mf.Close() })
		if errors.Is(statErr, os.ErrNotExist) {
			d.cleanups = append(d.cleanups, func() {
				if !d.outW.emptied && !d.sideW.emptied {
					os.Remove(side)
				}
			})
		}
		d.sideW = &emptiedOnWrite{f: mf}
		cfg.MetricsSink = d.sideW
		cfg.Conditions["metrics_sidecar"] = filepath.Base(side)
		cfg.Conditions["metrics_url"] = loadgen.RedactURL(cfg.MetricsURL)
		cfg.Conditions["metrics_scrape"] = "one JSON line per scrape every " + cfg.MetricsEvery.String() + ": t_ms on this trace's clock when the GET was sent, dur_ms until the answer was read, values of every gauge and counter by name{labels} (NaN and infinite values left out: JSON has none), or error (a redirect is not followed; a body over 16 MiB or 100,000 lines is not read; past " + strconv.Itoa(loadgen.MaxScrapeSeries) + " series, the request gauges and then the first by name are kept, and capped counts the rest)"
	}
	return d, nil
}

// benchLines say what a run did: its end, counts and lags, its salt, the
// client's lateness, its quality, and arrivals left unsent.
func benchLines(stderr io.Writer, res *loadgen.Result, cfg loadgen.Config, name string, latencySLO bool) {
	if res == nil {
		return
	}
	var parts []string
	for _, o := range trace.Outcomes {
		if n := res.Outcomes[o.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
		}
	}
	state := runState(res)
	fmt.Fprintf(stderr, "coursekit bench: %s: sent %d, recorded %d (%s) to %s; window [%s, %s) ms; send lag p50 %s ms, p99 %s ms, max %s ms (n=%d)\n",
		state, res.Sent, res.Recorded, strings.Join(parts, ", "), name,
		numfmt.Num(res.Window.StartMS), numfmt.Num(res.Window.EndMS), numfmt.Num(res.Lag.P50), numfmt.Num(res.Lag.P99), numfmt.Num(res.Lag.Max), res.Lag.N)
	saltLine(stderr, res, cfg)
	lateLine(stderr, res.ClientLag)
	emptyLine(stderr, res, cfg)
	if !unansweredLine(stderr, res, cfg) {
		noneSucceededLine(stderr, res)
	}
	switch {
	case cfg.Dataset == nil && latencySLO:
		fmt.Fprintln(stderr, "coursekit bench: quality: not judged (no --dataset), so the card qualifies complete successes on latency alone (--slo-ttft with --slo-e2e, --slo-itl-p95, --slo-tpot)")
	case cfg.Dataset == nil:
		fmt.Fprintln(stderr, "coursekit bench: quality: not judged (no --dataset), so every answer is unrated and goodput will be unknown (not 0); judge the answers with --dataset arith or --dataset FILE.jsonl")
	case cfg.Dataset.Rated() == 0:
		fmt.Fprintf(stderr, "coursekit bench: quality: not judged: no prompt of %s has an \"expect\", so every answer is unrated and goodput will be unknown (not 0)\n", cfg.Dataset.Name)
	default:
		fmt.Fprintf(stderr, "coursekit bench: quality: %d pass of %d judged (%s, %s; %d of %d prompts have an expectation)\n",
			res.Passes, res.Rated, cfg.Dataset.Name, strings.Join(cfg.Dataset.JudgeNames(), ", "), cfg.Dataset.Rated(), len(cfg.Dataset.Items))
	}
	if res.Unsent > 0 {
		fmt.Fprintf(stderr, "coursekit bench: --max-concurrency %d: %s still waiting for a slot when the window ended, not sent (not in the trace)\n", cfg.MaxConcurrency, lang.N(lang.EN, res.Unsent, "arrival of the schedule was", "arrivals of the schedule were"))
	}
}

// unansweredLine says from when nothing took a connection, so that a server
// that crashed mid-run is not read from a count of errors alone, and why
// the exit status is still 0: every failure was recorded, the measurement
// is whole (a tool error is exit 1, bad input 2).
func unansweredLine(stderr io.Writer, res *loadgen.Result, cfg loadgen.Config) (said bool) {
	u := res.Unanswered
	if u.ConnectErrors == 0 {
		return false
	}
	// In ms to the clock's µs, as the trace stamps them: a send after
	// FromMS never prints as at or before it (at s to 3 decimals, a send
	// at 5019.12 ms read as "before 5.019 s").
	from := "the start"
	if u.FromMS > 0 {
		from = fmt.Sprintf("%.3f ms (the last response byte)", u.FromMS)
	}
	backoff := ""
	if cfg.Concurrency > 0 {
		backoff = fmt.Sprintf("; each closed-loop user backed off %v, doubling to %v, between them (conditions.connect_backoff)", loadgen.ConnectBackoffMin, loadgen.ConnectBackoffMax)
	}
	// The count is of the connect errors sent from then on; the run's
	// connect_error count (the outcome line) also has those sent before,
	// while an answer was still under way: say both when they differ.
	count := fmt.Sprintf("%d connect_error attempts sent since then", u.ConnectErrors)
	if all := res.Outcomes[trace.ConnectError.String()]; all > u.ConnectErrors {
		count += fmt.Sprintf(" (of the run's %d: the other %s sent before %.3f ms, while an answer was still under way)", all, lang.N(lang.EN, all-u.ConnectErrors, "was", "were"), u.FromMS)
	}
	fmt.Fprintf(stderr, "coursekit bench: nothing answered from %s to the end of the run (window end %.3f ms): %s, nothing took the connection (the server is down, or --url is wrong)%s. "+
		"They are failures in every denominator of the trace, so the measurement is whole and the exit status is 0, not a tool error\n",
		from, res.Window.EndMS, count, backoff)
	return true
}

// noneSucceededLine: a run in which something answered but nothing
// succeeded (a server that refuses every request, the wrong --api or
// --model past --no-preflight) is a recorded measurement, exit 0, but not
// of a server serving: say so with the first error before anyone reads
// its card.
func noneSucceededLine(stderr io.Writer, res *loadgen.Result) {
	if res.Recorded == 0 || res.Outcomes[trace.OK.String()] > 0 {
		return
	}
	var parts []string
	for _, o := range trace.Outcomes {
		if n := res.Outcomes[o.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
		}
	}
	fmt.Fprintf(stderr, "coursekit bench: no attempt succeeded: %s of %d; the first: %s. "+
		"The trace keeps every one, but it measures a server refusing the load, not serving it: check --url, --model and --api "+
		"(the pre-flight check, which --no-preflight skips, stops such a run before the load)\n",
		strings.Join(parts, ", "), res.Recorded, res.FirstFailure)
}

// loops counts the loops a config asks for: one of a rate, a replay or a
// concurrency.
func loops(c loadgen.Config) int {
	n := 0
	for _, on := range []bool{c.Rate != 0, len(c.Replay) > 0, c.Concurrency != 0} {
		if on {
			n++
		}
	}
	return n
}

// atLeastOneToken refuses --max-tokens below 1: 0 used to become the
// library's default of 64 without a word, and no server answers with no
// token.
func atLeastOneToken(cmd string, n int) error {
	if n < 1 {
		return usagef("%s: --max-tokens %d: a request must ask for at least 1 token", cmd, n)
	}
	return nil
}

// emptyLine names the empty answers and, on /v1/completions, their usual
// cause: the prompt goes to the model as raw text, without the chat
// template, and an instruct model given a bare question often samples its
// end-of-turn token first (docs/engineers.md, "Empty answers").
func emptyLine(stderr io.Writer, res *loadgen.Result, cfg loadgen.Config) {
	n := res.Outcomes[trace.EmptyOutput.String()]
	if n == 0 {
		return
	}
	fmt.Fprintf(stderr, "coursekit bench: %d of %s empty_output: the server ended the stream correctly with no text (the model's first token was its end-of-sequence token); they are failures in every denominator", n, lang.N(lang.EN, res.Recorded, "attempt was", "attempts were"))
	if cfg.API != "chat" {
		fmt.Fprint(stderr, "; on --api completions the prompt is sent as raw text without the model's chat template, and an instruct model given a bare question often ends its turn at once: --api chat applies the template (docs/engineers.md, \"Empty answers\")")
	}
	fmt.Fprintln(stderr)
}

// lateLine says how late the client itself woke during the run (the
// lateness probe), and what that means for its stamps when it is over the
// card's bound.
func lateLine(stderr io.Writer, l loadgen.LagStats) {
	if l.N == 0 {
		return
	}
	fmt.Fprintf(stderr, "coursekit bench: client wake-up lag (a probe every %s): p50 %s ms, p99 %s ms, max %s ms (n=%d)", loadgen.LatenessTick, numfmt.Num(l.P50), numfmt.Num(l.P99), numfmt.Num(l.Max), l.N)
	if l.Max > metrics.ClientLagBoundMS {
		fmt.Fprintf(stderr, "; over %g ms the client's own stamps may be that late (a loaded client machine): each attempt's meta.client_lag_ms says how late, and the card counts them", metrics.ClientLagBoundMS)
	}
	fmt.Fprintln(stderr)
}
