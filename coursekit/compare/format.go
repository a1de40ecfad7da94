package compare

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"

	"golang.org/x/text/width"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/lang"
)

// Write prints r in format f (cardfmt.Text, Markdown or JSON) in l; JSON
// is the same in every language. In text, trace names and condition values
// are printed as they are: a terminal writer escapes their control codes.
func Write(w io.Writer, r *Result, f cardfmt.Format, l lang.Lang) error {
	if f == cardfmt.JSON {
		// Condition values and names come from traces: written through
		// safetext.JSON as every JSON output is, so that no bidi mark or
		// C1 control reaches a terminal raw.
		// Floats as the JSON card writes them (no float noise).
		b, err := cardfmt.JSONIndent(r)
		if err != nil {
			return err
		}
		_, err = w.Write(safetext.JSON(append(b, '\n')))
		return err
	}
	_, err := io.WriteString(w, r.report(f == cardfmt.Markdown, l))
	return err
}

// The texts of the report, in both languages.
var (
	msgTitle      = lang.Msg{"A/B 对照 · B 相对 A", "A/B comparison · B against A"}
	msgSide       = lang.Msg{"%s：%d 次运行：%s", "%s: %d run(s): %s"}
	msgJudged     = lang.Msg{"判定：%s；分位算法：%s", "Judged under: %s; percentile method: %s"}
	msgSameConds  = lang.Msg{"条件：两边 trace 头部记录的条件相同（改了什么，trace 里看不出来）", "Conditions: the two sides' headers record the same conditions (what was changed is not in the traces)"}
	msgOneCond    = lang.Msg{"条件：只有 1 个不同", "Conditions: exactly one differs"}
	msgManyConds  = lang.Msg{"条件：有 %d 个不同", "Conditions: %d differ"}
	msgCondLine   = lang.Msg{"%s：A %s → B %s", "%s: A %s → B %s"}
	msgTooMany    = lang.Msg{"注意：不止一个条件不同。一次只应改变一个条件，否则说不清差别来自哪一个。", "Warning: more than one condition differs. Change one condition at a time, or the difference cannot be traced to one of them."}
	msgRunsDiffer = lang.Msg{"注意：%s 的 %d 次运行之间条件不一致；同一边的运行应当是同一条命令的重复。", "Warning: the runs of %s (%d of them) differ among themselves; the runs of one side should repeat one command."}
	msgRunValues  = lang.Msg{"%s：%s", "%s: %s"}
	msgNone       = lang.Msg{"（未记录）", "(not recorded)"}
	msgItself     = lang.Msg{"本身", "itself"}
	msgKeys       = lang.Msg{"%s（%s）", "%s (%s)"}

	// msgVerdictOneRun heads the verdict column when a side has one run:
	// its verdicts do not carry the variance between runs.
	msgVerdictOneRun = lang.Msg{"结论（只计运行内波动）", "verdict (within-run noise only)"}
	msgHead          = [...]lang.Msg{{"指标", "metric"}, {"A", "A"}, {"B", "B"}, {"B − A", "B − A"}, {"相对变化", "change"}, {"95% 区间（B − A）", "95% interval (B − A)"}, {"方法", "method"}, {"结论", "verdict"}}
	msgBetter        = lang.Msg{"更好", "better"}
	msgWorse         = lang.Msg{"更差", "worse"}
	msgNA            = lang.Msg{"无法比较", "n/a"}
	msgPP            = lang.Msg{" 个百分点", " pp"}
	msgPerS          = lang.Msg{"次/s", "/s"}
	msgMissing       = lang.Msg{"缺失", "missing"}

	msgRead       = lang.Msg{"A、B 两列是每边各次运行的值的平均（只有一次运行时就是它的值）。~ 表示 95% 区间含 0：在这样的样本量下看不出差别。更好、更差按指标的方向判断：时延和失败率越低越好，合格率、goodput 和吞吐越高越好。", "A and B are the mean of each side's run values (a side with one run: its value). ~ means the 95% interval holds 0: no difference shows at this sample size. Better and worse follow each metric's direction: lower is better for latencies and the failure rate, higher for qualified rates, goodput and throughput."}
	msgReal       = lang.Msg{"区间不含 0 的差别：%s。", "Differences whose interval excludes 0: %s."}
	msgNoReal     = lang.Msg{"没有一个指标的区间不含 0：看不出 B 和 A 有差别。", "No metric's interval excludes 0: no difference between B and A shows."}
	msgRealItem   = lang.Msg{"%s %s（%s）", "%s %s (%s)"}
	msgSep        = lang.Msg{"、", ", "}
	msgSemi       = lang.Msg{"；", "; "}
	msgNoValue    = lang.Msg{"%s：有一边没有值（例如没有完整成功），无法比较。", "%s: a side has no value (e.g. no complete success): nothing to compare."}
	msgUnknown    = lang.Msg{"%s：%s未知：没有一次完整成功有质量评分，而判定规则要求质量通过，合格率和 goodput 无从谈起。要比较它：给回答评分，用 coursekit bench --dataset arith 或 --dataset 题集.jsonl 重新测量（回答会被判分）；或者只按时延判定，给 compare 加一个 TTFT 以外的时延 SLO（--slo-e2e、--slo-itl-p95 或 --slo-tpot）。", "%s: unknown on %s: no complete success is rated, and the rule requires a quality pass (goodput_unknown: quality_unrated), so qualified rate and goodput are unknown. To compare it, rate the answers: measure again with coursekit bench --dataset arith or --dataset FILE.jsonl (its answers are judged); or judge on latency alone by giving compare a latency SLO beyond TTFT (--slo-e2e, --slo-itl-p95 or --slo-tpot)."}
	msgUnknownA   = lang.Msg{"A 边", "A"}
	msgUnknownB   = lang.Msg{"B 边", "B"}
	msgUnknownAB  = lang.Msg{"两边都", "both sides"}
	msgTooFew     = lang.Msg{"样本太少：%s。有的运行样本太少，分位数自己的 95%% 区间有一侧没有界，差值的区间在那一侧也没有界；这时结论只能来自有界的那一侧，而这几项有界的一侧越过了 0，所以是 ~。", "Too few samples: %s. Some runs have too few samples to bound the percentile's own 95%% interval on one side, so the difference is unbounded there too; a verdict can then come only from the bounded side, and for these it reaches past 0, so ~."}
	msgOneSided   = lang.Msg{"单侧有界：%s。样本太少，区间有一侧没有界（−∞ 或 +∞）；另一侧有界而且不含 0，结论来自这有界的一侧。", "One side bounded: %s. Too few samples leave the interval unbounded on one side (−∞ or +∞); its other side is bounded and excludes 0, and the verdict comes from that bounded side."}
	msgClipped    = lang.Msg{"截断：%s。区间超出了 ±100 个百分点，已截到两个比例之差可能的范围 [−100, +100] 个百分点（JSON 的 clipped 字段标出被截的一端）；别的指标一律不截：观测到的值不是真值的界。", "Clipped: %s. The interval reached past ±100 pp and was cut to what a difference of two shares can be, [−100, +100] pp (the JSON's clipped field names the bound cut); no other metric is clipped: the observed values bound no true value."}
	msgWelchOnly  = lang.Msg{"样本太少，改用运行间 Welch t：%s。有的运行样本太少，运行内方法给不出这一项差值的界；两边各有几次运行、每次都有值，区间就只用各次运行自己的值算 Welch t（方法栏写“运行间 Welch t”）。短运行自己的抽样波动只通过各次运行之间的差别计入。", "Too few samples, Welch's t over runs instead: %s. Some runs have too few samples for the within-run method to bound the difference; with several runs on each side, each with a value, the interval is Welch's t over the runs' own values alone (method: Welch t over runs). A short run's own sampling noise enters only through the spread between runs."}
	msgAtRunMax   = lang.Msg{"n = %[2]s 的 %[1]s 就是每次运行的最大值", "%[1]s of n = %[2]s is each run's maximum"}
	msgRunMax     = lang.Msg{"分位数就是运行的最大值，不用运行间 Welch t：%s。对各次运行的最大值做 Welch t，估的是 n 次抽取的最大值的期望，不是这个分位数，n 不等时还有偏；所以这一项区间不设界，记作 ~。要判断它，每次运行要更多样本。", "Percentile at each run's maximum, no Welch's t over runs: %s. Welch's t over the runs' maxima estimates the expected maximum of n draws, not the percentile, and unequal n bias it; so this interval stays unbounded, ~. Judging it takes more samples per run."}
	msgNeedN      = lang.Msg{"%s（每次运行要 n ≥ %d；%s）", "%s (n ≥ %d per run needed; %s)"}
	msgShortRun   = lang.Msg{"%s 边 %s：n = %d", "%s %s: n = %d"}
	msgAllShort   = lang.Msg{"全部 %s 次运行：n = %s", "all %s: n = %s"}
	msgBorderline = lang.Msg{"临界：%s：区间有一端离 0 不超过重抽样本身的蒙特卡洛误差（重抽样 %d 次）；换一个 --seed 或加大 --resamples，结论可能翻转。", "Borderline: %s: a bound lies within the resampling's own Monte-Carlo error of 0 (%d resamples); another --seed or more --resamples may flip the verdict."}
	msgGap        = lang.Msg{"itl_ms 是相邻文本事件的间隔，指标口径卡的叫法：%s。", "itl_ms are the gaps between adjacent text events, as the card names them: %s."}
	msgRuns       = lang.Msg{"各次运行的值（同一条命令重复运行，差别就是运行之间的波动）：", "Each run's value (the same command repeated: the spread is the variance between runs):"}
	msgRunsRow    = lang.Msg{"%s：A %s；B %s", "%s: A %s; B %s"}
	msgSeed       = lang.Msg{"重抽样 %d 次，种子 %d：同样的输入得到同样的输出（--seed 换种子）。", "%d resamples, seed %d: the same input gives the same output (--seed to change it)."}
	msgBothMany   = lang.Msg{"两边各有几次运行：区间计入了运行之间的波动（运行内方法与各次运行自身值的 Welch t 取并）。", "Several runs on each side: the intervals carry the variance between runs (the hull of the within-run method and Welch's t over the runs' own values)."}
	msgClosedLoop = lang.Msg{"闭环负载（%s）：goodput 和吞吐的区间把每次运行窗口内的尝试数当作泊松计数，开环到达才是这样；闭环下计数的波动更小，这些区间偏宽。两边各跑几次，就改用各次运行自己的速率（Welch t），不再假设泊松。", "Closed loop (%s): the goodput and throughput intervals take each run's count of attempts in its window as Poisson, as an open loop's arrivals are; a closed loop's count varies less, so these intervals err wide. With several runs on each side they use the runs' own rates instead (Welch t), with no Poisson assumption."}
	msgOneRunBoth = lang.Msg{"每边只有 1 次运行：区间只计入了一次运行内部的抽样波动，没有计入运行之间的波动，而同一条命令在同一台机器上两次运行的差别可能更大。要计入它，每边多跑几次：coursekit compare A1 A2 A3 -- B1 B2 B3。", "One run per side: the intervals carry the sampling variance within a run, not the variance between runs, which on one machine can be larger. To cover it, repeat each side: coursekit compare A1 A2 A3 -- B1 B2 B3."}
	msgOneRun     = lang.Msg{"%s 只有 1 次运行：区间只计入了一次运行内部的抽样波动，没有计入运行之间的波动，而同一条命令在同一台机器上两次运行的差别可能更大。要计入它，每边多跑几次：coursekit compare A1 A2 A3 -- B1 B2 B3。", "%s has one run only: the intervals carry the sampling variance within a run, not the variance between runs, which on one machine can be larger. To cover it, repeat each side: coursekit compare A1 A2 A3 -- B1 B2 B3."}
	msgMethods    = lang.Msg{"方法：", "Methods:"}
)

