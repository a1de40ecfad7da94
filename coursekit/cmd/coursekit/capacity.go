package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/lab"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/trace"
)

func cmdCapacity(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("capacity", flag.ContinueOnError)
	var c capacity.Config
	fs.StringVar(&c.Bench.URL, "url", "http://127.0.0.1:8000", "base URL of an OpenAI-compatible server")
	fs.StringVar(&c.Bench.API, "api", "completions", "completions or chat")
	fs.StringVar(&c.Bench.Model, "model", "", "model to request (default: the first in /v1/models)")
	fs.IntVar(&c.Bench.MaxTokens, "max-tokens", 64, "max_tokens of every request")
	fs.IntVar(&c.Bench.PromptTokens, "prompt-tokens", 32, "prompt length in words (generated prompts)")
	fs.DurationVar(&c.Bench.Timeout, "timeout", 10*time.Second, "per attempt, send to end of stream (0: none)")
	fs.Uint64Var(&c.Bench.Seed, "seed", 1, "seed of the search: each step's Poisson schedule draws its own seed, derived from it, the step's rate and its run (the step's JSON seed), so the same --seed replays the same steps; also the seed of --dataset arith")
	ds := fs.String("dataset", "", "prompts whose answers are judged: arith or a JSONL file, as in bench (default: none; every answer unrated: nothing qualifies on --slo-ttft alone, and with --slo-e2e, --slo-itl-p95 or --slo-tpot a step qualifies on latency alone)")
	slo := fs.Duration("slo-ttft", time.Second, "TTFT SLO of joint qualification")
	var lat cardopts.Flags
	lat.RegisterSLOs(fs, "")
	fs.Float64Var(&c.Target, "target", 0.9, "share of all attempts in a step's window that must qualify, in (0, 1]")
	fs.Float64Var(&c.StartRate, "start-rate", 1, "first step's open-loop rate, requests/s")
	fs.Float64Var(&c.MaxRate, "max-rate", 1000, "highest rate searched, requests/s")
	fs.Float64Var(&c.Growth, "growth", 2, "factor between steps until one does not meet")
	fs.Float64Var(&c.Resolution, "resolution", 1, "bisect until the rates meeting and not meeting are this close, requests/s; a step meets only when its window shows the server short of the offered rate by at most this (docs/capacity.md, keeping up)")
	fs.DurationVar(&c.Warmup, "warmup", 2*time.Second, "warm-up of every step, sent and recorded, not measured")
	fs.DurationVar(&c.StepDuration, "step-duration", 10*time.Second, "first window of every step")
	fs.DurationVar(&c.StepMaxDuration, "step-max-duration", 40*time.Second, "an undecided step is re-run with a doubled window up to this")
	fs.StringVar(&c.OutDir, "out", "", "directory for the steps' traces, one per run, never overwritten (required; no default)")
	fs.StringVar(&c.BusyGauge, "busy-gauge", capacity.SimBusyCounter, "the server's busy reading on /metrics, scraped every 250 ms of each step into TRACE.metrics.jsonl: a busy-seconds counter (name ending _total; its rate over the window) or a 0–1 gauge (the mean of its reads); \"\" reads none; a server without it leaves busy null")
	format := fs.String("format", "text", "text or json")
	langName := langFlag(fs)
	chart := fs.String("chart", "", "also write the search as an offline HTML page: attainment with its Wilson band, target, busy share, goodput and P95 TTFT against the offered rate (default: none)")
	noPreflight := fs.Bool("no-preflight", false, "start the search without first checking that --url answers GET /v1/models as an OpenAI-compatible server that lists --model (default: check, and stop before any load, exit 2, if it does not)")
	previous := fs.String("previous", "", "an earlier search's --format json output, run with the same flags: say whether this search gives the same answer, and why not when it does not (default: none)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	l, err := resolveLang("capacity", *langName)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("capacity: unexpected argument %q", pos[0])
	}
	if err := atLeastOneToken("capacity", c.Bench.MaxTokens); err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return usagef("capacity: unknown --format %q (want text or json)", *format)
	}
	if c.OutDir == "" {
		return usagef("capacity: --out DIR is required (each step's trace is kept there)")
	}
	if u, err := url.Parse(c.Bench.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("capacity: --url %q is not an http(s) URL", loadgen.RedactURL(c.Bench.URL))
	}
	c.SLOTTFTMS = float64(*slo) / float64(time.Millisecond)
	c.Latency = lat.Latency
	if *ds != "" {
		if c.Bench.Dataset, err = dataset.Load(*ds, c.Bench.Seed); err != nil {
			if trace.IsBadInput(err) || os.IsNotExist(err) {
				return err
			}
			return usagef("capacity: %v", err)
		}
		if c.Bench.Dataset.Rated() == 0 {
			// A dataset asks for judging, and with nothing to judge every step's
			// goodput would be unknown: refuse before any load is sent.
			return setupf("capacity: --dataset %s: none of its %s has an expected answer, so no answer can be judged and no step could be decided; add expectations to it, or leave --dataset out and qualify on a latency SLO (--slo-e2e, --slo-itl-p95, --slo-tpot)", *ds, lang.N(lang.EN, len(c.Bench.Dataset.Items), "prompt", "prompts"))
		}
	}
	if err := c.Validate(); err != nil {
		return usagef("capacity: %v", err)
	}
	if c.Bench.Dataset == nil && !c.Latency.Set() {
		// Unrated answers never pass quality, and with a TTFT SLO alone that
		// makes every step 0 % qualified: refuse before any load is sent.
		return usagef("capacity: nothing can qualify: without --dataset every answer is unrated, and with only --slo-ttft an unrated answer does not qualify; give --dataset arith|FILE.jsonl to judge answers, or a latency SLO beyond TTFT (--slo-e2e, --slo-itl-p95, --slo-tpot) to qualify on latency alone")
	}
	var prev *capacity.Result
	if *previous != "" {
		// Read before any load, so a bad file is an error up front.
		if prev, err = readCapacityJSON(*previous); err != nil {
			return setupf("capacity: --previous: %v", err)
		}
	}
	// Opened before any load, so a bad path is an error up front.
	page, err := createChart("capacity", *chart, *previous)
	if err != nil {
		return err
	}
	// As bench: a URL that does not answer as an OpenAI-compatible server,
	// or does not list --model, stops the search before any step, and
	// before --out is made.
	if !*noPreflight {
		if err := loadgen.PreflightModel(context.Background(), nil, c.Bench.URL, c.Bench.Header, c.Bench.Model); err != nil {
			page.discard()
			return setupf("capacity: pre-flight: %v; check --url and --model, or give --no-preflight to search anyway", err)
		}
	}
	if line := cardfmt.CapacityShortStartIn(l, c.StartRate, c.StepDuration.Seconds(), c.StepMaxDuration.Seconds(), capacity.AttemptsToMeet(c.Target)); line != "" {
		// Up front, with the start lines: a first window too short for
		// the attempts meeting the target needs is extended, step by
		// step, and the search takes that long (walk 35e, F7).
		fmt.Fprintln(stderr, "coursekit capacity: "+line)
	}
	c.OnStep = func(s capacity.Step) { io.WriteString(stderr, capacityStepLine(l, s, c.Target)) }
	// While a step runs: a line as each run starts and about every 5 s
	// (notebook 10's progress, lab.SearchProgress), never on stdout.
	lab.SearchProgress(&c, lab.SearchProgressOptions{Out: stderr, Lang: l, Every: 5 * time.Second, Prefix: "coursekit capacity: "})
	ctx, stop := signalContext(ctx)
	defer stop()
	res, err := capacity.Search(ctx, c)
	if err != nil {
		page.discard()
		return err
	}
	if prev != nil {
		ag := capacity.Again(prev, res)
		ag.Previous = *previous
		res.Again = &ag
	}
	if err := page.write(stderr, l, func(w io.Writer) error { return labfig.WriteCapacityPage(w, lab.CapacityChart(res), l) }); err != nil {
		return err
	}
	if *format == "json" {
		return writeCapacityJSON(stdout, res)
	}
	_, err = io.WriteString(stdout, capacityTextIn(l, res))
	return err
}

