package lab

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/judge"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/nb"
	"github.com/llmperf-course/course/coursekit/sim"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Capacity in the lab (notebook 10): the search of `coursekit capacity`
// (coursekit/capacity) against a fresh simulator or a fresh real engine,
// its result saved for later cells, and the tables and figures it is read
// with. Verdicts, intervals and counts all come from coursekit/capacity and
// coursekit/metrics.

// EngineBusyGauge is the real engine's busy reading: llama.cpp's count of
// requests being processed. With one slot it is 0 or 1, so the mean of its
// reads is the share of time the slot was working.
const EngineBusyGauge = "llamacpp:requests_processing"

// NonBlankPrompts is a dataset of n distinct prompts of the given length
// in words whose answers pass quality when they hold any non-blank
// character (a regex judge, \S). Quality is judged, as joint qualification
// needs, but is never the limit: a capacity search with it is decided by
// failures and TTFT. The simulator answers such prompts with filler words
// of max_tokens tokens, so its service time, and its saturation, follow
// from its configuration (SimSaturation).
func NonBlankPrompts(words, n int) *dataset.Set {
	set := DistinctPrompts(words, n)
	set.Name = "non-blank"
	re, err := judge.NewRegex(`\S`)
	if err != nil {
		panic(err) // a constant pattern
	}
	for i := range set.Items {
		set.Items[i].Judge = re
		set.Items[i].Ref = fmt.Sprintf("non-blank:%d", i+1)
	}
	return set
}

// SimSaturation is the most requests per second the simulator c can
// finish when every answer has tokens tokens: a full batch of MaxBatch
// sequences, each step DecodeStep plus DecodePerSeq for every further
// sequence, one token per step. Prefill is left out (it is paid once per
// request, in the step that admits it, and is small by default).
func SimSaturation(c sim.Config, tokens int) float64 {
	d := sim.DefaultConfig
	batch, step := c.MaxBatch, c.DecodeStep
	if batch <= 0 {
		batch = d.MaxBatch
	}
	if step <= 0 {
		step = d.DecodeStep
	}
	full := step + time.Duration(batch-1)*c.DecodePerSeq
	return float64(batch) / (float64(tokens) * full.Seconds())
}

// CapacityLabServer is notebook 10's simulator: 16 sequences a step, a
// step of 10 ms for one sequence and 0.5 ms more for each further one, so
// that its saturation with 32-token answers is 16 / (32 × 17.5 ms) ≈ 28.6
// answers a second.
func CapacityLabServer() sim.Config {
	return sim.Config{MaxBatch: 16, DecodeStep: 10 * time.Millisecond, DecodePerSeq: 500 * time.Microsecond, Seed: 1}
}

// CapacityLabSearch is notebook 10's search with its defaults. The rate
// ladder 12 → 24 → 48 keeps every step far from the saturation of
// CapacityLabServer (0.42×, 0.84×, 1.68×), and the resolution of 24 stops
// it there: a step near 1.4× saturation (40/s on a 10 → 20 → 40 ladder)
// sometimes passed in a 2 s window, because a queue growing by 11 a second
// takes longer than that to push TTFT past 1 s or to show in the overload
// test. So the answer is at most the saturation in every run, 24/s when
// the machine keeps time and 12/s when it is loaded enough to fail 24.
func CapacityLabSearch(target, sloMS float64, maxTokens int) capacity.Config {
	return capacity.Config{
		Bench:           loadgen.Config{Dataset: NonBlankPrompts(8, 64), MaxTokens: maxTokens, Timeout: 3 * time.Second, Seed: 1},
		Target:          target,
		SLOTTFTMS:       sloMS,
		StartRate:       12,
		Growth:          2,
		MaxRate:         96,
		Resolution:      24,
		Warmup:          time.Second,
		StepDuration:    2 * time.Second,
		StepMaxDuration: 4 * time.Second,
	}
}