// methodNames are the methods' short names (the table) and what they do.
var methodNames = map[string][2]lang.Msg{
	MethodBootstrap: {{"自助法", "bootstrap"}, {"自助法（bootstrap）：在每一边的尝试里有放回地重抽样，取 B − A 的 2.5% 与 97.5% 分位；重抽样的分位数直接按原样本的次序统计量精确抽取（第 k 小的秩服从 Beta 分布）。",
		"bootstrap: the attempts of each side resampled with replacement, B − A read at its 2.5% and 97.5% points; a resample's percentile is drawn exactly from the sample's order statistics (its rank follows a Beta distribution)."}},
	MethodHierarchical: {{"分层自助法", "hierarchical bootstrap"}, {"分层自助法：每次重抽样先有放回地抽一边的运行，再在抽到的每次运行里有放回地抽尝试（有一边只有 1 次运行时，goodput 和吞吐按泊松重抽样：每次尝试计入的次数服从泊松分布，窗口内的计数像开环到达那样波动），一边的值取这些运行的平均；取 B − A 的 2.5% 与 97.5% 分位。运行越少，运行之间的波动越难看全：每边 3 次、运行之间差别很大时，区间偏窄（实测 TTFT 分位数：A/A 对里只有 81%–87% 的区间含 0，而不是 95%）。",
		"hierarchical bootstrap: each resample draws a side's runs with replacement, then each drawn run's attempts with replacement (goodput and throughput, when a side has one run only, by a Poisson bootstrap: each attempt counted a Poisson number of times, so the count varies as an open loop's arrivals do), and averages the runs; B − A read at its 2.5% and 97.5% points. The fewer the runs, the less of the variance between them it sees: with 3 runs a side that differ a lot, the interval errs narrow (measured for TTFT percentiles: 81–87% of A/A pairs held 0, not 95%)."}},
	MethodWelchRuns: {{"运行间 Welch t", "Welch t over runs"}, {"运行间 Welch t：每次运行自己的值（它的分位数、比例或窗口内的速率）算一个值，B − A 是两边运行平均值之差，区间为差 ± t·标准误，自由度按 Welch–Satterthwaite。独立的单位是运行而不是尝试：运行之间的差别已经包含了运行内部的波动，不论开环还是闭环，不假设泊松计数。它假设各次运行的值大致服从正态分布；每边只有 3 次时，t 分位数（自由度 2–4 时约 3–4）为样本少付出代价。",
		"Welch t over runs: each run's own value (its percentile, share or rate over its window) is one value; B − A is the difference of the sides' mean run values, its interval the difference ± t·SE with Welch–Satterthwaite degrees of freedom. The runs, not the attempts, are the independent units: their spread carries the noise within runs whatever the loop, open or closed, with no Poisson assumption. It assumes run values roughly normal; with 3 runs a side the t quantile (about 3–4 at 2–4 degrees of freedom) pays for the few values."}},
	MethodHierarchicalNewcombe: {{"分层自助法 ∪ Newcombe", "hierarchical bootstrap ∪ Newcombe"}, {"分层自助法 ∪ Newcombe（比例，有一边不止 1 次运行）：取上面分层自助法的区间与把各次运行的尝试合在一起算的 Newcombe 区间的并。每次运行的比例都是 0% 或 100% 时，自助法没有东西可抽，区间会缩成一个点（例如 0/60 对 0/60 得到 [0, 0]），而有限的样本给不出这种确定；合并后的 Newcombe 区间是光凭这些尝试能给的宽度，运行之间的波动只会让它更宽。",
		"hierarchical bootstrap ∪ Newcombe (shares, several runs on a side): the hull of the hierarchical bootstrap's interval and the Newcombe interval over each side's attempts pooled. A share at 0% or 100% in every run leaves the bootstrap nothing to redraw, and its interval shrinks to a point (0/60 against 0/60 gives [0, 0]), a certainty no finite sample gives; the pooled Newcombe interval is what the attempts alone allow, and the variance between runs can only widen it."}},
	MethodNewcombe: {{"Newcombe 区间", "Newcombe"}, {"Newcombe 区间：两个比例各自的 Wilson 区间按平方和合成差值的区间（Newcombe 1998 的混合得分区间）。",
		"Newcombe: the two proportions' Wilson intervals combined by squares into an interval of the difference (Newcombe's 1998 hybrid score interval)."}},
	MethodPoisson: {{"泊松计分区间", "Poisson score"}, {"泊松计分区间：窗口内的计数按泊松分布（token 按缩放的泊松分布）取计分区间，再像 Newcombe 那样按平方和合成差值的区间；闭环负载下计数的波动比泊松小，这个区间偏宽。",
		"Poisson score: each side's count over its window taken as Poisson (tokens as scaled Poisson) with its score interval, combined by squares as Newcombe does; under a closed loop counts vary less than Poisson, so the interval errs wide."}},
}