// capacityStepLine is a finished step on stderr in lg: its counts with any
// attempts its early stop cut off (as the text and the chart print them),
// its verdict, its reason and its trace. The reason is the step's own
// (English, as in the JSON) in English, and in Chinese one built from the
// same figures (capacityReasonIn): never English inside Chinese (walk 35g,
// F3). target is the search's --target.
func capacityStepLine(lg lang.Lang, s capacity.Step, target float64) string {
	verdict, reason := s.Verdict, s.Reason
	if lg != lang.EN {
		verdict, reason = cardfmt.CapacityVerdictIn(lg, s.Verdict), capacityReasonIn(lg, s, target)
	}
	return lg.F(lang.Msg{"coursekit capacity: %s 次/s：%d / %d 合格%s，%s（%s），%s\n", "coursekit capacity: %s req/s: %d/%d qualified%s, %s (%s), %s\n"},
		capacity.Rate(s.Rate), s.Qualified, s.Attempts, cardfmt.CapacityCutOffIn(lg, s.StoppedEarly(), s.InFlight), verdict, reason, s.Trace)
}

// capacityReasonIn is a step's reason in lg from its recorded figures, as
// the step's text prints them: the Wilson rule's bound against target, the
// overload test's figures for a step failed on overload, and the keep-up
// line (keepUpLine) of a step with a load check.
func capacityReasonIn(lg lang.Lang, s capacity.Step, target float64) string {
	pct := func(v float64) string { return numfmt.PctFixed(v) }
	tgt := numfmt.Num(target*100) + "%"
	var parts []string
	switch {
	case s.BeforeWindow:
		return cardfmt.CapacityBeforeWindowIn(lg)
	case s.Verdict == capacity.Interrupted:
		return lg.S(lang.Msg{"搜索在这一步中被中断", "the search was interrupted during this step"})
	case s.Overloaded() && s.Load != nil:
		l := s.Load
		f := l.Figures()
		head := lg.S(lang.Msg{"过载", "overload"})
		if s.StoppedEarly() {
			head = lg.S(lang.Msg{"提前停止：过载", "stopped early: overload"})
		}
		parts = append(parts, head+lg.F(lang.Msg{"：%s s 里完成 %d 次 = %s 次/s（95%% 区间 [%s, %s]），低于提供的 %s 次/s；在途 %d → %d（预期 %s，%s 个标准误）",
			": in %s s, %d completed = %s/s (95%% interval [%s, %s]), below the offered %s/s; in flight %d → %d (expected %s, %s standard errors)"},
			numfmt.Fixed(l.WindowS, 2), l.Completions, f.CompletionPerS, f.CompletionLow, f.CompletionHigh, f.Offered, l.InFlightStart, l.InFlightEnd, f.ExpectedInFlight, f.GrowthZ))
	case s.CILow == nil || s.CIHigh == nil:
		return lg.S(lang.Msg{"窗口里没有尝试", "no attempts in the window"})
	case s.Verdict == capacity.Meets:
		parts = append(parts, lg.F(lang.Msg{"Wilson 下界 %s ≥ 目标 %s", "Wilson lower bound %s ≥ target %s"}, pct(*s.CILow), tgt))
	case s.Verdict == capacity.Fails:
		parts = append(parts, lg.F(lang.Msg{"Wilson 上界 %s < 目标 %s", "Wilson upper bound %s < target %s"}, pct(*s.CIHigh), tgt))
	case *s.CILow >= target:
		// Undecided with its interval above the target: met on its SLOs
		// while its longest window did not show the server keeping up
		// (walk 35k: "区间 [95.1%, 99.1%] 跨过目标 90%").
		parts = append(parts, lg.F(lang.Msg{"Wilson 下界 %s ≥ 目标 %s，但到最长窗口也没显示服务器跟得上（过载尚无定论）", "Wilson lower bound %s ≥ target %s, but its longest window did not show the server keeping up (overload undecided)"}, pct(*s.CILow), tgt))
	default:
		parts = append(parts, lg.F(lang.Msg{"Wilson 区间 [%s, %s] 跨过目标 %s", "Wilson interval [%s, %s] holds the target %s"}, pct(*s.CILow), pct(*s.CIHigh), tgt))
		if need := capacity.AttemptsToMeet(target); s.Attempts < int64(need) {
			parts = append(parts, lg.F(lang.Msg{"尝试太少：%d 次，全部合格也要至少 %d 次才能达标（加长 --step-duration 或 --step-max-duration，或提高速率）", "too few attempts: %d, and meeting it needs at least %d even if all qualify (a longer --step-duration or --step-max-duration, or a higher rate)"}, s.Attempts, need))
		}
	}
	if line := keepUpLineLate(lg, s, lateInline(lg, s)); line != "" {
		parts = append(parts, line)
	}
	return strings.Join(parts, lg.S(lang.Msg{"；", "; "}))
}

