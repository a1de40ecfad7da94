package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/llmperf-course/course/coursekit/sim"
)

// signalContext is ctx, also cancelled by SIGINT or SIGTERM.
func signalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// rateFlag is a fault-injection rate in [0, 1].
type rateFlag struct{ v *float64 }

func (r rateFlag) String() string {
	if r.v == nil {
		return "0"
	}
	return fmt.Sprint(*r.v)
}

func (r rateFlag) Set(s string) error {
	var f float64
	if _, err := fmt.Sscan(s, &f); err != nil || math.IsNaN(f) || f < 0 || f > 1 {
		return fmt.Errorf("%q is not a rate between 0 and 1", s)
	}
	*r.v = f
	return nil
}

// hostsFlag collects --allow-host names (repeatable, or comma-separated).
type hostsFlag struct{ v *[]string }

func (h hostsFlag) String() string {
	if h.v == nil {
		return ""
	}
	return strings.Join(*h.v, ",")
}

func (h hostsFlag) Set(s string) error {
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		bare := strings.Trim(n, "[]")
		if n == "" || net.ParseIP(bare) == nil && strings.ContainsAny(n, "/:@[] ") {
			return fmt.Errorf("%q is not a host name (give a name or an IP without a port, or *)", n)
		}
		*h.v = append(*h.v, bare)
	}
	return nil
}