// msgHullRuns says why, with several runs on both sides, every interval
// is a hull with Welch's t over the runs.
var msgHullRuns = lang.Msg{"两边各有几次运行时，每个区间都计入运行间 Welch t：分位数和比例的区间取上面运行内方法的区间与 Welch t 区间的并（方法栏用 ∪ 连起两者），goodput 和吞吐的区间就是 Welch t；结论按它判断。每边只有 3 次运行时，自助法几乎看不到运行之间的波动（运行之间差别很大时，只有 81%–87% 的 A/A 对区间含 0），而 Welch t 用 t 分位数为运行少付出代价，以运行为独立单位判断。（benchstat 用的是 Mann–Whitney U 检验，α = 0.05 时每边至少要 4 次运行，3 对 3 它一律打 ~。）",
	"With several runs on both sides, every interval takes in Welch's t over the runs' own values: a percentile's or a share's is the hull of its within-run method's above and Welch's (the method column joins them with ∪), goodput's and throughput's is Welch's; the verdict reads it. With 3 runs a side the bootstrap sees little of the variance between runs (81–87% of A/A pairs held 0 when runs differ a lot), while Welch's t pays for the few runs with its t quantile, taking the runs as the independent units. (benchstat uses a Mann–Whitney U test instead, which at α = 0.05 needs ≥ 4 runs a side and prints ~ for any 3 against 3.)"}

// methodParts are the methods a method string joins: a within-run method
// and, with several runs on both sides, "+welch-t-runs".
func methodParts(method string) []string {
	if base, ok := strings.CutSuffix(method, "+"+MethodWelchRuns); ok {
		return []string{base, MethodWelchRuns}
	}
	return []string{method}
}

// MethodName is a method's short name as the table prints it; a hull's
// parts joined by ∪.
func MethodName(l lang.Lang, method string) string {
	parts := methodParts(method)
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = methodNames[p][0].In(l)
	}
	return strings.Join(names, " ∪ ")
}

// Block is one part of the report: a paragraph, a list or the table of
// metrics (Table, its first row the header). Text, Markdown and the HTML
// page (coursekit/charts/comparefig) print the same blocks.
type Block struct {
	Para  string
	Items []string
	Table [][]string
}