// writeCapacityJSON writes the search as indented JSON, its floats as the
// JSON card writes them (cardfmt.JSONIndent). The model's name
// comes from the server (its /v1/models): its C1 controls and bidi
// overrides are written as \u escapes (safetext.JSON).
func writeCapacityJSON(w io.Writer, res *capacity.Result) error {
	b, err := cardfmt.JSONIndent(res)
	if err != nil {
		return err
	}
	_, err = w.Write(append(safetext.JSON(b), '\n'))
	return err
}

// readCapacityJSON reads a search written by capacity --format json.
func readCapacityJSON(path string) (*capacity.Result, error) {
	b, err := readInput(path, "--previous", capacityJSONLimit)
	if err != nil {
		return nil, err
	}
	var r capacity.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a capacity search's JSON (%v)", path, err)
	}
	if r.Target == 0 || r.Method == "" {
		return nil, fmt.Errorf("%s: not a capacity search's JSON (no target or method)", path)
	}
	return &r, nil
}

// capacityRule is the joint-qualification rule of the search, in lg.
func capacityRule(lg lang.Lang, r *capacity.Result) string {
	return cardfmt.CapacityRuleIn(lg, r.SLOTTFTMS, r.LatencySLO, r.Judged())
}

// capacityText is the search in Chinese: the answer with its interval, the
// steps and the time spent.
func capacityText(r *capacity.Result) string { return capacityTextIn(lang.ZH, r) }

