package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/llmperf-course/course/coursekit/internal/outfile"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/page"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/internal/spill"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// cmdReport writes one self-contained offline HTML page with the metrics
// card and the charts of a trace (like vegeta's plot). The card, every
// chart's counts and the summary embedded in the page are one summary,
// under the same flags and the same reading of the trace's conditions as
// `coursekit card` (coursekit/cardopts).
func cmdReport(args []string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	var opts cardopts.Flags
	opts.RegisterSLOsDefault(fs, "TTFT SLO of a condition (repeat for side-by-side conditions; default: the trace's conditions.slo, else 1s)", cardopts.RecordedSLODefault)
	opts.RegisterReading(fs)
	out := fs.String("o", "", "write the HTML page to FILE (default stdout)")
	langName := langFlag(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	l, err := resolveLang("report", *langName)
	if err != nil {
		return err
	}
	if pos, err = traceArgs("report", l, pos, stderr); err != nil {
		return err
	}
	path, err := oneTrace("report", pos)
	if err != nil {
		return err
	}
	// The page is started before the trace is read, beside -o's path, and
	// put in place only when it is whole: a trace given as -o is refused,
	// an earlier page survives a failure.
	var outPage *outfile.File
	if *out != "" && *out != "-" {
		if outPage, err = outfile.Create(*out, path); err != nil {
			return outPathError("report: -o", err)
		}
		defer func() {
			if err != nil {
				outPage.Discard()
			}
		}()
	}
	if path == "-" { // read twice below: from a copy of standard input, named stdin
		spooled, done, serr := spoolStdin()
		if serr != nil {
			return serr
		}
		defer done()
		path = spooled
		defer func() { err = stdinErr(err, spooled) }() // the result, not a shadow
	}
	budget := opts.Budget()
	debug.SetMemoryLimit(budget*2 + 64<<20) // as card: the collector reuses what the stores free
	// The file name reaches the page's <title>, heading and card: control
	// codes escaped, invalid UTF-8 as U+FFFD.
	name := safetext.Name(filepath.Base(path))

	// The trace is streamed twice and never held: the digest the
	// per-attempt charts draw (a bounded sample, the timeline's attempt,
	// the client's in-flight count at each server scrape, the SLO grid);
	// then the summary, with the sweep of that grid, which every number of
	// the page comes from. The TTFT chart marks the P95 under the card's
	// method only: a number under the other method would be none of the
	// embedded summary's (`coursekit card --percentile` gives it).
	ids := spill.New(budget)
	defer ids.Close()
	var gauges []page.Part
	var scrapes []trace.Scrape
	d, err := tracefig.DigestFile(path, ids, func(d *tracefig.Digest) error {
		gauges, scrapes = serverGaugeScrapes(l, path, &d.Header)
		if scrapes != nil {
			at := make([]float64, len(scrapes))
			for i, sc := range scrapes {
				at[i] = sc.TMS
			}
			d.CountInFlightAt(at)
		}
		return nil
	})
	if err != nil {
		return cardopts.NotACard(path, err)
	}
	if err := ids.Err(); err != nil {
		return err
	}
	s, err := cardopts.SummarizeFile(path, opts, cardopts.Sweep(tracefig.SweepSLOs(d, nil)))
	if err != nil {
		return err
	}
	if scrapes != nil {
		// The notes (a downsampled or capped sidecar) follow the figure.
		gauges = append([]page.Part{page.Figure(tracefig.ServerGaugesOf(d.InFlightCounts(), scrapes, charts.WithID("server_gauges"), charts.WithLang(l)),
			l.S(lang.Msg{"服务器 /metrics 的请求 gauge 与客户端在途请求，按读数时刻对齐：两者相符时，客户端看到的就是服务器的队列。", "The server's request gauges from /metrics beside the client's requests in flight, aligned at each scrape: where they agree, what the client sees is the server's queue."}))}, gauges...)
	}

	inL := charts.WithLang(l)
	parts := []page.Part{
		page.Text(l.F(lang.Msg{"trace:%s · %d 行尝试 · 时钟：%s · 全部数字由 coursekit/metrics 从 trace 重算。", "trace: %s · %d attempt rows · clock: %s · every number recomputed from the trace by coursekit/metrics."}, name, s.Attempts+s.OutsideWindow, d.Header.Clock)),
		page.Card(s, name),
		page.SummaryData(s),
	}
	if run := runLine(l, &d.Header); run != "" {
		parts = append(parts[:1], append([]page.Part{page.Text(run)}, parts[1:]...)...)
	}
	for i := range s.Conditions {
		parts = append(parts, page.Figure(tracefig.Funnel(s, i, charts.WithID(fmt.Sprintf("funnel_%d", i)), inL),
			l.S(lang.Msg{"分母漏斗：每一步流失的尝试和原因都留在图里。", "Denominator funnel: the attempts lost at each step, and why, stay in the figure."})))
	}
	attemptsCaption := lang.Msg{"全部尝试，失败与在途都画出；竖线是第一个条件的 TTFT 门槛。", "Every attempt, failures and in-flight ones included; the vertical line is the first condition's TTFT SLO."}
	if d.Sampled() {
		attemptsCaption = lang.Msg{"尝试的可复现抽样（见图标题），失败与在途优先画出；竖线是第一个条件的 TTFT 门槛。", "A reproducible sample of the attempts (see the chart's title), failures and in-flight ones drawn first; the vertical line is the first condition's TTFT SLO."}
	}
	parts = append(parts,
		page.Figure(tracefig.AttemptsOf(d, s, 0, charts.WithID("attempts"), inL), l.S(attemptsCaption)),
		page.Figure(tracefig.TTFTDistributionOf(d, s, charts.WithID("ttft_cdf"), inL),
			ttftCaption(l, s)),
		page.Figure(tracefig.SLOSweepOf(s, charts.WithID("slo_sweep"), inL),
			l.S(lang.Msg{"只改变 TTFT 门槛时，goodput 与每千次合格成本怎样变化。", "How goodput and cost per 1000 qualified change when only the TTFT SLO changes."})),
	)
	parts = append(parts, gauges...)
	if a, why := timelineAttempt(d); a != nil {
		parts = append(parts, page.Figure(tracefig.Timeline(a, charts.WithID("timeline"), inL),
			l.F(lang.Msg{"%s（%s）的客户端时间轴。", "Client timeline of %s (%s)."}, why.In(l), charts.Label(a.ID))))
	}

	var w io.Writer = stdout
	if outPage != nil {
		w = outPage
	}
	bw := bufio.NewWriter(w)
	if err := page.WriteIn(bw, l, l.S(lang.Msg{"LLM 服务指标报告 · ", "LLM serving metrics report · "})+name, parts...); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if outPage != nil {
		return outPage.Commit()
	}
	return nil
}

// timelineAttempt picks the attempt the report draws as a timeline: the
// complete success in the window sent first (by start_ms, ties by ID), or,
// if the trace has events that carry several tokens, the first such
// success so sent (they change what ITL means).
func timelineAttempt(d *tracefig.Digest) (*trace.Attempt, lang.Msg) {
	if a := d.FirstMultiTokenSuccess(); a != nil {
		return a, lang.Msg{"窗口内最早发送的含多 token 事件的完整成功", "the complete success with multi-token events sent first in the window"}
	}
	if a := d.FirstSuccess(); a != nil {
		return a, lang.Msg{"窗口内最早发送的完整成功尝试", "the complete success sent first in the window"}
	}
	var none lang.Msg
	return nil, none
}

// serverGaugeScrapes reads the metrics sidecar the trace header names
// (bench --metrics-url): its scrapes for the server-gauge figure, or a
// note instead of the figure when it is missing, unreadable or empty,
// never a failed report. Both are nil when the header names no sidecar.
func serverGaugeScrapes(l lang.Lang, path string, h *trace.Header) ([]page.Part, []trace.Scrape) {
	side, ok, err := trace.SidecarPath(path, h)
	if !ok {
		return nil, nil
	}
	var g gaugeScrapes
	if err == nil {
		err = trace.ScanScrapesFile(side, g.add)
	}
	if err != nil {
		return []page.Part{page.Text(l.F(lang.Msg{"注意：trace 的头部指明了服务器指标文件（conditions.metrics_sidecar），但读不了它，所以没有画服务器 gauge 图：%s。", "Note: the trace header names a server metrics file (conditions.metrics_sidecar), but it cannot be read, so there is no server gauge chart: %s."}, err.Error()))}, nil
	}
	if len(g.kept) == 0 {
		return []page.Part{page.Text(l.F(lang.Msg{"注意：服务器指标文件 %s 里没有读数，所以没有画服务器 gauge 图。", "Note: the server metrics file %s holds no scrape, so there is no server gauge chart."}, safetext.Name(filepath.Base(side))))}, nil
	}
	var notes []page.Part
	if g.stride > 1 {
		notes = append(notes, page.Text(l.F(lang.Msg{"服务器指标文件有 %s 次读数，图中每 %d 次取 1 次（%s 个点）：报告只保留服务器的请求 gauge，逐行读文件，内存有界。", "The server metrics file holds %s; the chart draws one in %d (%s): the report keeps only the servers' request gauges and reads the file line by line, so its memory stays bounded."}, lang.N(l, g.seen, "scrape", "scrapes"), g.stride, lang.N(l, len(g.kept), "point", "points"))))
	}
	if g.capped > 0 {
		notes = append(notes, page.Text(l.F(lang.Msg{"注意：%s 次读数的序列数超过了 bench 的上限，多出的序列没有记下（请求 gauge 优先保留）。", "Note: %s more series than bench keeps; the rest were not recorded (the request gauges are kept first)."}, lang.N(l, g.capped, "scrape had", "scrapes had"))))
	}
	return notes, g.kept
}

// maxGaugeScrapes bounds the scrapes the report keeps for the server-gauge figure: past it,
// every other kept scrape is dropped and the stride doubles, so a sidecar of any length is
// read in bounded memory and drawn as at most this many evenly spaced points.
const maxGaugeScrapes = 4096

// gaugeScrapes collects a sidecar's scrapes for the server-gauge figure, one line at a time:
// only the request gauges of each (trace.IsRequestGauge), and one scrape in stride.
type gaugeScrapes struct {
	kept         []trace.Scrape
	seen, stride int
	capped       int // scrapes in which bench left series out
}

func (g *gaugeScrapes) add(s trace.Scrape) error {
	if g.stride == 0 {
		g.stride = 1
	}
	if s.Capped > 0 {
		g.capped++
	}
	i := g.seen
	g.seen++
	if i%g.stride != 0 {
		return nil
	}
	for k := range s.Values {
		if !trace.IsRequestGauge(k) {
			delete(s.Values, k)
		}
	}
	g.kept = append(g.kept, s)
	if len(g.kept) >= maxGaugeScrapes {
		half := g.kept[:0]
		for j := 0; j < len(g.kept); j += 2 {
			half = append(half, g.kept[j])
		}
		clear(g.kept[len(half):])
		g.kept = half
		g.stride *= 2
	}
	return nil
}

// runLine says when, against what and with what a live run was measured,
// from the header's meta (coursekit bench writes started_at, url and
// client); empty when the header has none of them.
func runLine(l lang.Lang, h *trace.Header) string {
	var m struct {
		StartedAt string `json:"started_at"`
		URL       string `json:"url"`
		Client    string `json:"client"`
	}
	if len(h.Meta) == 0 || json.Unmarshal(h.Meta, &m) != nil {
		return ""
	}
	var parts []string
	if m.StartedAt != "" {
		parts = append(parts, l.F(lang.Msg{"开始于 %s", "started at %s"}, m.StartedAt))
	}
	if m.URL != "" {
		parts = append(parts, l.F(lang.Msg{"服务器 %s", "server %s"}, m.URL))
	}
	if m.Client != "" {
		parts = append(parts, l.F(lang.Msg{"客户端 %s", "client %s"}, m.Client))
	}
	if len(parts) == 0 {
		return ""
	}
	return l.F(lang.Msg{"测量：%s。", "Measured: %s."}, strings.Join(parts, " · "))
}

// ttftCaption describes the TTFT chart as drawn: one P95 line, under the
// card's method, the card's number (the other method's P95 is none of the
// embedded summary's numbers, so the page does not draw it).
func ttftCaption(l lang.Lang, s *metrics.Summary) string {
	if s.TTFT.P95 == nil {
		return l.S(lang.Msg{"完整成功的 TTFT 经验分布；没有成功样本，P95 为空（不是 0）。", "Empirical TTFT distribution of the complete successes; no successes, so the P95 is empty (not 0)."})
	}
	return l.F(lang.Msg{"完整成功的 TTFT 经验分布；竖线是指标口径卡上的 P95（%s）；另一种分位算法的 P95 用 `coursekit card --percentile` 查看。", "Empirical TTFT distribution of the complete successes; the vertical line is the P95 on the card (%s); `coursekit card --percentile` gives the P95 under the other percentile method."}, cardfmt.MethodNameIn(l, s.TTFT.Method))
}