// Blocks are the report of r in l, in order.
func Blocks(r *Result, l lang.Lang) []Block {
	var out []Block
	para := func(s string) { out = append(out, Block{Para: s}) }
	list := func(items []string) {
		if len(items) > 0 {
			out = append(out, Block{Items: items})
		}
	}
	for _, s := range []struct {
		name string
		side Side
	}{{"A", r.A}, {"B", r.B}} {
		para(msgSide.F(l, s.name, len(s.side.Traces), strings.Join(s.side.Traces, msgSep.In(l))))
	}
	if len(r.SLO) > 0 && len(r.A.runs) > 0 {
		var conds []string
		for _, c := range r.SLO {
			conds = append(conds, cardfmt.RuleIn(l, c))
		}
		para(msgJudged.F(l, strings.Join(conds, msgSep.In(l)), cardfmt.MethodNameIn(l, r.A.runs[0].PercentileMethod)))
	}
	for _, w := range r.warnings(l) {
		if headWarnings[w.Kind] {
			para(w.Text)
		}
	}
	switch n := len(r.ConditionsChanged); n {
	case 0:
		para(msgSameConds.In(l))
	case 1:
		para(msgOneCond.In(l))
	default:
		para(msgManyConds.F(l, n))
	}
	table := r.table(l)
	var lines []string
	for _, c := range r.ConditionsChanged {
		// The values may take what the table's width leaves of their line
		// (the list's indent, the name, A and →), not less than
		// maxValueRunes.
		room := tableWidth(table) - 2 - textWidth(msgCondLine.F(l, c.label(l), "", ""))
		va, vb := pairValues(l, c.A, c.B, room)
		lines = append(lines, msgCondLine.F(l, c.label(l), va, vb))
	}
	list(lines)
	if len(r.ConditionsChanged) > 1 {
		para(msgTooMany.In(l))
	}
	if len(r.RecordedSLOs) > 0 {
		var slos []string
		for _, c := range r.RecordedSLOs {
			slos = append(slos, msgCondLine.F(l, c.Name, shortValue(l, c.A), shortValue(l, c.B)))
		}
		judge := msgSLOByFlags.In(l)
		if r.SLOFrom != "" {
			judge = msgSLOByRun.F(l, r.SLOFrom)
		}
		para(msgSLOsDiffer.F(l, strings.Join(slos, msgSemi.In(l)), judge))
	}
	for _, side := range []string{"a", "b"} {
		lines = nil
		for _, d := range r.RunsDiffer {
			if d.Side != side {
				continue
			}
			var vs []string
			for _, v := range d.Values {
				vs = append(vs, shortValue(l, v))
			}
			lines = append(lines, msgRunValues.F(l, d.Name, strings.Join(vs, " · ")))
		}
		if len(lines) > 0 {
			runs := len(r.A.Traces)
			if side == "b" {
				runs = len(r.B.Traces)
			}
			para(msgRunsDiffer.F(l, strings.ToUpper(side), runs))
			list(lines)
		}
	}
	if sa, sb := r.Seeds(); sa != nil {
		// A closed loop draws no arrival schedule from its seed: its seeds
		// are listed, not called replicate keys.
		closed := true
		for _, run := range r.allRuns() {
			closed = closed && (Conditions(run.Summary)[ReplicateKey] == "" || closedLoop(run.Summary))
		}
		if closed {
			para(msgSeedsClosed.F(l, seedList(l, sa), seedList(l, sb)))
		} else {
			line := msgSeeds.F(l, seedList(l, sa), seedList(l, sb))
			if ps := r.PairedSeeds(); len(ps) > 0 {
				vs := make([]string, len(ps))
				for i, v := range ps {
					vs[i] = shortValue(l, raw(v))
				}
				line += msgSeedsPaired.F(l, strings.Join(vs, msgSep.In(l)))
			}
			para(line)
		}
		for _, w := range r.sameSeedTexts(l) {
			para(w)
		}
	}
	// One run a side: the caveat stands right above the verdicts it
	// qualifies, and their column says it too.
	switch {
	case !r.BetweenRuns.A && !r.BetweenRuns.B:
		para(msgOneRunBoth.In(l))
	case !r.BetweenRuns.A:
		para(msgOneRun.F(l, "A"))
	case !r.BetweenRuns.B:
		para(msgOneRun.F(l, "B"))
	}
	out = append(out, Block{Table: table})
	para(msgRead.In(l))
	var real, tooFew, oneSided, welchOnly []string
	for _, m := range r.Metrics {
		if m.WelchOnly() {
			welchOnly = append(welchOnly, msgNeedN.F(l, m.Name, m.NeedN, m.shortRunsText(l)))
		}
		switch {
		case m.Verdict == Better || m.Verdict == Worse:
			real = append(real, msgRealItem.F(l, m.Name, VerdictName(l, m.Verdict), signed(l, m, *m.Diff, true)))
			if m.NeedN > 0 && (m.CI95.Low == nil || m.CI95.High == nil) {
				oneSided = append(oneSided, msgNeedN.F(l, m.Name, m.NeedN, m.shortRunsText(l)))
			}
		case m.Verdict == NA:
			para(m.noValueText(l))
		case m.NeedN > 0 && (m.CI95.Low == nil || m.CI95.High == nil):
			tooFew = append(tooFew, msgNeedN.F(l, m.Name, m.NeedN, m.shortRunsText(l)))
		}
	}
	if len(real) > 0 {
		para(msgReal.F(l, strings.Join(real, msgSep.In(l))) + r.realCaveats(l))
	} else {
		para(msgNoReal.In(l))
	}
	if len(tooFew) > 0 {
		para(msgTooFew.F(l, strings.Join(tooFew, msgSep.In(l))))
	}
	if len(oneSided) > 0 {
		para(msgOneSided.F(l, strings.Join(oneSided, msgSep.In(l))))
	}
	if len(welchOnly) > 0 {
		para(msgWelchOnly.F(l, strings.Join(welchOnly, msgSep.In(l))))
	}
	if runMax := runMaxItems(r, l); len(runMax) > 0 {
		para(msgRunMax.F(l, strings.Join(runMax, msgSep.In(l))))
	}
	var clipped []string
	for _, m := range r.Metrics {
		if len(m.Clipped) > 0 {
			clipped = append(clipped, m.Name)
		}
	}
	if len(clipped) > 0 {
		para(msgClipped.F(l, strings.Join(clipped, msgSep.In(l))))
	}
	if n := r.failuresNote(l); n != "" {
		para(n)
	}
	if n := r.qualifiedGoodputNote(l); n != "" {
		para(n)
	}
	var borderline []string
	for _, m := range r.Metrics {
		if m.Borderline {
			borderline = append(borderline, m.Name)
		}
	}
	if len(borderline) > 0 {
		para(msgBorderline.F(l, strings.Join(borderline, msgSep.In(l)), r.Resamples))
	}
	if gap := r.gapName(l); gap != "" {
		para(gap)
	}
	if len(r.A.Traces) > 1 || len(r.B.Traces) > 1 {
		para(msgRuns.In(l))
		lines = nil
		for _, m := range r.Metrics {
			lines = append(lines, msgRunsRow.F(l, m.Name, runValues(l, m, m.ARuns, "a"), runValues(l, m, m.BRuns, "b")))
		}
		list(lines)
	}
	para(msgMethods.In(l))
	lines = nil
	seen := map[string]bool{}
	hull := false
	for _, m := range r.Metrics {
		for _, p := range methodParts(m.Method) {
			if !seen[p] {
				seen[p] = true
				lines = append(lines, methodNames[p][1].In(l))
			}
		}
		hull = hull || len(methodParts(m.Method)) > 1
	}
	if hull {
		lines = append(lines, msgHullRuns.In(l))
	}
	list(lines)
	if w := r.closedLoopWarning(l); w != "" {
		para(w)
	}
	para(msgSeed.F(l, r.Resamples, r.Seed))
	if r.BetweenRuns.A && r.BetweenRuns.B {
		para(msgBothMany.In(l))
	}
	return out
}