// capacityTextIn is capacityText in l.
func capacityTextIn(lg lang.Lang, r *capacity.Result) string {
	var b strings.Builder
	p := func(m lang.Msg, a ...any) { b.WriteString(m.F(lg, a...) + "\n") }
	pc := func(v *float64) string {
		if v == nil {
			return lg.S(lang.Msg{"无", "none"})
		}
		return numfmt.PctFixed(*v)
	}
	iv := func(lo, hi *float64) string { // "none" for a step without attempts, never "[无, 无]"
		if lo == nil || hi == nil {
			return lg.S(lang.Msg{"无", "none"})
		}
		return "[" + pc(lo) + ", " + pc(hi) + "]"
	}
	busy := func(v *float64) string { // a server without a busy reading did not report one: not "none busy"
		if v == nil {
			return lg.S(lang.Msg{"服务器未报告", "not reported"})
		}
		b := capacity.BusyShown(*v) // at most 100 %: two clocks (capacity.BusyShown)
		return pc(&b)
	}
	rule := capacityRule(lg, r)
	p(lang.Msg{"容量搜索：联合合格（%s）占全部尝试的比例 ≥ %s%%；判定用 95%% Wilson 得分区间", "Capacity search: share of all attempts qualified (%s) ≥ %s%%; decided by the 95%% Wilson score interval"}, rule, numfmt.Num(r.Target*100))
	if r.MaxTokens > 0 {
		p(lang.Msg{"每个请求都发送 max_tokens %d（--max-tokens）：请求最多 %s 个 token 的回答（服务器可能更早停止），服务器自己的默认值（如 coursekit sim --max-tokens）不起作用", "Every request sends max_tokens %d (--max-tokens): it asks for up to %s (the server may stop sooner), and a server's own default (coursekit sim --max-tokens) does not apply"}, r.MaxTokens, lang.N(lg, r.MaxTokens, "token", "tokens"))
	}
	for _, s := range r.Steps {
		verdict := cardfmt.CapacityVerdictIn(lg, s.Verdict)
		if s.Overloaded() {
			verdict += lg.S(lang.Msg{"，过载", ", overload"})
		}
		cut := cardfmt.CapacityCutOffIn(lg, s.StoppedEarly(), s.InFlight)
		if s.BeforeWindow {
			// It measured nothing: no window, extension, busy share or
			// load figures to print.
			p(lang.Msg{"  %s 次/s：%d / %d 合格 = %s，区间 %s → %s（%s）", "  %s req/s: %d / %d qualified = %s, interval %s → %s (%s)"}, capacity.Rate(s.Rate), s.Qualified, s.Attempts, pc(s.Attainment), iv(s.CILow, s.CIHigh), verdict, cardfmt.CapacityBeforeWindowIn(lg))
			continue
		}
		p(lang.Msg{"  %s 次/s：%d / %d 合格%s = %s，区间 %s → %s（窗口 %s s，%s；设备忙碌 %s）", "  %s req/s: %d / %d qualified%s = %s, interval %s → %s (window %s s, %s; device busy %s)"}, capacity.Rate(s.Rate), s.Qualified, s.Attempts, cut, pc(s.Attainment), iv(s.CILow, s.CIHigh), verdict, numfmt.Fixed(s.WindowS, 1), cardfmt.CapacityExtendedIn(lg, s.Extended), busy(s.BusyMean))
		if l := s.Load; l != nil {
			f := l.Figures() // the numbers of the stderr reason, formatted once
			// Beside the overload test's own window: in a step stopped
			// early it is the span that stopped it, not the step's window.
			p(lang.Msg{"    %s里：完成 %d 次 = %s 次/s（95%% 区间 [%s, %s]），提供 %s 次/s；提供 − 完成 %s 次/s（95%% 区间 [%s, %s]），在途 %d → %d", "    in %s: %d completed = %s/s (95%% interval [%s, %s]), offered %s/s; offered − completed %s/s (95%% interval [%s, %s]), in flight %d → %d"},
				cardfmt.CapacityLoadWindowIn(lg, *l), l.Completions, f.CompletionPerS, f.CompletionLow, f.CompletionHigh, f.Offered,
				f.Slope, f.SlopeLow, f.SlopeHigh, l.InFlightStart, l.InFlightEnd)
			if line := keepUpLine(lg, s); line != "" {
				b.WriteString("    " + line + "\n")
			}
			if short := cardfmt.CapacityArrivalsShortIn(lg, *l); short != "" && l.Resolution > 0 && !s.StoppedEarly() {
				// The keep-up line's share of the schedule: a light window
				// tested less than λ while the bound above is against λ.
				b.WriteString("    " + short + "\n")
			}
		}
		if late := cardfmt.CapacityLatenessIn(lg, s); late != "" {
			b.WriteString("    " + late + "\n")
		}
		if wb := cardfmt.CapacityWarmupBacklogIn(lg, s); wb != "" {
			b.WriteString("    " + wb + "\n")
		}
	}
	ans := r.AnswerStep()
	switch {
	case ans == nil && r.Undecided:
		b.WriteString(cardfmt.CapacityUndecidedIn(lg, r.MostAttempts(), r.AttemptsToMeet, r.Target) + "\n")
	case ans == nil:
		b.WriteString(cardfmt.CapacityNoRateIn(lg, r.ShortStep(), r.AttemptsToMeet) + "\n")
	case r.AtLeast():
		// The ≥ is what the steps met; the margin, what the last step's
		// window could show, is a sentence of its own.
		m, _ := r.AnswerMargin()
		p(lang.Msg{"结论：容量 ≥ %s 次/s（搜索的上限 --max-rate）：直到上限每一步都达标，没有找到不达标的速率，所以这不是测出的容量；要找到它，请提高 --max-rate。%s", "Answer: capacity ≥ %s req/s (the search's limit, --max-rate): every step met the target up to it and no rate failed, so this is not a measured capacity; raise --max-rate to find it.%s"}, numfmt.Num(ans.Rate), sentenceSep(lg, cardfmt.CapacityAtLimitWindowIn(lg, m)))
	default:
		m, _ := r.AnswerMargin()
		p(lang.Msg{"结论：达标的最高速率是 %s 次/s%s（该步联合合格 %s，95%% 区间 [%s, %s]），比它低的每个已测速率也都达标。", "Answer: the highest rate that meets the target is %s req/s%s (qualified %s at that step, 95%% interval [%s, %s]), and every lower rate measured meets it too."}, numfmt.Num(ans.Rate), cardfmt.CapacityWithinIn(lg, m), pc(ans.Attainment), pc(ans.CILow), pc(ans.CIHigh))
	}
	if r.StoppedCannotMeet() {
		b.WriteString(cardfmt.CapacityStoppedBeforeIn(lg, *r.StoppedBefore, r.AttemptsToMeet, r.StepMaxDurationS) + "\n")
	}

	if a := r.AnswerStep(); a != nil && a.Load != nil && a.Load.GrowingUndecided {
		b.WriteString(cardfmt.CapacityGrowthIn(lg, *a.Load) + "\n")
	}
	if r.Provisional {
		p(lang.Msg{"注意：搜索被中断，这只是暂定答案；已完成的步骤都保留了。", "Note: the search was interrupted, so this answer is provisional; the finished steps are kept."})
	}
	if late := cardfmt.CapacityLateStepsIn(lg, r); late != "" {
		b.WriteString(late + "\n")
	}
	if r.Again != nil {
		b.WriteString(capacityAgainIn(lg, r.Again))
	}
	p(lang.Msg{"共 %s 步，用时 %s s。", "%s in %s s."}, lang.N(lg, len(r.Steps), "step", "steps"), numfmt.Fixed(r.ElapsedS, 1))
	return b.String()
}

