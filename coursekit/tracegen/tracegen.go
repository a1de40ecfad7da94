// Package tracegen writes seeded, reproducible practice traces: open-loop
// Poisson arrivals, a long-tailed TTFT, every outcome kind, retries that
// share a request id, multi-token events, quality labels, warm-up attempts
// before the window and attempts still in flight when it is captured.
//
// The same seed and config always give the same bytes.
package tracegen

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/llmperf-course/course/coursekit/trace"
)

// Config shapes a generated trace. Zero fields take the defaults below.
type Config struct {
	Seed      uint64
	Requests  int     // business requests to send (retries come on top)
	RatePerS  float64 // open-loop arrival rate
	TimeoutMS float64 // client timeout waiting for the first token
	// MaxRetries is how often a request is retried after a timeout,
	// connection error or 429/503.
	MaxRetries int
	// WindowCost is the cost of the measured window, in Currency.
	WindowCost float64
	Currency   string
}

// Defaults fills zero fields.
func (c Config) Defaults() Config {
	if c.Requests == 0 {
		c.Requests = 2000
	}
	if c.RatePerS == 0 {
		c.RatePerS = 20
	}
	if c.TimeoutMS == 0 {
		c.TimeoutMS = 3000
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = 2
	}
	if c.WindowCost == 0 {
		c.WindowCost = 3.6
	}
	if c.Currency == "" {
		c.Currency = "CNY"
	}
	return c
}

// Stats says what was written, so a caller can report it.
type Stats struct {
	Attempts, Requests int
}

// Generate writes a whole trace to w.
func Generate(w io.Writer, cfg Config) (Stats, error) {
	cfg = cfg.Defaults()
	if cfg.Requests < 1 || cfg.RatePerS <= 0 || cfg.TimeoutMS <= 0 || cfg.MaxRetries < 0 {
		return Stats{}, fmt.Errorf("tracegen: requests, rate and timeout must be positive")
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x636f757273656b69)) // "coursekit"
	spanMS := float64(cfg.Requests) / cfg.RatePerS * 1000
	// Warm-up is the first 5% of the run and the last 3% of arrivals fall
	// after the window: both are recorded, and reported as outside_window.
	win := trace.Window{StartMS: math.Round(spanMS * 0.05), EndMS: math.Round(spanMS * 0.97)}
	// The trace is captured a little after the window closes, so attempts
	// that started late in it may still be in flight.
	captureMS := win.EndMS + 400
	cost := cfg.WindowCost
	// The values are Chinese: notebook 04 shows them to learners. The keys
	// are the trace format's identifiers and stay English.
	conds, _ := json.Marshal(map[string]any{
		"generator":       "coursekit gen",
		"seed":            cfg.Seed,
		"model":           "合成数据（没有真实模型，仅供练习）",
		"arrival":         fmt.Sprintf("开环，泊松到达，平均每秒 %g 次", cfg.RatePerS),
		"input_tokens":    "对数正态分布，中位数 512",
		"output_tokens":   "对数正态分布，中位数 10",
		"timeout_policy":  fmt.Sprintf("等待首个 token 超过 %g ms 即放弃（超时）", cfg.TimeoutMS),
		"retries":         fmt.Sprintf("超时、连接被拒、HTTP 429 或 503 之后最多重试 %d 次；重试是新的尝试，沿用同一个业务请求 ID", cfg.MaxRetries),
		"warmup":          fmt.Sprintf("%g ms 之前开始的尝试是预热，不在窗口内", win.StartMS),
		"prefix_reuse":    "无",
		"capture_ms":      captureMS,
		"quality_rubric":  "合成标签：约 88% 评为通过，8% 评为不通过，4% 未评",
		"event_semantics": "约 10% 的事件带 2–4 个 token",
	})
	tw, err := trace.NewWriter(w, trace.Header{Clock: "client", Window: win, WindowCost: &cost, Currency: cfg.Currency, Conditions: conds})
	if err != nil {
		return Stats{}, err
	}
	g := gen{r: r, cfg: cfg, captureMS: captureMS}
	var st Stats
	t := 0.0
	for i := range cfg.Requests {
		t += r.ExpFloat64() / cfg.RatePerS * 1000
		req := fmt.Sprintf("q%06d", i+1)
		start := math.Round(t*10) / 10
		if start > captureMS {
			break // the client stopped when the trace was captured
		}
		for try := 0; ; try++ {
			st.Attempts++
			a := g.attempt(fmt.Sprintf("a%07d", st.Attempts), req, start)
			if err := tw.Write(&a); err != nil {
				return st, err
			}
			if !retryable(&a) || try == cfg.MaxRetries {
				break
			}
			start = a.EndMS + 200*math.Pow(2, float64(try)) + math.Round(r.Float64()*100)
			if start > captureMS {
				break
			}
		}
		st.Requests++
	}
	return st, tw.Flush()
}