var (
	msgQualGood     = lang.Msg{"同一个 SLO 的合格率与 goodput 结论不同（%s）：这里合格率分开了，goodput 没有。合格率是在各边实际发出的尝试之内判断的；goodput 是每秒合格的次数，它的区间还要计入窗口内到达了多少次尝试这一随机波动，所以更难分开。两者不矛盾：合格的比例变了，而每秒合格的次数在这样的样本量下还看不出变化。", "A qualified rate and the goodput of its SLO get different verdicts (%s): here the qualified rate separates and goodput does not. The qualified rate is judged given the attempts each side made; goodput counts qualified attempts per second, and its interval also covers the chance variation in how many attempts arrived in the window, so it separates less. They do not contradict each other: the share that qualified changed, while the qualified attempts per second show no change at this sample size."}
	msgGoodQual     = lang.Msg{"同一个 SLO 的合格率与 goodput 结论不同（%s）：这里 goodput 分开了，合格率没有。goodput 是每秒合格的次数，既随合格的比例变，也随每秒发出了多少次尝试变；合格率只看各边实际发出的尝试里合格的比例。两者不矛盾：每秒合格的次数变了，而合格的比例在这样的样本量下还看不出变化。", "A qualified rate and the goodput of its SLO get different verdicts (%s): here goodput separates and the qualified rate does not. Goodput counts qualified attempts per second, so it moves with how many attempts were made per second as well as with the share that qualified; the qualified rate is the share that qualified among the attempts each side made. They do not contradict each other: the qualified attempts per second changed, while the share that qualified shows no change at this sample size."}
	msgArrivals     = lang.Msg{"各次运行的尝试数不同（A：%s；B：%s），goodput 也随之变。", " The runs' attempt counts differ (A: %s; B: %s), and goodput moves with them."}
	msgQualGoodItem = lang.Msg{"%s %s，%s %s", "%s %s, %s %s"}
)

var msgFailures = lang.Msg{"两边失败率不同（failure_rate：A %s，B %s）：延迟分位数只算完整成功的请求，失败的尝试（包括超时，往往是最慢的那些）不在其中，所以失败多的 %s 可能因此显得更快。", "The failure rates differ (failure_rate: A %s, B %s): latency percentiles cover complete successes only, so failed attempts (timeouts among them, often the slowest) are left out, and %s, with more failures, may look faster for it."}

// failuresNote says, when the sides' failure rates differ (a verdict, or
// 5 percentage points or more apart), that the latency percentiles cover
// complete successes only, so the side with more failures may look
// faster; "" otherwise.
func (r *Result) failuresNote(l lang.Lang) string {
	for _, m := range r.Metrics {
		if m.Name != "failure_rate" || m.A == nil || m.B == nil || m.Diff == nil {
			continue
		}
		if m.Verdict == Same && math.Abs(*m.Diff) < 0.05 || *m.Diff == 0 {
			return ""
		}
		more := "B"
		if *m.Diff < 0 {
			more = "A"
		}
		return msgFailures.F(l, value(l, m, m.A, "a"), value(l, m, m.B, "b"), more)
	}
	return ""
}

// qualifiedGoodputNote says, once, why a qualified rate and the goodput of
// its SLO got different verdicts, naming every such pair; "" when every
// pair agrees.
func (r *Result) qualifiedGoodputNote(l lang.Lang) string {
	// The pairs in which the qualified rate separates, and those in which
	// goodput does (or both, in opposite directions: the first note).
	var qual, good []string
	for _, q := range r.Metrics {
		if q.slo == 0 || q.Unit != "share" || q.Verdict == NA {
			continue
		}
		for _, g := range r.Metrics {
			if g.slo == q.slo && g.Unit == "/s" && g.Verdict != NA && g.Verdict != q.Verdict {
				item := msgQualGoodItem.F(l, q.Name, VerdictName(l, q.Verdict), g.Name, VerdictName(l, g.Verdict))
				if q.Verdict == Same {
					good = append(good, item)
				} else {
					qual = append(qual, item)
				}
			}
		}
	}
	if len(qual) == 0 && len(good) == 0 {
		return ""
	}
	var notes []string
	if len(qual) > 0 {
		notes = append(notes, msgQualGood.F(l, strings.Join(qual, msgSemi.In(l))))
	}
	if len(good) > 0 {
		notes = append(notes, msgGoodQual.F(l, strings.Join(good, msgSemi.In(l))))
	}
	out := strings.Join(notes, map[lang.Lang]string{lang.ZH: "", lang.EN: " "}[l])
	// Attempt counts that differ between runs: goodput moves with them.
	var counts [2][]string
	all := map[int64]bool{}
	for _, run := range r.sideRuns() {
		side := 0
		if run.side == "B" {
			side = 1
		}
		counts[side] = append(counts[side], strconv.FormatInt(run.Summary.Attempts, 10))
		all[run.Summary.Attempts] = true
	}
	if len(all) > 1 {
		out += msgArrivals.F(l, strings.Join(counts[0], " · "), strings.Join(counts[1], " · "))
	}
	return out
}

// msgSeeds lists the runs' seeds: replicate keys, not conditions;
// msgSeedsPaired follows it when A and B share a seed (Result.PairedSeeds).
var msgSeedsPaired = lang.Msg{"。A、B 两边共用种子 %s：两边按同一张到达时刻表发送，是配对设计，不是问题（同一边的几次重复共用种子才是）", ". A and B share seed %s: both sides send one arrival schedule, a paired design, not a problem (repeats of one side sharing a seed are)"}

var msgSeeds = lang.Msg{"种子（区分重复运行，不算条件）：A %s；B %s", "Seeds (they tell replicates apart, not a condition): A %s; B %s"}

var (
	msgSLOsDiffer = lang.Msg{"说明：两边 trace 记录的 SLO 不同（%s）。SLO 是判定标准，不是运行的条件，不算改变的条件：两边都按同一套 SLO 判定，即%s（见上面的“判定”一行）。", "Note: the traces' recorded SLOs differ (%s). SLOs are a judgement, not a condition of the runs, and are not counted as a changed condition: both sides are judged under one set, %s (the \"Judged under\" line above)."}
	msgSLOByRun   = lang.Msg{"第一个 A 运行（%s）记录的那一套", "the one the first A run (%s) records"}
	msgSLOByFlags = lang.Msg{"命令行给的那一套（--slo-*）", "the one given (--slo-* flags)"}
)