// keepUpLine is a step's keep-up line, as its text prints it under the
// load figures: what its window shows of the server keeping up with the
// offered rate, and the rule's word for it; "" for a step without a
// keep-up bound (no resolution).
func keepUpLine(lg lang.Lang, s capacity.Step) string {
	return keepUpLineLate(lg, s, lateEvidence(lg, s))
}

// keepUpLineLate is keepUpLine with late as what follows an overloaded
// step's bound when the client was late: the text's lateEvidence points
// to its next line, a one-line reason on stderr says it inline
// (lateInline).
func keepUpLineLate(lg lang.Lang, s capacity.Step, late string) string {
	l := s.Load
	if l == nil {
		return ""
	}
	f := l.Figures()
	switch {
	case l.Resolution > 0 && l.KeepUpBound <= 0:
		// A negative "short by at most" reads oddly: the window
		// completed at least the offered rate (the JSON keeps the
		// bound as computed).
		return lg.F(lang.Msg{"窗口里服务器完成的速率不低于提供的速率（一步在 --resolution %s 次/s 以内即可达标）：%s", "the server completed at least the offered rate in the window (a step meets within --resolution %s/s): %s"},
			f.Resolution, cardfmt.CapacityKeepUpWordIn(lg, *l))
	case l.BoundWithinResolution():
		// The overload test failed it, not the keep-up bound: say
		// which rule, never "within resolution: overload".
		return lg.F(lang.Msg{"服务器最多比提供的速率少 %s 次/s，在 --resolution %s 次/s 以内；但过载检验不通过：%s%s", "the server can be short of the offered rate by up to %s/s, within --resolution %s/s; but the overload test failed: %s%s"},
			f.KeepUpBound, f.Resolution, cardfmt.CapacitySignalsIn(lg, *l), late)
	case l.WithinResolution() && l.NoSaturationShown():
		return lg.F(lang.Msg{"窗口里完成的 %s 次都是窗口开始前就发出的（开始时在途 %d 次），窗口本身看不出饱和吞吐；服务器可能比提供的 %s 次/s 最多少 %s 次/s（≤ --resolution %s 次/s）%s：%s",
			"the window's %s were all begun before it (%d in flight at its start), so it shows no saturation of its own; the server may be short of the offered %s/s by up to %s/s (≤ --resolution %s/s)%s: %s"},
			lang.N(lg, l.Completions, "completion", "completions"), l.InFlightStart, f.Offered, f.KeepUpBound, f.Resolution, cardfmt.CapacityBehindIn(lg, *l), cardfmt.CapacityKeepUpWordIn(lg, *l))
	case l.WithinResolution():
		// Not "keeps up": what the window shows is a saturation of
		// at least (completions − in flight at its start)/W, which
		// may be short of the offered rate by up to the bound.
		return lg.F(lang.Msg{"窗口显示服务器每秒至少完成 %s 次（饱和吞吐 ≥ %s 次/s），所以它可能比提供的 %s 次/s 最多少 %s 次/s（≤ --resolution %s 次/s）%s：%s", "the window shows the server completes at least %s/s (saturation ≥ %s/s), so it may be short of the offered %s/s by up to %s/s (≤ --resolution %s/s)%s: %s"},
			f.SaturationShown, f.SaturationShown, f.Offered, f.KeepUpBound, f.Resolution, cardfmt.CapacityBehindIn(lg, *l), cardfmt.CapacityKeepUpWordIn(lg, *l))
	case l.Resolution > 0:
		why := cardfmt.CapacityBehindIn(lg, *l)
		if l.Overloaded {
			why = lg.S(lang.Msg{"；", "; "}) + cardfmt.CapacitySignalsIn(lg, *l)
		}
		return lg.F(lang.Msg{"服务器最多比提供的速率少 %s 次/s（%s --resolution %s 次/s）%s：%s%s", "the server can be short of the offered rate by up to %s/s (%s --resolution %s/s)%s: %s%s"},
			f.KeepUpBound, keepUpCmp(l), f.Resolution, why, cardfmt.CapacityKeepUpWordIn(lg, *l), late)
	}
	return ""
}

