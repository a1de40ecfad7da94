package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

func cmdBench(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var cfg loadgen.Config
	fs.StringVar(&cfg.URL, "url", "http://127.0.0.1:8000", "base URL of an OpenAI-compatible server")
	fs.StringVar(&cfg.API, "api", "completions", "completions or chat")
	fs.StringVar(&cfg.Model, "model", "", "model to request (default: the first in /v1/models)")
	fs.Float64Var(&cfg.Rate, "rate", 0, "open loop: requests/s on a schedule fixed in advance (0: not open loop; give --rate, --concurrency or --replay)")
	arrival := fs.String("arrival", "poisson", "open-loop arrivals: constant, poisson or gamma")
	fs.Float64Var(&cfg.Burstiness, "burstiness", 1, "gamma shape: 1 is Poisson, below 1 burstier, above 1 smoother (implies --arrival gamma)")
	replay := fs.String("replay", "", "open loop: replay the send times of the requests in this trace (default: none)")
	fs.IntVar(&cfg.Concurrency, "concurrency", 0, "closed loop: users, each waiting for its previous answer (0: not closed loop); the load follows the server, unlike --rate with --max-concurrency")
	fs.IntVar(&cfg.MaxConcurrency, "max-concurrency", 0, "open loop: at most this many requests in flight; arrivals of --rate or --replay beyond it wait, and the wait is in the send lag (default 0: no cap)")
	fs.DurationVar(&cfg.ThinkTime, "think-time", 0, "closed loop: pause of each user between answer and next request (default 0: none)")
	fs.DurationVar(&cfg.Duration, "duration", 30*time.Second, "measured window (after the warm-up)")
	fs.Int64Var(&cfg.NumRequests, "num-requests", 0, "stop after this many requests planned in the window (retries and warm-up not counted; the window then ends when the last attempt ends; --duration still bounds it; default 0: no cap)")
	fs.DurationVar(&cfg.Warmup, "warmup", 0, "warm-up before the window: sent and recorded, not measured (default 0: none)")
	fs.DurationVar(&cfg.Timeout, "timeout", 10*time.Second, "per attempt, send to end of stream (0: none)")
	fs.IntVar(&cfg.MaxTokens, "max-tokens", 64, "max_tokens of every request")
	fs.IntVar(&cfg.PromptTokens, "prompt-tokens", 32, "prompt length in words")
	var prompts promptFlags
	prompts.register(fs)
	fs.BoolVar(&cfg.IgnoreEOS, "ignore-eos", false, "ask vLLM-style servers for exactly --max-tokens tokens")
	fs.BoolVar(&cfg.ContinuousUsage, "continuous-usage", false, "ask for usage on every chunk (vLLM), to count tokens per event")
	fs.IntVar(&cfg.Retries, "retries", 0, "retries of a failed request (connect error, no response, timeout, 429, 5xx), each a new attempt (default 0: none)")
	fs.DurationVar(&cfg.RetryBackoff, "retry-backoff", 100*time.Millisecond, "pause before a retry")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the arrival schedule and of --dataset arith's questions")
	ds := fs.String("dataset", "", "prompts whose answers are judged during the run: arith (built-in arithmetic questions with exact answers; the default seed gives data/datasets/arith.jsonl) "+
		`or a JSONL file, one {"prompt": …, "expect": {"exact"|"contains"|"regex"|"json_schema": …}} per line, sent in order (default: none; generated prompts, every answer unrated, goodput 0)`)
	keyEnv := fs.String("api-key-env", "", "name of an environment variable holding a bearer token, sent only to the scheme, host and port of --url (bench never follows a redirect; default: no Authorization header)")
	out := fs.String("out", "", "trace file to write (default or -: stdout)")
	every := fs.Duration("progress", time.Second, "progress line interval on stderr (0: off)")
	fs.StringVar(&cfg.MetricsURL, "metrics-url", "", "scrape this Prometheus /metrics URL during the run into TRACE.metrics.jsonl, named in the header as conditions.metrics_sidecar; coursekit report draws its request gauges beside the client's in-flight count (needs --out FILE; the --api-key-env token is sent only if it is on the origin of --url; default: none)")
	fs.DurationVar(&cfg.MetricsEvery, "metrics-interval", time.Second, "interval of the --metrics-url scrapes")
	cpuprofile := fs.String("cpuprofile", "", "write a Go CPU profile of the client to this file (default: none)")
	noPreflight := fs.Bool("no-preflight", false, "send the load without first checking that --url answers GET /v1/models as an OpenAI-compatible server (default: check, and stop before any load if it does not)")
	var slos cardopts.Flags
	slos.RegisterSLOs(fs, "TTFT SLO of a condition of the run's card (repeat; default 1s)")
	var conds conditionFlags
	fs.Var(&conds, "condition", conditionHelp)
	levels := fs.String("percentiles", "", "percentile levels the run's card shows, e.g. 50,90,99,99.9, recorded as conditions.percentiles (default: 50,90,95,99)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("bench: unexpected argument %q", pos[0])
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := atLeastOneToken("bench", cfg.MaxTokens); err != nil {
		return err
	}
	if cfg.Rate > 0 || *replay != "" {
		a, err := loadgen.ParseArrival(*arrival)
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
	if *replay != "" {
		if cfg.Rate != 0 {
			return usagef("bench: give --rate or --replay, not both")
		}
		if cfg.Replay, err = loadgen.ReplayOffsets(*replay); err != nil {
			return err
		}
		if !set["duration"] {
			cfg.Duration = 0 // the replay's own span
		}
	}
	if set["max-concurrency"] && cfg.Rate == 0 && *replay == "" {
		return usagef("bench: --max-concurrency caps an open loop: give it with --rate or --replay (--concurrency is a closed loop)")
	}
	if set["think-time"] && cfg.Concurrency == 0 {
		return usagef("bench: --think-time needs --concurrency (a closed loop)")
	}
	if u, err := url.Parse(cfg.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("bench: --url %q is not an http(s) URL", loadgen.RedactURL(cfg.URL))
	}
	if *ds != "" {
		if set["prompt-tokens"] {
			return usagef("bench: --prompt-tokens applies to generated prompts, not to --dataset")
		}
		if cfg.Dataset, err = dataset.Load(*ds, cfg.Seed); err != nil {
			if trace.IsBadInput(err) || os.IsNotExist(err) {
				return err
			}
			return usagef("bench: %v", err)
		}
	}
	if err := prompts.apply(&cfg, set); err != nil {
		return err
	}
	if *keyEnv != "" {
		key := os.Getenv(*keyEnv)
		if key == "" {
			return usagef("bench: --api-key-env %s: the variable is empty or unset", *keyEnv)
		}
		cfg.Header = http.Header{"Authorization": {"Bearer " + key}}
	}
	if cfg.API != "completions" && cfg.API != "chat" {
		return usagef("bench: --api %q: want chat or completions", cfg.API)
	}
	if err := cfg.Validate(); err != nil {
		if loops(cfg) != 1 { // the hint names the flags that choose the loop, and only for that error
			return usagef("bench: %v (flags: --rate R | --concurrency N | --replay TRACE)", err)
		}
		return usagef("bench: %v", err)
	}
	cfg.Conditions = map[string]any{}
	if slos.SLOsGiven() {
		cfg.Conditions["slo"] = slos.SLOSet()
	}
	if err := conds.add(cfg.Conditions, &cfg); err != nil {
		return usagef("bench: %v", err)
	}
	if *levels != "" {
		ps, err := metrics.ParseLevels(*levels)
		if err != nil {
			return usagef("bench: --percentiles: %v", err)
		}
		cfg.Conditions["percentiles"] = ps
	}
	if *every > 0 {
		cfg.ProgressEvery = *every
		cfg.Progress = func(p loadgen.Progress) { fmt.Fprintln(stderr, "coursekit bench:", p) }
	}

	if cfg.MetricsURL != "" {
		if u, err := url.Parse(cfg.MetricsURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("bench: --metrics-url %q is not an http(s) URL", loadgen.RedactURL(cfg.MetricsURL))
		}
		if *out == "" || *out == "-" {
			return usagef("bench: --metrics-url needs --out FILE (the scrapes go to FILE.metrics.jsonl beside it)")
		}
		if cfg.MetricsEvery <= 0 {
			return usagef("bench: --metrics-interval must be positive")
		}
	}
	w, name := stdout, "stdout"
	var f *os.File
	var outW, sideW *emptiedOnWrite
	if *out != "" && *out != "-" {
		warnRepeat(stderr, *out, cfg) // before the file is emptied: it reads the last run's header
		_, statErr := os.Stat(*out)
		if f, err = openLocked(*out, "--out"); err != nil {
			return err
		}
		defer f.Close()
		if errors.Is(statErr, os.ErrNotExist) {
			// A run that fails before it writes leaves no empty file that card would refuse.
			defer func() {
				if !outW.emptied {
					os.Remove(*out)
				}
			}()
		}
		outW = &emptiedOnWrite{f: f}
		w, name = outW, *out
	}
	if cfg.MetricsURL != "" {
		side := *out + ".metrics.jsonl"
		_, statErr := os.Stat(side)
		mf, err := openLocked(side, "the --metrics-url sidecar")
		if err != nil {
			return err
		}
		defer mf.Close()
		if errors.Is(statErr, os.ErrNotExist) {
			defer func() {
				if !outW.emptied && !sideW.emptied {
					os.Remove(side)
				}
			}()
		}
		sideW = &emptiedOnWrite{f: mf}
		cfg.MetricsSink = sideW
		cfg.Conditions["metrics_sidecar"] = filepath.Base(side)
		cfg.Conditions["metrics_url"] = loadgen.RedactURL(cfg.MetricsURL)
		cfg.Conditions["metrics_scrape"] = "one JSON line per scrape every " + cfg.MetricsEvery.String() + ": t_ms on this trace's clock when the GET was sent, dur_ms until the answer was read, values of every gauge and counter by name{labels} (NaN and infinite values left out: JSON has none), or error (a redirect is not followed; a body over 16 MiB or 100,000 lines is not read; past " + strconv.Itoa(loadgen.MaxScrapeSeries) + " series, the request gauges and then the first by name are kept, and capped counts the rest)"
	}
	if !*noPreflight {
		// After the locks (a second bench on the same file is refused first),
		// before the first write: a wrong URL leaves the last trace as it was.
		if err := loadgen.Preflight(context.Background(), cfg.Client, cfg.URL, cfg.Header); err != nil {
			return fmt.Errorf("bench: pre-flight: %v; check --url, or give --no-preflight to send the load anyway", err)
		}
	}
	stopTuning, err := tuneForStamping(*cpuprofile)
	if err != nil {
		return err
	}
	defer stopTuning()
	ctx, stop := signalContext()
	defer stop()
	res, err := loadgen.Run(ctx, cfg, w)
	if outW != nil && outW.emptied && sideW != nil && !sideW.emptied {
		// The run wrote its trace but no scrape: the last run's scrapes must not stay beside it.
		if terr := sideW.f.Truncate(0); terr != nil && err == nil {
			err = terr
		}
	}
	if res != nil {
		var parts []string
		for _, o := range trace.Outcomes {
			if n := res.Outcomes[o.String()]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", o, n))
			}
		}
		state := runState(res)
		fmt.Fprintf(stderr, "coursekit bench: %s: sent %d, recorded %d (%s) to %s; window [%g, %g) ms; send lag p50 %.3f ms, p99 %.3f ms, max %.3f ms (n=%d)\n",
			state, res.Sent, res.Recorded, strings.Join(parts, ", "), name,
			res.Window.StartMS, res.Window.EndMS, res.Lag.P50, res.Lag.P99, res.Lag.Max, res.Lag.N)
		saltLine(stderr, res, cfg)
		lateLine(stderr, res.ClientLag)
		switch {
		case cfg.Dataset == nil && slos.Latency.Set():
			fmt.Fprintln(stderr, "coursekit bench: quality: not judged (no --dataset), so the card qualifies complete successes on latency alone (--slo-ttft with --slo-e2e, --slo-itl-p95, --slo-tpot)")
		case cfg.Dataset == nil:
			fmt.Fprintln(stderr, "coursekit bench: quality: not judged (no --dataset), so every answer is unrated and goodput will be 0; judge the answers with --dataset arith or --dataset FILE.jsonl")
		case cfg.Dataset.Rated() == 0:
			fmt.Fprintf(stderr, "coursekit bench: quality: not judged: no prompt of %s has an \"expect\", so every answer is unrated and goodput will be 0\n", cfg.Dataset.Name)
		default:
			fmt.Fprintf(stderr, "coursekit bench: quality: %d pass of %d judged (%s, %s; %d of %d prompts have an expectation)\n",
				res.Passes, res.Rated, cfg.Dataset.Name, strings.Join(cfg.Dataset.JudgeNames(), ", "), cfg.Dataset.Rated(), len(cfg.Dataset.Items))
		}
	}
	if res != nil && res.Unsent > 0 {
		fmt.Fprintf(stderr, "coursekit bench: --max-concurrency %d: %d arrivals of the schedule were still waiting for a slot when the window ended and were not sent (not in the trace)\n", cfg.MaxConcurrency, res.Unsent)
	}
	if err != nil {
		return err
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "coursekit bench: next: coursekit card %s\n", name)
	}
	return nil
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

// lateLine says how late the client itself woke during the run (the
// lateness probe), and what that means for its stamps when it is over the
// card's bound.
func lateLine(stderr io.Writer, l loadgen.LagStats) {
	if l.N == 0 {
		return
	}
	fmt.Fprintf(stderr, "coursekit bench: client wake-up lag (a probe every %s): p50 %.3f ms, p99 %.3f ms, max %.3f ms (n=%d)", loadgen.LatenessTick, l.P50, l.P99, l.Max, l.N)
	if l.Max > metrics.ClientLagBoundMS {
		fmt.Fprintf(stderr, "; over %g ms the client's own stamps may be that late (a loaded client machine): each attempt's meta.client_lag_ms says how late, and the card counts them", metrics.ClientLagBoundMS)
	}
	fmt.Fprintln(stderr)
}