var (
	msgRealOneRunBoth = lang.Msg{"每边只有 1 次运行：这些区间没有计入运行之间的波动，同一条命令再跑一次就可能不同。", " One run a side: these intervals leave out the variance between runs; the same command run again may differ."}
	msgRealOneRun     = lang.Msg{"%s 只有 1 次运行：这些区间没有计入它运行之间的波动。", " %s has one run: these intervals leave out its variance between runs."}
	msgRealMany       = lang.Msg{"这里同时检验了 %d 个指标：即使两边毫无差别，每个 95%% 区间也有 5%% 的机会碰巧不含 0，%d 个里平均约 %s 个。", " %[1]d metrics are tested at once: even with no difference at all, each 95%% interval excludes 0 by chance 5%% of the time, about %[3]s of %[2]d on average."}
)

// realCaveats are what the line of differences whose interval excludes 0
// must say with it: one run on a side leaves out the variance between
// runs, and many metrics tested at once give some such differences by
// chance.
func (r *Result) realCaveats(l lang.Lang) string {
	out := ""
	switch {
	case !r.BetweenRuns.A && !r.BetweenRuns.B:
		out += msgRealOneRunBoth.In(l)
	case !r.BetweenRuns.A:
		out += msgRealOneRun.F(l, "A")
	case !r.BetweenRuns.B:
		out += msgRealOneRun.F(l, "B")
	}
	n := 0
	for _, m := range r.Metrics {
		if m.Verdict != NA {
			n++
		}
	}
	if n > 1 {
		chance := strings.TrimSuffix(strconv.FormatFloat(float64(n)*0.05, 'f', 1, 64), ".0")
		out += msgRealMany.F(l, n, n, chance)
	}
	return out
}

// msgSeedsClosed lists the seeds of closed-loop runs, which draw no
// arrival schedule.
var msgSeedsClosed = lang.Msg{"种子（闭环没有预先排定的到达时刻表，种子不区分重复运行；不算条件）：A %s；B %s", "Seeds (closed loop: no arrival schedule is drawn from them, so they do not tell replicates apart; not a condition): A %s; B %s"}

// seedList prints a side's seeds in run order, "(not recorded)" where a
// run records none.
func seedList(l lang.Lang, vs []string) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = shortValue(l, raw(v))
	}
	return strings.Join(out, msgSep.In(l))
}

// report is the text or Markdown comparison.
func (r *Result) report(md bool, l lang.Lang) string {
	var b strings.Builder
	if md {
		b.WriteString("## " + msgTitle.In(l) + "\n\n")
	} else {
		b.WriteString(msgTitle.In(l) + "\n")
	}
	for _, bl := range Blocks(r, l) {
		switch {
		case bl.Table != nil && md:
			for i, row := range bl.Table {
				cells := make([]string, len(row))
				for j, c := range row {
					cells[j] = mdCell(c)
				}
				b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
				if i == 0 {
					b.WriteString(strings.Repeat("|---", len(row)) + "|\n")
				}
			}
			b.WriteString("\n")
		case bl.Table != nil:
			b.WriteString("\n" + alignedTable(bl.Table) + "\n")
		case bl.Items != nil:
			for _, it := range bl.Items {
				if md {
					b.WriteString("- " + mdEscape(it) + "\n")
				} else {
					b.WriteString("  " + it + "\n")
				}
			}
			if md {
				b.WriteString("\n")
			}
		case md:
			b.WriteString(mdEscape(bl.Para) + "\n\n")
		default:
			b.WriteString(bl.Para + "\n")
		}
	}
	return b.String()
}

// table is the table of metrics, its first row the header.
func (r *Result) table(l lang.Lang) [][]string {
	table := [][]string{make([]string, len(msgHead))}
	for i, h := range msgHead {
		table[0][i] = h.In(l)
	}
	if !r.BetweenRuns.A || !r.BetweenRuns.B {
		table[0][len(msgHead)-1] = msgVerdictOneRun.In(l)
	}
	for _, c := range Cells(r, l) {
		table = append(table, []string{c.Name, c.A, c.B, c.Diff, c.Rel, c.Interval, c.Method, c.Verdict})
	}
	return table
}

// tableWidth is how many columns alignedTable's widest line of rows takes.
func tableWidth(rows [][]string) int {
	w := 0
	for _, line := range strings.Split(alignedTable(rows), "\n") {
		w = max(w, textWidth(line))
	}
	return w
}

// Cell is one metric's row of the table, as printed.
type Cell struct {
	Name, A, B, Diff, Rel, Interval, Method, Verdict string
}

// Cells are the table's rows of r in l, one per metric.
func Cells(r *Result, l lang.Lang) []Cell {
	var out []Cell
	for _, m := range r.Metrics {
		c := Cell{Name: m.Name, A: value(l, m, m.A, "a"), B: value(l, m, m.B, "b"), Method: MethodName(l, m.Method), Verdict: VerdictName(l, m.Verdict)}
		if m.Diff != nil {
			c.Diff = signed(l, m, *m.Diff, true)
			c.Interval = interval(l, m)
		}
		if m.Rel != nil {
			c.Rel = signedPct(*m.Rel * 100)
		} else if m.Diff != nil {
			c.Rel = "—" // A is 0: no share of it
		}
		out = append(out, c)
	}
	return out
}