// sentenceSep is s as the next sentence in lg: after nothing in Chinese,
// after a space in English; "" stays "".
func sentenceSep(lg lang.Lang, s string) string {
	if lg == lang.ZH || s == "" {
		return s
	}
	return " " + s
}

// lateEvidence is what follows an overloaded step's keep-up line when the
// client itself was late: the overload test reads the client's clock, so
// its evidence may be the client's own delay; "" otherwise.
func lateEvidence(lg lang.Lang, s capacity.Step) string {
	if !s.Overloaded() || !s.ClientLate() {
		return ""
	}
	return lg.S(lang.Msg{"；但客户端迟到了（见下一行），过载检验的证据可能是客户端自己的延迟，而不是服务器的", "; but the client was late (next line), so the overload test's evidence may be the client's own delay, not the server's"})
}

// lateInline is lateEvidence on one line: the client's lateness itself in
// place of "next line"; "" when lateEvidence is.
func lateInline(lg lang.Lang, s capacity.Step) string {
	if lateEvidence(lg, s) == "" {
		return ""
	}
	return lg.F(lang.Msg{"；但%s，过载检验的证据可能是客户端自己的延迟，而不是服务器的", "; but %s, so the overload test's evidence may be the client's own delay, not the server's"}, cardfmt.CapacityLatenessIn(lg, s))
}