// AboveSaturation is notebook 10's check of its prediction on the
// simulator's saturation sat, scored on what the search tested: the steps
// above sat, each with its verdict and P95 TTFT, in one line of Chinese;
// meets is true when one of them met the target, and the line then says
// how fast the queue grows there and why a short window let it pass. ok is
// false, and the line says the item is not compared, when the search
// decided no step above sat (the ladder stopped below it, or was cut).
func AboveSaturation(r *capacity.Result, sat float64) (line string, meets, ok bool) {
	steps := slices.Clone(r.Steps)
	slices.SortStableFunc(steps, func(a, b capacity.Step) int { return cmp.Compare(a.Rate, b.Rate) })
	var parts []string
	var first *capacity.Step
	for i, st := range steps {
		if st.Rate <= sat || st.Verdict == capacity.Interrupted {
			continue
		}
		part := numfmt.OneDecimal(st.Rate) + " 次/s " + finalVerdict(st)
		if st.Overloaded() {
			part += "（过载）"
		}
		if st.P95TTFTMS != nil {
			part += "（成功 TTFT P95 " + msText(st.P95TTFTMS) + "）"
		}
		parts = append(parts, part)
		if st.Verdict == capacity.Meets && first == nil {
			first = &steps[i]
		}
	}
	satText := numfmt.Fixed(sat, 1)
	if len(parts) == 0 {
		return fmt.Sprintf("这次搜索没有测到饱和吞吐 %s 次/s 之上的速率：这一项不对照。", satText), false, false
	}
	line = fmt.Sprintf("饱和吞吐 %s 次/s 之上测过 %d 步：%s。", satText, len(parts), strings.Join(parts, "；"))
	if first != nil {
		line += fmt.Sprintf("其中 %s 次/s 达标：它是饱和吞吐的 %s 倍，队列每秒多出约 %s 个请求，但这一步的窗口只有 %s s，队列还没长到把 TTFT 推过门槛、也没长到让过载检验看出来（练习 1 专门看这一点）。",
			numfmt.OneDecimal(first.Rate), numfmt.Fixed(first.Rate/sat, 2), numfmt.Fixed(first.Rate-sat, 1), cardfmt.Num(first.WindowS))
	}
	return line, first != nil, true
}

// capacityPaths are the search's saved result and its folder of step
// traces.
func (l Lab) capacityPaths(name string) (result, dir string, err error) {
	tracePath, _, err := l.paths(name)
	if err != nil {
		return "", "", err
	}
	base := tracePath[:len(tracePath)-len(".jsonl")]
	return base + ".capacity.json", base + ".steps", nil
}

// Capacity starts a fresh simulator (l.Server) on 127.0.0.1, runs the
// capacity search c against it, stops it and saves the result under name
// for LoadCapacity. c.Bench.URL and c.OutDir are set here: the step
// traces go to a folder of the lab named after the search, emptied first,
// so that running the cell again starts clean. c.BusyGauge defaults to
// the simulator's busy-seconds counter.
func (l Lab) Capacity(name string, c capacity.Config) (*capacity.Result, error) {
	srv, stop, err := startSim(context.Background(), l.Server)
	if err != nil {
		return nil, err
	}
	c.Bench.URL = srv
	if c.BusyGauge == "" {
		c.BusyGauge = capacity.SimBusyCounter
	}
	res, err := l.search(context.Background(), name, c)
	return res, errors.Join(err, stop())
}

// CapacityEngine is Capacity against a fresh real engine e, stopped
// afterwards. budget, when positive, bounds the search: when it runs out,
// the step running is marked interrupted, the finished steps are kept and
// the answer is provisional, as after Ctrl-C in `coursekit capacity`.
// c.Bench.Model and a client that opens a new connection per request are
// set here; c.BusyGauge defaults to EngineBusyGauge.
func (l Lab) CapacityEngine(name string, e Engine, c capacity.Config, budget time.Duration) (*capacity.Result, error) {
	ctx := context.Background()
	p, err := e.Start(ctx)
	if err != nil {
		return nil, err
	}
	defer p.Stop()
	c.Bench.URL, c.Bench.Model = p.URL, EngineModel
	c.Bench.Client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
	cond := map[string]any{"engine": p.Info}
	for k, v := range c.Bench.Conditions {
		cond[k] = v
	}
	c.Bench.Conditions = cond
	if c.BusyGauge == "" {
		c.BusyGauge = EngineBusyGauge
	}
	if budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, budget)
		defer cancel()
	}
	return l.search(ctx, name, c)
}