// alignedTable lays rows out in columns for a terminal.
func alignedTable(rows [][]string) string {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for j, c := range row {
			widths[j] = max(widths[j], textWidth(c))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		var line strings.Builder
		for j, c := range row {
			line.WriteString(c)
			if j < len(row)-1 {
				line.WriteString(strings.Repeat(" ", widths[j]-textWidth(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}

// VerdictName is a verdict as the report prints it: 更好, 更差, ~.
func VerdictName(l lang.Lang, v string) string {
	switch v {
	case Better:
		return msgBetter.In(l)
	case Worse:
		return msgWorse.In(l)
	case Same:
		return "~"
	}
	return msgNA.In(l)
}

// unitText is the unit a value of m is printed with.
func unitText(l lang.Lang, m Metric) string {
	switch m.Unit {
	case "/s":
		return msgPerS.In(l)
	case "share":
		return "%"
	}
	return m.Unit
}

// value prints a value of m on side ("a" or "b"): a side's or one of its
// runs'. One that is missing because nothing was rated reads as the
// card's "unknown (unrated)".
func value(l lang.Lang, m Metric, v *float64, side string) string {
	if v == nil && strings.Contains(m.unrated, side) {
		return cardfmt.UnknownUnrated.In(l)
	}
	if v == nil {
		return msgMissing.In(l)
	}
	if m.Unit == "share" {
		return cardfmt.Measure(*v*100, "%")
	}
	return cardfmt.Measure(*v, unitText(l, m))
}

// signed prints a difference of m with its sign, and its unit when
// withUnit: a share's difference in percentage points (diffText).
func signed(l lang.Lang, m Metric, d float64, withUnit bool) string {
	v, unit := d, " "+unitText(l, m)
	if m.Unit == "share" {
		v, unit = d*100, msgPP.In(l)
	}
	s := diffText(v, noise(m), diffDecimals(m), diffSig)
	if withUnit {
		s += unit
	}
	return s
}

// signedBound prints a bound of m's interval: as signed, but never
// rounded to 0 as noise, since its sign is the verdict.
func signedBound(m Metric, d float64) string {
	if m.Unit == "share" {
		d *= 100
	}
	return diffText(d, 0, diffDecimals(m), diffSig)
}

// diffSig is how many significant digits a difference or a bound keeps
// at least (a relative change, two): a bound of −0.348 /s beside values of
// 169 /s printed to their digits read "0", and the interval [−3, 0] then
// seemed to hold 0 beside the verdict worse.
const diffSig = 3

// diffText is the one formatter of compare's differences, bounds and
// relative changes: v with its sign (− or +), to at least minDec decimals
// and at least sig significant digits, trailing zeros dropped, so a
// nonzero v never prints as 0 or with the other sign. |v| ≤ zero prints
// "0": floating-point noise of a difference of means, not a difference.
func diffText(v, zero float64, minDec, sig int) string {
	if v == 0 || math.Abs(v) <= zero {
		return "0"
	}
	dec := max(minDec, sig-1-int(math.Floor(math.Log10(math.Abs(v)))))
	s := strconv.FormatFloat(math.Abs(v), 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if v < 0 {
		return "−" + s
	}
	return "+" + s
}

// noise is the largest difference of m that is floating-point noise of a
// mean of its values (in the printed unit, percentage points for shares):
// a billionth of the larger value.
func noise(m Metric) float64 {
	big := 0.0
	for _, x := range []*float64{m.A, m.B} {
		if x != nil {
			big = max(big, math.Abs(*x))
		}
	}
	if m.Unit == "share" {
		big *= 100
	}
	return big * 1e-9
}

// diffDecimals is the fewest decimals a difference of m is printed to:
// those A and B are printed to (numfmt.Measure: milliseconds at one
// decimal below 1000, whole above; shares as percentages at one decimal;
// the rest at three significant digits), so that B − A reads against them.
func diffDecimals(m Metric) int {
	best := 0
	for _, x := range []*float64{m.A, m.B} {
		if x == nil || *x == 0 {
			continue
		}
		d := 0
		switch a := math.Abs(*x); {
		case m.Unit == "share":
			d = 1 // the percentage's decimal, in percentage points
		case m.Unit == "ms" && a >= 1000:
			d = 0
		case m.Unit == "ms":
			d = 1
		default:
			d = max(0, 2-int(math.Floor(math.Log10(a))))
		}
		best = max(best, d)
	}
	return best
}

// signedPct is a relative change in percent, at one decimal and at least
// two significant digits (−0.04%, not 0%, beside a nonzero difference).
func signedPct(v float64) string {
	return diffText(v, 0, 1, 2) + "%"
}

// interval prints m's interval, "−∞" or "+∞" on an unbounded side.
func interval(l lang.Lang, m Metric) string {
	lo, hi := "−∞", "+∞"
	if m.CI95.Low != nil {
		lo = signedBound(m, *m.CI95.Low)
	}
	if m.CI95.High != nil {
		hi = signedBound(m, *m.CI95.High)
	}
	unit := " " + unitText(l, m)
	if m.Unit == "share" {
		unit = msgPP.In(l)
	}
	return "[" + lo + ", " + hi + "]" + unit
}

// noValueText says why m has no value on a side: nothing rated (the
// summary's goodput_unknown), or no value to take (no complete success).
func (m Metric) noValueText(l lang.Lang) string {
	side := map[string]lang.Msg{"a": msgUnknownA, "b": msgUnknownB, "ab": msgUnknownAB}
	if s, ok := side[m.unrated]; ok {
		return msgUnknown.F(l, m.Name, s.In(l))
	}
	return msgNoValue.F(l, m.Name)
}

// atRunMaxText names m's level and the n of the runs at which it is the
// run's maximum: "P99 of n = 10–18 is each run's maximum"; "" when none.
func (m Metric) atRunMaxText(l lang.Lang) string {
	if m.AtRunMax == nil {
		return ""
	}
	n := strconv.Itoa(m.AtRunMax[0])
	if m.AtRunMax[1] > m.AtRunMax[0] {
		n += "–" + strconv.Itoa(m.AtRunMax[1])
	}
	level := m.Name
	if i := strings.LastIndex(level, "."); i >= 0 {
		level = strings.ToUpper(level[i+1:])
	}
	return msgAtRunMax.F(l, level, n)
}

// shortRunsText names the runs that leave m unbounded, with their n.
func (m Metric) shortRunsText(l lang.Lang) string {
	if m.allShort && len(m.ShortRuns) > 2 {
		lo, hi := m.ShortRuns[0].N, m.ShortRuns[0].N
		for _, r := range m.ShortRuns {
			lo, hi = min(lo, r.N), max(hi, r.N)
		}
		n := strconv.Itoa(lo)
		if hi > lo {
			n += "–" + strconv.Itoa(hi)
		}
		return msgAllShort.F(l, lang.N(l, len(m.ShortRuns), "run", "runs"), n)
	}
	out := make([]string, len(m.ShortRuns))
	for i, r := range m.ShortRuns {
		out[i] = msgShortRun.F(l, r.Side, r.Trace, r.N)
	}
	return strings.Join(out, msgSep.In(l))
}

// runValues prints each run's value of m.
func runValues(l lang.Lang, m Metric, vs []*float64, side string) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = value(l, m, v, side)
	}
	return strings.Join(out, " · ")
}

// gapName is the note on what the event gaps of the runs are, as the
// card names them: one name, or which runs' gaps are not ITL.
func (r *Result) gapName(l lang.Lang) string {
	hasGaps := false
	for _, m := range r.Metrics {
		hasGaps = hasGaps || strings.HasPrefix(m.Name, "itl_ms.")
	}
	if !hasGaps {
		return ""
	}
	// One name for all the runs: the card's. Runs that go by several
	// names (some ITL, some not): one note naming the runs whose gaps are
	// not ITL and why.
	names := map[string]bool{}
	var multi, usage, itl []string
	for _, run := range r.allRuns() {
		names[cardfmt.EventGapLabelIn(l, run.Summary)] = true
		switch e := run.Summary.Event; {
		case e.MultiTokenEvents > 0:
			multi = append(multi, run.Name)
		case cardfmt.UsageDisagrees(run.Summary):
			usage = append(usage, run.Name)
		default:
			itl = append(itl, run.Name)
		}
	}
	if len(names) == 1 {
		return msgGap.F(l, cardfmt.EventGapLabelIn(l, r.A.runs[0]))
	}
	var not []string
	if len(multi) > 0 {
		not = append(not, msgGapMulti.F(l, strings.Join(multi, msgSep.In(l))))
	}
	if len(usage) > 0 {
		not = append(not, msgGapUsage.F(l, strings.Join(usage, msgSep.In(l))))
	}
	if len(itl) == 0 {
		return msgGapNone.F(l, strings.Join(not, msgSemi.In(l)))
	}
	return msgGapMixed.F(l, strings.Join(itl, msgSep.In(l)), strings.Join(not, msgSemi.In(l)))
}

var (
	msgGapMixed = lang.Msg{"itl_ms 是相邻文本事件的间隔：在 %s 里每个事件 1 个 token，间隔就是 ITL；%s。两边混在一起比较的是事件间隔，不全是 token 间隔。", "itl_ms are the gaps between adjacent text events: ITL in %s (1 token per event); %s. Together they compare event gaps, not all token gaps."}
	msgGapNone  = lang.Msg{"itl_ms 是相邻文本事件的间隔，都不是 ITL：%s。", "itl_ms are the gaps between adjacent text events, none of them ITL: %s."}
	msgGapMulti = lang.Msg{"在 %s 里有事件带多个 token，间隔不是 ITL", "not ITL in %s, where some events carry several tokens"}
	msgGapUsage = lang.Msg{"在 %s 里事件与服务端报告的 token 数对不上，间隔不等于 ITL", "not ITL in %s, whose events do not match the server's token count"}
)

// label is the condition's name, and the keys under it that differ when
// there are several: prefix_reuse (itself, mode, salted).
func (c ConditionDiff) label(l lang.Lang) string {
	if len(c.Keys) == 0 {
		return c.Name
	}
	keys := make([]string, len(c.Keys))
	for i, k := range c.Keys {
		keys[i] = strings.TrimPrefix(k, c.Name+".")
		if k == c.Name {
			keys[i] = msgItself.In(l)
		}
	}
	return msgKeys.F(l, c.Name, strings.Join(keys, msgSep.In(l)))
}

// maxValueRunes is how much of a condition's value is printed.
const maxValueRunes = 60

// contextRunes is how much of what two long values share is kept before
// the place they differ.
const contextRunes = 16

// pairValues prints a changed condition's two values, together taking at
// most room columns where they must be cut (each at least maxValueRunes:
// a short value leaves the rest to the other), cut at a word's end. Where
// both are text and one is cut, both start from shortly before the first
// place they differ ("…request's key, the request id…" against "…the
// salt, then filler…"), so that the cut does not hide the difference.
func pairValues(l lang.Lang, a, b json.RawMessage, room int) (string, string) {
	text := func(v json.RawMessage) []rune {
		if bytes.Equal(v, []byte("null")) || len(v) == 0 {
			return []rune(msgNone.In(l))
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v)
		}
		return []rune(s)
	}
	ra, rb := text(a), text(b)
	if textWidth(string(ra))+textWidth(string(rb)) <= room {
		return string(ra), string(rb)
	}
	from := 0
	if !bytes.Equal(a, []byte("null")) && len(a) > 0 && !bytes.Equal(b, []byte("null")) && len(b) > 0 && max(len(ra), len(rb)) > maxValueRunes {
		same := 0
		for same < len(ra) && same < len(rb) && ra[same] == rb[same] {
			same++
		}
		from = max(0, same-contextRunes)
		ra, rb = ra[from:], rb[from:]
	}
	la, lb := room/2, room-room/2
	if n := textWidth(string(ra)); n < la {
		lb = room - n
	} else if n := textWidth(string(rb)); n < lb {
		la = room - n
	}
	cut := func(r []rune, limit int) string {
		pre := ""
		if from > 0 {
			pre = "…"
		}
		return pre + cutText(r, max(limit, maxValueRunes))
	}
	return cut(ra, la), cut(rb, lb)
}

// shortValue prints a condition's JSON value: a string without quotes,
// anything else as JSON, cut at maxValueRunes.
func shortValue(l lang.Lang, v json.RawMessage) string {
	if bytes.Equal(v, []byte("null")) || len(v) == 0 {
		return msgNone.In(l)
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		s = string(v)
	}
	return cutText([]rune(s), maxValueRunes)
}

// cutText is r when it is at most n runes, else its first n runes cut
// back to the end of a word (where one ends in their last third) and "…",
// not "on this trace's cloc…".
func cutText(r []rune, n int) string {
	if len(r) <= n {
		return string(r)
	}
	r = r[:n]
	for i := n - 1; i >= n*2/3; i-- {
		if r[i] == ' ' {
			r = []rune(strings.TrimRight(string(r[:i]), " ,;:"))
			break
		}
	}
	return string(r) + "…"
}

// textWidth is how many terminal columns s takes: wide and full-width
// characters (Chinese) take two.
func textWidth(s string) int {
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// mdEscape keeps a line of text from being read as Markdown markup. An
// underscore inside a word (ttft_ms) is no markup and stays as it is; a
// tilde (the verdict ~) is escaped, since two of them strike text through.
func mdEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "`", "\\`", "<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`, "~", `\~`).Replace(s)
}

// mdCell is a table cell: escaped, with its pipes too.
func mdCell(s string) string {
	return strings.ReplaceAll(mdEscape(s), "|", `\|`)
}

// MIMEType carries a comparison as JSON in a notebook's output, beside its
// text and HTML (nb.Comparison), for tools that read a saved notebook.
const MIMEType = "application/vnd.coursekit.compare+json"

// runMaxItems name the metrics left without a Welch's t over runs
// because a run's percentile is its maximum, each with its n.
func runMaxItems(r *Result, l lang.Lang) []string {
	var out []string
	for _, m := range r.Metrics {
		if m.AtRunMax != nil && m.Unbounded != nil && !m.WelchOnly() {
			out = append(out, m.Name+msgParen.F(l, m.atRunMaxText(l)))
		}
	}
	return out
}

var msgParen = lang.Msg{"（%s）", " (%s)"}