// keepUpCmp compares a step's keep-up bound with the resolution.
func keepUpCmp(l *capacity.LoadCheck) string {
	if l.KeepUpBound <= l.Resolution {
		return "≤"
	}
	return ">"
}

// capacityAgainIn is the search set beside an earlier one (--previous) in
// lg: the same answer, or the answers and each reason they differ.
func capacityAgainIn(lg lang.Lang, ag *capacity.Agreement) string {
	var b strings.Builder
	p := func(m lang.Msg, a ...any) { b.WriteString(m.F(lg, a...) + "\n") }
	ans := func(v *float64, bound string) string {
		switch {
		case v == nil && bound == capacity.BoundUndecided:
			return lg.S(lang.Msg{"尚无定论（每一步到最长窗口仍无定论）", "undecided (every step still undecided at its longest window)"})
		case v == nil:
			return lg.S(lang.Msg{"没有达标的速率", "no rate meets"})
		case bound == capacity.BoundMaxRate:
			return lg.F(lang.Msg{"≥ %s 次/s（搜索的上限）", "≥ %s req/s (the search's limit)"}, numfmt.Num(*v))
		}
		return lg.F(lang.Msg{"%s 次/s", "%s req/s"}, numfmt.Num(*v))
	}
	sameSeed := func() {
		if ag.SameSeed && ag.Seed != nil {
			p(lang.Msg{"  - 两次搜索用的是同一个 --seed %d：每一步的到达序列由 --seed 和速率决定，所以两次都测的速率重放了同样的到达；这次重复检验的是服务器的波动，不是到达序列的；要独立地再查一次，请换一个 --seed。",
				"  - both searches used --seed %d: a step's arrival schedule comes from --seed and its rate, so every rate both ran replayed the same arrivals; the repeat checks the server's variation, not the schedule's; for an independent check, give another --seed."}, *ag.Seed)
		}
	}
	if ag.Same {
		p(lang.Msg{"与上一次搜索（%s）相比：结论相同，%s。", "Against the previous search (%s): the same answer, %s."}, ag.Previous, ans(ag.Answer, ag.Bound))
		for _, w := range ag.Reasons {
			if w.Kind == capacity.WhyFlagsDiffer {
				p(lang.Msg{"  - 但两次搜索的条件不同（%s）：这是两个问题各自的答案，不是同一个答案量了两次。", "  - but the searches' conditions differ (%s): these are answers to two questions, not one answer found twice."}, strings.Join(w.Flags, "; "))
			}
		}
		if ag.StepsDiffer {
			p(lang.Msg{"  - 但两次搜索在同一速率上的判定不同，结论相同而依据不同：", "  - but the two searches judged a rate they both ran differently: the same answer on different evidence:"})
			againReasonsIn(lg, &b, ag, "    - ")
		}
		sameSeed()
		return b.String()
	}
	p(lang.Msg{"与上一次搜索（%s）相比：结论不同，上一次 %s，这一次 %s。原因：", "Against the previous search (%s): a different answer, %s then and %s now. Why:"},
		ag.Previous, ans(ag.PreviousAnswer, ag.PreviousBound), ans(ag.Answer, ag.Bound))
	againReasonsIn(lg, &b, ag, "  - ")
	sameSeed()
	return b.String()
}