// isLoopback reports whether host (from --addr) only accepts connections
// from this machine.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func cmdSim(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	d := sim.DefaultConfig
	cfg := d
	addr := fs.String("addr", "127.0.0.1:8000", "listen address; the default accepts connections from this machine only")
	fs.StringVar(&cfg.Model, "model", d.Model, "model name listed by /v1/models")
	fs.IntVar(&cfg.MaxBatch, "max-batch", d.MaxBatch, "most sequences in one decode step")
	fs.DurationVar(&cfg.PrefillPerToken, "prefill-per-token", d.PrefillPerToken, "prefill cost of one input token")
	fs.DurationVar(&cfg.DecodeStep, "decode-step", d.DecodeStep, "decode step time with one sequence")
	fs.DurationVar(&cfg.DecodePerSeq, "decode-per-seq", d.DecodePerSeq, "extra step time per further sequence in the batch")
	fs.IntVar(&cfg.DefaultMaxTokens, "max-tokens", d.DefaultMaxTokens, "output length when a request gives no max_tokens: a default, which a request's max_tokens replaces (bench and capacity always send one; --output-cap caps them)")
	fs.IntVar(&cfg.OutputCap, "output-cap", 0, "most tokens any answer gets, whatever its max_tokens asks (0: no cap)")
	fs.IntVar(&cfg.MinOutput, "min-output", 0, "draw output lengths uniformly from [min-output, max_tokens] (0: always max_tokens)")
	fs.IntVar(&cfg.TokensPerEvent, "tokens-per-event", 1, "tokens coalesced into one SSE message")
	fs.Uint64Var(&cfg.Seed, "seed", d.Seed, "seed for output lengths and faults")
	fs.DurationVar(&cfg.BusyWindow, "busy-window", d.BusyWindow, "how far back the device-busy gauge looks")
	fs.IntVar(&cfg.TruthLimit, "truth-limit", d.TruthLimit, "requests kept in the /debug/truth log (oldest dropped)")
	fs.Var(rateFlag{&cfg.Faults.HTTP429}, "fail-429", "fraction of requests answered with HTTP 429 (default 0: none)")
	fs.Var(rateFlag{&cfg.Faults.HTTP503}, "fail-503", "fraction of requests answered with HTTP 503 (default 0: none)")
	fs.Var(rateFlag{&cfg.Faults.NoFirstToken}, "fail-no-first-token", "fraction of streams that never send a token, so the client must time out (default 0: none)")
	fs.Var(rateFlag{&cfg.Faults.Reset}, "fail-reset", "fraction of streams reset mid-stream (default 0: none)")
	fs.Var(rateFlag{&cfg.Faults.Malformed}, "fail-malformed", "fraction of streams with a malformed SSE message (default 0: none)")
	fs.Var(rateFlag{&cfg.WrongAnswerRate}, "wrong-answer-rate", "fraction of arith questions (bench --dataset arith) answered wrong on purpose, off by 1 to 9, seeded by --seed (default 0: every answer right)")
	fs.Var(rateFlag{&cfg.OverloadWrongAnswerRate}, "wrong-answer-rate-overload", "wrong-answer rate for arith questions that arrive while every batch slot is taken, used when higher than --wrong-answer-rate (default 0: no worse under overload)")
	fs.Var(hostsFlag{&cfg.AllowedHosts}, "allow-host", "also serve requests whose Host header is this name or IP (repeat; * for any), e.g. when sim is reached by a name on purpose; other names get 421, a defence against DNS rebinding (default: loopback names and the --addr IP only)")
	slowdown := fs.Float64("slowdown", 1, "multiply every step time (the lab's slow server)")
	cpuprofile := fs.String("cpuprofile", "", "write a Go CPU profile of the simulator to this file, until it stops (default: none)")
	preset := fs.String("preset", "", "bench: a server that is never the bottleneck, for measuring clients; flags given explicitly still win (default: none)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("sim: unexpected argument %q", pos[0])
	}
	switch *preset {
	case "":
	case "bench":
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		applyBenchPreset(&cfg, set)
	default:
		return usagef("sim: unknown --preset %q (want bench)", *preset)
	}
	switch {
	case cfg.MaxBatch < 1, cfg.DecodeStep <= 0, cfg.DefaultMaxTokens < 1, cfg.TokensPerEvent < 1, cfg.BusyWindow <= 0, cfg.TruthLimit < 1:
		return usagef("sim: --max-batch, --decode-step, --max-tokens, --tokens-per-event, --busy-window and --truth-limit must be positive")
	case cfg.PrefillPerToken < 0, cfg.DecodePerSeq < 0, cfg.MinOutput < 0, cfg.OutputCap < 0:
		return usagef("sim: --prefill-per-token, --decode-per-seq, --min-output and --output-cap must not be negative")
	case !(*slowdown > 0) || math.IsInf(*slowdown, 0):
		return usagef("sim: --slowdown must be positive")
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return usagef("sim: --addr %q: %v", *addr, err)
	}
	if !isLoopback(host) {
		fmt.Fprintf(stderr, "coursekit sim: warning: --addr %s accepts connections from other machines; the simulator has no authentication\n", *addr)
		if ip := net.ParseIP(host); (host == "" || ip != nil && ip.IsUnspecified()) && len(cfg.AllowedHosts) == 0 {
			fmt.Fprintf(stderr, "coursekit sim: note: requests must name this machine as localhost or a loopback IP; to reach it by another name or IP, give --allow-host NAME\n")
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	s := sim.New(cfg)
	s.SetSlowdown(*slowdown)
	bound := ln.Addr().String()
	fmt.Fprintf(stderr, "coursekit sim: model %q on http://%s (POST /v1/completions, /v1/chat/completions; GET /v1/models, /metrics, /debug/truth); Ctrl-C stops\n", cfg.Model, bound)
	stopTuning, err := tuneForStamping(*cpuprofile)
	if err != nil {
		return err
	}
	defer stopTuning()
	ctx, stop := signalContext(ctx)
	defer stop()
	if err := s.Serve(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "coursekit sim: stopped")
	return nil
}

// benchPreset is `sim --preset bench`: the settings of the client-accuracy
// benchmark. The step costs are small and the batch unbounded, so queueing
// never grows with the rate and the server keeps up with thousands of
// requests per second on a small machine; short outputs keep the bytes per
// request low; the truth log holds every request of a long run.
var benchPreset = map[string]func(*sim.Config){
	"max-batch":         func(c *sim.Config) { c.MaxBatch = 1 << 20 },
	"prefill-per-token": func(c *sim.Config) { c.PrefillPerToken = 0 },
	"decode-step":       func(c *sim.Config) { c.DecodeStep = time.Millisecond },
	"decode-per-seq":    func(c *sim.Config) { c.DecodePerSeq = 0 },
	"max-tokens":        func(c *sim.Config) { c.DefaultMaxTokens = 4 },
	"truth-limit":       func(c *sim.Config) { c.TruthLimit = 1 << 21 },
}

// applyBenchPreset sets every preset field whose flag was not given.
func applyBenchPreset(cfg *sim.Config, set map[string]bool) {
	for name, f := range benchPreset {
		if !set[name] {
			f(cfg)
		}
	}
}