// CapacityFor is Capacity for a cell that searches before its prediction
// is checked: while prediction has a guess not written yet (nb.Written),
// the progress lines show only the time and the run's number, since the
// rates and verdicts would give the answer away.
func (l Lab) CapacityFor(prediction any, name string, c capacity.Config) (*capacity.Result, error) {
	l.HideCounts = !nb.Written(prediction)
	return l.Capacity(name, c)
}

// SearchProgressOptions say where and how a search reports while it runs
// (SearchProgress).
type SearchProgressOptions struct {
	Out  io.Writer
	Lang lang.Lang
	// Every is the most often a line is printed while a run lasts.
	Every time.Duration
	// HideCounts keeps the lines to the time and the run's number (a
	// prediction not written yet, CapacityFor).
	HideCounts bool
	// Steps adds a line per finished step with its counts and verdict.
	Steps bool
	// Prefix starts every line ("coursekit capacity: " on the CLI).
	Prefix string
}

// SearchProgress makes a search c print to o.Out while it lasts: a line as
// each run of a step starts (its rate, window, and whether it is the first
// run or an extension), at most every o.Every the time, the run, its phase
// and the attempts sent, ended and in flight so far, and with o.Steps a
// line per finished step. Notebook 10 and `coursekit capacity` both print
// it. Callers' own hooks in c still run.
func SearchProgress(c *capacity.Config, o SearchProgressOptions) {
	lg, out := o.Lang, o.Out
	var mu sync.Mutex
	start, due := time.Now(), o.Every
	run, ext, rate, window := 0, 0, 0.0, time.Duration(0)
	onRun, progress, onStep := c.OnRun, c.Bench.Progress, c.OnStep
	c.OnRun = func(r float64, d time.Duration) {
		mu.Lock()
		if run > 0 && r == rate && d > window {
			ext++ // an undecided step run again with a longer window
		} else {
			ext = 0
		}
		run, rate, window = run+1, r, d
		line := lg.F(lang.Msg{"容量搜索第 %d 次压测开始", "run %d of the search starts"}, run)
		if o.HideCounts {
			line += lg.S(lang.Msg{"（速率和结果等你写下预测后再显示）", " (the rate and results show once your prediction is written)"})
		} else {
			which := lg.S(lang.Msg{"这一步的第一次", "the step's first run"})
			if ext > 0 {
				which = lg.F(lang.Msg{"尚无定论，第 %d 次延长窗口", "undecided, window extension %d"}, ext)
			}
			line += lg.F(lang.Msg{"：%s 次/s，窗口 %s s（%s）", ": %s req/s, window %s s (%s)"}, cardfmt.Num(r), cardfmt.Num(d.Seconds()), which)
		}
		fmt.Fprintln(out, o.Prefix+line)
		mu.Unlock()
		if onRun != nil {
			onRun(r, d)
		}
	}
	c.Bench.Progress = func(p loadgen.Progress) {
		if progress != nil {
			progress(p)
		}
		mu.Lock()
		defer mu.Unlock()
		el := time.Since(start)
		if el < due {
			return
		}
		due = el.Truncate(o.Every) + o.Every
		line := lg.F(lang.Msg{"容量搜索进行中 %s s：第 %d 次压测", "search running %s s: run %d"}, numfmt.Fixed(el.Seconds(), 0), run)
		if o.HideCounts {
			line += lg.S(lang.Msg{"（速率和结果等你写下预测后再显示）", " (the rate and results show once your prediction is written)"})
		} else {
			line += lg.F(lang.Msg{"，%s 次/s，窗口 %s s（%s）：已发出 %d 次，已结束 %d 次，在途 %d 次", ", %s req/s, window %s s (%s): %d sent, %d ended, %d in flight"},
				cardfmt.Num(rate), cardfmt.Num(window.Seconds()), phaseName(lg, p.Phase), p.Sent, p.Done, p.InFlight)
		}
		fmt.Fprintln(out, o.Prefix+line)
	}
	c.OnStep = func(s capacity.Step) {
		if o.Steps && !o.HideCounts {
			fmt.Fprintln(out, o.Prefix+lg.F(lang.Msg{"  %s 次/s 这一步：%d / %d 合格%s → %s", "  the %s req/s step: %d / %d qualified%s → %s"},
				numfmt.OneDecimal(s.Rate), s.Qualified, s.Attempts, cardfmt.CapacityCutOffIn(lg, s.StoppedEarly(), s.InFlight), cardfmt.CapacityVerdictIn(lg, s.Verdict)))
		}
		if onStep != nil {
			onStep(s)
		}
	}
}