// againReasonsIn writes ag's reasons in lg, one line each after indent.
// Beside the same answer only the reasons at the rate judged differently
// are written (the changed flags have their own line there).
func againReasonsIn(lg lang.Lang, b *strings.Builder, ag *capacity.Agreement, indent string) {
	p := func(m lang.Msg, a ...any) {
		b.WriteString(strings.Replace(m.F(lg, a...), "  - ", indent, 1) + "\n")
	}
	pc := func(v *float64) string {
		if v == nil {
			return lg.S(lang.Msg{"无", "none"})
		}
		return numfmt.PctFixed(*v)
	}
	step := func(s *capacity.Step) string {
		return lg.F(lang.Msg{"%s，%d / %d 合格，区间 [%s, %s]", "%s, %d / %d qualified, interval [%s, %s]"},
			cardfmt.CapacityVerdictIn(lg, s.Verdict), s.Qualified, s.Attempts, pc(s.CILow), pc(s.CIHigh))
	}
	for _, w := range ag.Reasons {
		var rate string
		if w.Rate != nil {
			rate = numfmt.Num(*w.Rate)
		}
		switch w.Kind {
		case capacity.WhyFlagsDiffer:
			if ag.Same {
				continue
			}
			p(lang.Msg{"  - 两次搜索的参数不同（%s），结论本来就不必相同。", "  - the searches' flags differ (%s), so their answers need not agree."}, strings.Join(w.Flags, "; "))
		case capacity.WhyInterrupted:
			p(lang.Msg{"  - 有一次搜索被中断，它的结论是暂定的。", "  - one search was interrupted: its answer is provisional."})
		case capacity.WhyWithinResolution:
			p(lang.Msg{"  - 两个结论相差不超过搜索的分辨率 %s 次/s（--resolution）：在要求的精度内是同一个答案。", "  - the answers differ by no more than the search's resolution, %s req/s (--resolution): the same answer to the precision asked for."}, numfmt.Exact(ag.Resolution))
		case capacity.WhyIntervalsOverlap:
			p(lang.Msg{"  - %s 次/s 这一步两次判定不同（上一次%s；这一次%s），两个 95%% 区间重叠：同样的合格比例落在目标哪一边是偶然的；加长窗口（--step-duration）能缩小区间。", "  - at %s req/s the two searches judged differently (previous: %s; this: %s), and the two 95%% intervals overlap: which side of the target the same attainment falls on is chance; a longer window (--step-duration) narrows them."},
				rate, step(w.Previous), step(w.This))
		case capacity.WhyUndecided:
			p(lang.Msg{"  - %s 次/s 这一步有一次到最长窗口仍无定论，按不达标计（上一次%s；这一次%s）；加长 --step-max-duration 能判定。", "  - at %s req/s one search's step was still undecided at its longest window and counted as not meeting (previous: %s; this: %s); a longer --step-max-duration can decide it."},
				rate, step(w.Previous), step(w.This))
		case capacity.WhyOverload:
			p(lang.Msg{"  - %s 次/s 这一步只有一次判为过载：服务器跟不上这个速率时，短窗口里的结果取决于队列长到多长。", "  - at %s req/s only one search found overload: when the server cannot keep up with a rate, a short window's result depends on how long the queue grew."}, rate)
		case capacity.WhyLoadAverage:
			p(lang.Msg{"  - %s 次/s 这一步机器的负载不同：平均负载上一次 %s → %s，这一次 %s → %s（同机的其他工作会拖慢服务器和客户端）。", "  - at %s req/s the machine's load differed: load average %s → %s then, %s → %s now (other work on the machine slows the server and the client)."},
				rate, numfmt.Fixed(w.Previous.LoadAvg.Start, 1), numfmt.Fixed(w.Previous.LoadAvg.End, 1), numfmt.Fixed(w.This.LoadAvg.Start, 1), numfmt.Fixed(w.This.LoadAvg.End, 1))
		case capacity.WhyUnexplained:
			if w.Rate == nil {
				p(lang.Msg{"  - 记录里没有找到原因。", "  - nothing recorded explains it."})
				break
			}
			p(lang.Msg{"  - %s 次/s 这一步两次判定不同（上一次%s；这一次%s），区间不重叠，记录的负载也相近：服务器本身的表现变了（例如它的缓存，或平均负载看不出的其他工作）。", "  - at %s req/s the two searches judged differently (previous: %s; this: %s), the intervals do not overlap and the recorded load is alike: the server itself behaved differently (its cache, say, or other work the load average does not show)."},
				rate, step(w.Previous), step(w.This))
		}
	}
}