func retryable(a *trace.Attempt) bool {
	switch a.Outcome {
	case trace.Timeout, trace.ConnectError:
		return true
	case trace.HTTPError:
		return a.HTTPStatus == 429 || a.HTTPStatus == 503
	}
	return false
}

type gen struct {
	r         *rand.Rand
	cfg       Config
	captureMS float64
	events    []trace.Event
}

func (g *gen) logNormal(median, sigma float64) float64 {
	return median * math.Exp(sigma*g.r.NormFloat64())
}

func ms(v float64) float64 { return math.Round(v*10) / 10 }

func (g *gen) attempt(id, req string, start float64) trace.Attempt {
	r := g.r
	a := trace.Attempt{ID: id, Request: req, StartMS: start, InputTokens: int(math.Max(1, math.Round(g.logNormal(512, 0.6))))}
	end := func(at float64) {
		a.EndMS, a.HasEnd = ms(at), true
	}
	switch u := r.Float64(); {
	case u < 0.01:
		a.Outcome, a.Error = trace.ConnectError, "connect: connection refused"
		end(start + 1 + r.Float64()*5)
		return g.capture(a)
	case u < 0.03:
		a.Outcome = trace.HTTPError
		a.HTTPStatus = []int{429, 503, 500}[r.IntN(3)]
		a.Error = fmt.Sprintf("HTTP %d", a.HTTPStatus)
		end(start + 5 + r.Float64()*40)
		return g.capture(a)
	}
	// Queueing and prefill: log-normal body, with 4% of attempts caught
	// behind a long queue (a Pareto tail), which makes TTFT long-tailed.
	ttft := g.logNormal(320, 0.45)
	if r.Float64() < 0.04 {
		ttft += 800 * (math.Pow(r.Float64(), -1/1.5) - 1)
	}
	a.HTTPStatus = 200
	timedOut := func() trace.Attempt {
		a.Outcome, a.HTTPStatus, a.Error = trace.Timeout, 0, fmt.Sprintf("no first token within %g ms", g.cfg.TimeoutMS)
		end(start + g.cfg.TimeoutMS)
		return g.capture(a)
	}
	if ttft > g.cfg.TimeoutMS {
		return timedOut()
	}
	out := int(math.Max(1, math.Round(g.logNormal(10, 0.5))))
	g.events = g.events[:0]
	// t is when the latest token is ready: the first at the TTFT, each
	// later one a decode gap after the one before. An event leaves when its
	// last token is ready, so a k-token event comes after the wait for its
	// k tokens (the first event's first token is the TTFT itself), never
	// before it.
	t := start + ttft
	for left := out; left > 0; {
		k := 1
		if r.Float64() < 0.10 {
			k = min(left, 2+r.IntN(3))
		}
		generated := k
		if len(g.events) == 0 {
			generated = k - 1
		}
		t += g.logNormal(35, 0.35) * float64(generated) * 0.6
		g.events = append(g.events, trace.Event{TMS: ms(t), Tokens: k})
		left -= k
	}
	if g.events[0].TMS-start > g.cfg.TimeoutMS {
		return timedOut() // a packed first event came after the client gave up
	}
	a.Events = g.events
	a.OutputTokens = out
	last := a.Events[len(a.Events)-1].TMS
	switch u := r.Float64(); {
	case u < 0.015 && len(a.Events) > 1:
		cut := 1 + r.IntN(len(a.Events)-1)
		a.Events = a.Events[:cut]
		a.Outcome, a.Error, a.OutputTokens = trace.StreamError, "stream reset by peer after HTTP 200", 0
		end(a.Events[cut-1].TMS + 1)
	case u < 0.02:
		a.Outcome, a.Error = trace.Cancelled, "client cancelled"
		end(last + 2)
	default:
		a.Outcome = trace.OK
		end(last + 3 + r.Float64()*10)
		switch q := r.Float64(); {
		case q < 0.88:
			a.Quality = trace.Pass
		case q < 0.96:
			a.Quality = trace.Fail
		}
	}
	return g.capture(a)
}

// capture cuts an attempt at the capture time: what had not ended by then
// is in flight, with the events seen so far and no end.
func (g *gen) capture(a trace.Attempt) trace.Attempt {
	if a.EndMS <= g.captureMS {
		return a
	}
	n := 0
	for n < len(a.Events) && a.Events[n].TMS <= g.captureMS {
		n++
	}
	a.Events = a.Events[:n]
	a.Outcome, a.HasEnd, a.EndMS, a.Quality, a.OutputTokens, a.Error = trace.InFlight, false, 0, trace.Unrated, 0, ""
	return a
}