// searchProgress is SearchProgress as a notebook cell prints it: in
// Chinese to l.Progress (standard output by default), about once a
// second, with a line per finished step, so that a cell is not silent for
// the half minute a search takes.
func (l Lab) searchProgress(c *capacity.Config) {
	out := l.Progress
	if out == nil {
		out = os.Stdout
	}
	SearchProgress(c, SearchProgressOptions{Out: out, Lang: lang.ZH, Every: time.Second, HideCounts: l.HideCounts, Steps: true})
}

// search runs c with its steps in the lab's folder for name and saves the
// result.
func (l Lab) search(ctx context.Context, name string, c capacity.Config) (*capacity.Result, error) {
	l.searchProgress(&c)
	resultPath, dir, err := l.capacityPaths(name)
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	os.Remove(resultPath)
	c.OutDir = dir
	if c.Bench.Dataset != nil && c.Bench.Conditions["dataset"] == nil {
		cond := map[string]any{"dataset": c.Bench.Dataset.Conditions()}
		for k, v := range c.Bench.Conditions {
			cond[k] = v
		}
		c.Bench.Conditions = cond
	}
	res, err := capacity.Search(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("lab: capacity search %q: %w", name, err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return res, os.WriteFile(resultPath, b, 0o644)
}

// LoadCapacity reads a saved search back. A search that was never run
// says which cell to run first.
func (l Lab) LoadCapacity(name string) (*capacity.Result, error) {
	resultPath, _, err := l.capacityPaths(name)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(resultPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("还没有名为“%s”的容量搜索：先运行上面做搜索的那个单元格（%w）", name, err)
	}
	if err != nil {
		return nil, err
	}
	res := &capacity.Result{}
	if err := json.Unmarshal(b, res); err != nil {
		return nil, fmt.Errorf("%s: %w", resultPath, err)
	}
	return res, nil
}

// CapacitySaved is nil when a capacity search called name was saved and
// reads back, else LoadCapacity's error: a cell stops on it by name
// (nb.Skip) instead of branching on the load's error.
func (l Lab) CapacitySaved(name string) error {
	_, err := l.LoadCapacity(name)
	return err
}

// CapacityChart is the search as the charts package draws it
// (labfig.CapacityAttainment, labfig.CapacityLoad, labfig.WriteCapacityPage).
func CapacityChart(r *capacity.Result) labfig.CapacitySearch {
	out := labfig.CapacitySearch{Target: r.Target, SLOTTFTMS: r.SLOTTFTMS, Latency: r.LatencySLO, Judged: r.Judged(),
		Model: r.Model, MaxRateMeeting: r.MaxRateMeeting, AtLeast: r.AtLeast(), Provisional: r.Provisional, ElapsedS: r.ElapsedS,
		Undecided: r.Undecided, MostAttempts: r.MostAttempts(), AttemptsToMeet: r.AttemptsToMeet, ShortStep: r.ShortStep(),
		StoppedBefore: r.StoppedBefore, StepMaxDurationS: r.StepMaxDurationS}
	out.AnswerMargin, _ = r.AnswerMargin()
	if a := r.AnswerStep(); r.AnswerQueueGrowing && a != nil && a.Load != nil {
		out.AnswerGrowth = a.Load
	}
	for _, s := range r.Steps {
		out.Steps = append(out.Steps, labfig.CapacityStep{
			Rate: s.Rate, Attempts: s.Attempts, Qualified: s.Qualified,
			Attainment: s.Attainment, CILow: s.CILow, CIHigh: s.CIHigh,
			Verdict: s.Verdict, StoppedEarly: s.StoppedEarly(), InFlight: s.InFlight, Overloaded: s.Overloaded(), WindowS: s.WindowS, Extended: s.Extended, BeforeWindow: s.BeforeWindow,
			GoodputPerS: s.GoodputPerS, P95TTFTMS: s.P95TTFTMS, BusyMean: shownBusy(s.BusyMean),
			ClientLag: s.ClientLag, SendLagP99MS: s.SendLagP99MS,
		})
	}
	return out
}

// shownBusy is a step's busy share as the notebook shows it, at most
// 100 %. The simulator's busy counter (busy seconds) and the step's window
// are read by two clocks: the counter's increase is sampled at scrapes
// that need not fall on the window's edges, so on a loaded machine the
// rate can come out a little above 1 (a step printed 100.5 %). A device
// cannot be busy more than all the time; the excess is the clocks'
// disagreement, not work, so it is clamped where it is shown.
func shownBusy(v *float64) *float64 {
	if v == nil || *v <= 1 {
		return v
	}
	one := 1.0
	return &one
}

// pctText is a share in % with one decimal, or "无".
func pctText(v *float64) string {
	if v == nil {
		return "无"
	}
	return numfmt.Pct(*v)
}

// intervalPct is a Wilson interval in %, or "无" for a step without one
// (never "[无, 无]", a half-width comma in Chinese).
func intervalPct(lo, hi *float64) string {
	if lo == nil || hi == nil {
		return "无"
	}
	return "[" + pctText(lo) + "，" + pctText(hi) + "]"
}

// CapacityTable is the search's steps by rate, one row each, for nb.Table:
// qualified of all attempts, the Wilson interval and the verdict it gives,
// the window, the busy share (at most 100 %: shownBusy), the P95 TTFT of
// the complete successes beside the attempts still in flight when the
// window closed (an early-stopped step's successes are few of its
// attempts: most are in flight), and offered − completed (the in-flight
// slope at the offered rate, not the measured change of the in-flight count).
func CapacityTable(r *capacity.Result) [][]string {
	rows := [][]string{{"速率（次/s）", "合格 / 尝试", "联合合格率", "95% Wilson 区间", "判定", "窗口", "设备忙碌率", "成功 TTFT P95", "窗口结束时在途", "提供 − 完成（次/s，95% 区间）"}}
	steps := slices.Clone(r.Steps)
	slices.SortStableFunc(steps, func(a, b capacity.Step) int { return cmp.Compare(a.Rate, b.Rate) })
	for _, s := range steps {
		verdict := cardfmt.CapacityVerdict(s.Verdict)
		switch {
		case s.StoppedEarly():
			verdict += "（过载，提前停止）"
		case s.Overloaded():
			verdict += "（过载）"
		case s.Load != nil && s.Load.Resolution > 0 && (s.Verdict == capacity.Meets || s.Verdict == capacity.Undecided):
			// What the window showed of keeping up, as the CLI's
			// keep-up line ends: a step meets only within the
			// resolution, and "跟得上" only when it completed the
			// offered rate.
			verdict += "（" + cardfmt.CapacityKeepUpWordIn(lang.ZH, *s.Load) + "）"
		}
		window := numfmt.OneDecimal(s.WindowS) + " s"
		if s.Extended > 0 {
			window += "（" + cardfmt.CapacityExtendedIn(lang.ZH, s.Extended) + "）"
		}
		busy := "服务器未报告"
		if s.BusyMean != nil {
			busy = pctText(shownBusy(s.BusyMean))
		}
		if s.BeforeWindow {
			// It measured nothing: no window, extension or busy share.
			window, busy = cardfmt.CapacityBeforeWindowIn(lang.ZH), "无"
		}
		inFlight := "无"
		if s.Load != nil {
			inFlight = fmt.Sprintf("%d 次", s.Load.InFlightEnd) + loadWindowNote(s)
		}
		rows = append(rows, []string{capacity.Rate(s.Rate), fmt.Sprintf("%d / %d", s.Qualified, s.Attempts) + cardfmt.CapacityCutOffIn(lang.ZH, s.StoppedEarly(), s.InFlight), pctText(s.Attainment),
			intervalPct(s.CILow, s.CIHigh), verdict, window, busy, msText(s.P95TTFTMS), inFlight, slopeText(s.Load) + loadWindowNote(s) + arrivalsShortNote(s)})
	}
	return rows
}

// arrivalsShortNote follows a step's offered − completed when its window
// had clearly fewer arrivals than offered (cardfmt.CapacityArrivalsShortNoteIn):
// that figure counts the schedule's shortfall too. A step stopped early
// keeps its own display.
func arrivalsShortNote(s capacity.Step) string {
	if s.Load == nil || s.StoppedEarly() {
		return ""
	}
	return cardfmt.CapacityArrivalsShortNoteIn(lang.ZH, *s.Load)
}

// slopeText is a step's offered − completed with its 95 % interval, or "无"
// for a step without a window.
func slopeText(l *capacity.LoadCheck) string {
	if l == nil {
		return "无"
	}
	f := l.Figures() // as every output prints them
	return f.Slope + " [" + f.SlopeLow + "，" + f.SlopeHigh + "]"
}

// loadWindowNote names, beside a step's load figures in the table, the
// overload test's window they come from when it is not the step's window
// as the table prints it (a step stopped early: the span that stopped
// it); "" otherwise.
func loadWindowNote(s capacity.Step) string {
	if s.Load == nil || numfmt.OneDecimal(s.Load.WindowS) == numfmt.OneDecimal(s.WindowS) {
		return ""
	}
	return "（" + cardfmt.CapacityLoadWindowIn(lang.ZH, *s.Load) + "）"
}

// CapacityAnswer is the search's answer in one line of Chinese: the
// highest rate that meets the target with its interval, that none did, or,
// when every step met up to the search's limit, "容量 ≥ 上限", never a bare
// capacity; provisional when the search was cut short; followed by the
// steps in which the client itself was late, as the CLI's answer is.
func CapacityAnswer(r *capacity.Result) string {
	s := capacityAnswer(r)
	if late := cardfmt.CapacityLateStepsIn(lang.ZH, r); late != "" {
		s += late
	}
	return s
}

// capacityAnswer is CapacityAnswer without the note on the client's own
// lateness.
func capacityAnswer(r *capacity.Result) string {
	s := fmt.Sprintf("%d 步，用时 %s s。", len(r.Steps), numfmt.OneDecimal(r.ElapsedS))
	if r.Provisional {
		s += "搜索被中断（时间预算用完），已完成的步骤都保留了，下面的答案是暂定的。"
	}
	if r.MaxRateMeeting == nil && r.Undecided {
		return s + cardfmt.CapacityUndecided(r.MostAttempts(), r.AttemptsToMeet, r.Target)
	}
	if r.MaxRateMeeting == nil {
		return s + cardfmt.CapacityNoRateIn(lang.ZH, r.ShortStep(), r.AttemptsToMeet)
	}
	m, _ := r.AnswerMargin()
	within := cardfmt.CapacityWithinIn(lang.ZH, m)
	if r.AtLeast() {
		// The ≥ is what the steps met; the margin, what the last step's
		// window could show, is a sentence of its own.
		return s + fmt.Sprintf("结论：容量 ≥ %s 次/s（搜索的上限）：直到上限每一步都达标，没有找到不达标的速率，所以这不是测出的容量；要找到它，请调高 MaxRate 再搜索。%s",
			cardfmt.Num(*r.MaxRateMeeting), cardfmt.CapacityAtLimitWindowIn(lang.ZH, m))
	}
	at, found := AnswerStep(r)
	if !found {
		return s + fmt.Sprintf("结论：达标的最高速率是 %s 次/s%s。", cardfmt.Num(*r.MaxRateMeeting), within)
	}
	met := fmt.Sprintf("%s 次/s（%d / %d 合格，95%% Wilson 区间 %s）", numfmt.OneDecimal(at.Rate), at.Qualified, at.Attempts, intervalPct(at.CILow, at.CIHigh))
	if _, above, pair := AroundAnswer(r); pair {
		// The search saw only the rates it tested: the capacity lies
		// between the two, and the rate that met is the safe end.
		return s + fmt.Sprintf("结论：容量在 [%s, %s) 次/s 之间：%s达标，%s 次/s %s，两者之间没有测过别的速率。取下界：达标的最高速率是 %s 次/s%s；比它低的每个已测速率也都达标。",
			numfmt.OneDecimal(at.Rate), numfmt.OneDecimal(above.Rate), met, numfmt.OneDecimal(above.Rate), finalVerdict(above), numfmt.OneDecimal(at.Rate), within)
	}
	return s + fmt.Sprintf("结论：达标的最高速率是 %s%s，比它低的每个已测速率也都达标。", met, within)
}

// finalVerdict is a searched step's verdict in Chinese as the search
// counts it: a step still undecided at its longest window counts as not
// meeting, and says so.
func finalVerdict(s capacity.Step) string {
	v := cardfmt.CapacityVerdict(s.Verdict)
	if s.Verdict == capacity.Undecided {
		v += "（按不达标算）"
	}
	return v
}

// AnswerIntervalTable is IntervalTable of the step at the search's answer
// and the failing step above it (AroundAnswer), read back from their
// traces and labelled by their rates ("答案 24 次/s", "不达标 48 次/s"); an
// error in Chinese says when the search has no such pair.
func AnswerIntervalTable(r *capacity.Result, p float64) ([][]string, error) {
	at, above, ok := AroundAnswer(r)
	if !ok {
		return nil, errors.New("这次搜索没有“答案那一步”和“上面不达标的一步”这一对，没有可比的两步")
	}
	ta, err := StepTrace(at)
	if err != nil {
		return nil, err
	}
	tb, err := StepTrace(above)
	if err != nil {
		return nil, err
	}
	labels := []string{"答案 " + numfmt.OneDecimal(at.Rate) + " 次/s", "不达标 " + numfmt.OneDecimal(above.Rate) + " 次/s"}
	return IntervalTable(p, labels, ta, tb), nil
}

// StepAt is the searched step at rate (ok false when the search did not
// measure it).
func StepAt(r *capacity.Result, rate float64) (capacity.Step, bool) {
	for _, s := range r.Steps {
		if s.Rate == rate {
			return s, true
		}
	}
	return capacity.Step{}, false
}

// AnswerStep is the step at the search's answer (ok false when no rate
// met the target).
func AnswerStep(r *capacity.Result) (capacity.Step, bool) {
	if r.MaxRateMeeting == nil {
		return capacity.Step{}, false
	}
	return StepAt(r, *r.MaxRateMeeting)
}

// AnswerBusy is the busy share at the search's answer, with a line of
// Chinese that says which step it is: the highest rate that met, or, when
// every step met up to the search's limit, that limit, which is not a
// measured capacity (notebook 10 presented it as one). ok is false, and
// the line says why nothing is compared, when no rate met or the server
// exposed no busy reading. The share is at most 1 (shownBusy: two clocks).
func AnswerBusy(r *capacity.Result) (busy float64, line string, ok bool) {
	at, found := AnswerStep(r)
	switch {
	case !found:
		return 0, "这次搜索没有达标的速率：这一项不对照。", false
	case at.BusyMean == nil:
		return 0, "服务器没有报告忙碌率：这一项不对照。", false
	case r.AtLeast():
		return *shownBusy(at.BusyMean), fmt.Sprintf("直到上限 %s 次/s 每一步都达标：这不是测出的容量，只说明容量不低于它。上限那一步的忙碌率 %s。",
			numfmt.OneDecimal(at.Rate), numfmt.PctFixed(*shownBusy(at.BusyMean))), true
	}
	return *shownBusy(at.BusyMean), fmt.Sprintf("达标的最高速率 %s 次/s：忙碌率 %s。", numfmt.OneDecimal(at.Rate), numfmt.PctFixed(*shownBusy(at.BusyMean))), true
}

// BusyGap is notebook 10's reading of the busy share, in lines of
// Chinese: the first step (rate startRate, as a share of the saturation
// sat), then the step at the answer and the failing step above it. gap is
// how far apart the last two are (a share, 0.05 = 5 points), each share at
// most 1 as shown (shownBusy: two clocks); ok is false
// when either of them is missing or has no busy reading.
func BusyGap(r *capacity.Result, sat, startRate float64) (lines string, gap float64, ok bool) {
	var b strings.Builder
	if first, found := StepAt(r, startRate); found && first.BusyMean != nil {
		fmt.Fprintf(&b, "最低的一步 %s 次/s（饱和吞吐的 %s%%）：设备忙碌率 %s%%\n", numfmt.OneDecimal(first.Rate), numfmt.Fixed(first.Rate/sat*100, 0), numfmt.Fixed(*shownBusy(first.BusyMean)*100, 1))
	}
	at, above, found := AroundAnswer(r)
	if !found || at.BusyMean == nil || above.BusyMean == nil {
		b.WriteString("这次搜索没有“答案”和“它上面不达标的一步”两步的忙碌率：这一项不对照。\n")
		return b.String(), 0, false
	}
	fmt.Fprintf(&b, "答案 %s 次/s 的忙碌率 %s%%，上面不达标的 %s 次/s 的忙碌率 %s%%\n", numfmt.OneDecimal(at.Rate), numfmt.Fixed(*shownBusy(at.BusyMean)*100, 1), numfmt.OneDecimal(above.Rate), numfmt.Fixed(*shownBusy(above.BusyMean)*100, 1))
	return b.String(), math.Abs(*shownBusy(above.BusyMean) - *shownBusy(at.BusyMean)), true
}

// AroundAnswer are the step at the answer and the lowest searched rate
// above it that did not meet: the two steps the answer lies between. ok
// is false when either is missing (no answer, or nothing above it).
func AroundAnswer(r *capacity.Result) (at, above capacity.Step, ok bool) {
	at, ok = AnswerStep(r)
	found := false
	for _, s := range r.Steps {
		if s.Rate > at.Rate && s.Verdict != capacity.Meets && s.Verdict != capacity.Interrupted && (!found || s.Rate < above.Rate) {
			above, found = s, true
		}
	}
	return at, above, ok && found
}

// StepLoad is the load one step of search c sends at rate for window d:
// c's template (prompts, tokens, timeout) as an open Poisson loop after
// c's warm-up, with the schedule's seed of the step's first window
// (capacity.StepSeed), as the search itself would send it.
func StepLoad(c capacity.Config, rate float64, d time.Duration) loadgen.Config {
	b := c.Bench
	b.Rate, b.Arrival, b.Duration, b.Warmup = rate, loadgen.Poisson, d, c.Warmup
	b.Seed = capacity.StepSeed(c.Bench.Seed, rate, 0)
	cond := map[string]any{}
	for k, v := range b.Conditions {
		cond[k] = v
	}
	if b.Dataset != nil {
		cond["dataset"] = b.Dataset.Conditions()
	}
	b.Conditions = cond
	return b
}

// Step judges the run as a step of search c: qualified of all attempts in
// the window under c's SLOs, and the verdict of the 95 % Wilson interval
// against c.Target (capacity.Verdict). Rate is left 0: the run keeps its
// trace, not the rate it was asked to send.
func (r *Run) Step(c capacity.Config) capacity.Step {
	s := capacity.StepOf(cardopts.MustSummarize(r.Trace, c.Flags()), c.Target)
	s.Trace = r.Name
	return s
}

// StepLine is a step in one line of Chinese: qualified of all attempts,
// the Wilson interval and the verdict, against target.
func StepLine(label string, s capacity.Step, target float64) string {
	return fmt.Sprintf("%s：窗口 %s s 内 %d / %d 合格 = %s，95%% Wilson 区间 %s，目标 %s → %s\n", label, numfmt.OneDecimal(s.WindowS),
		s.Qualified, s.Attempts, pctText(s.Attainment), intervalPct(s.CILow, s.CIHigh), cardfmt.Num(target*100)+"%", cardfmt.CapacityVerdict(s.Verdict))
}

// StepTrace reads the trace of a searched step back.
func StepTrace(s capacity.Step) (*trace.Trace, error) { return trace.ReadFile(s.Trace) }
