package criteria

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// ScorePublic is the score of public criterion r of card c, given points
// (the rubric) and s, the summary of the learner's own variant: full
// points for a pass, partial credit for a near miss, and free text left
// pending for a person.
func ScorePublic(points map[string]float64, r card.Result, c *card.Card, s *metrics.Summary) Score {
	x := Score{ID: r.ID, Title: r.Title, Kind: KindPublic, Status: r.Status, Max: points[r.ID], Message: r.Hint}
	if ManualIDs[r.ID] {
		x.Kind = KindManual
		if strings.TrimSpace(ManualText(r.ID, c)) != "" {
			x.Pending = true
			x.Status = card.NeedsHuman
			if r.Status == card.Fail {
				x.Message = "关键词预检没有找到相关内容：" + r.Hint + "（老师仍会阅读你的答案。）"
			} else {
				x.Message = "文字题，等待老师阅读评分。"
			}
		}
		return x
	}
	switch r.Status {
	case card.Pass:
		x.Points = x.Max
	case card.Fail:
		if f, why, ok := partial(r.ID, c, s); ok {
			if f >= 1 { // our bands agree, the exact check does not: half credit
				f, why = 0.5, "数值都接近复算结果，但没有通过精确核对（看上面的提示），给一半"
			}
			x.Points = Round2(f * x.Max)
			if x.Points > 0 {
				x.Message += fmt.Sprintf("（部分得分 %s/%s：%s。）", FmtPts(x.Points), FmtPts(x.Max), why)
			}
			x.Detail = fmt.Sprintf("partial credit %.2f", f)
		}
	}
	return x
}

// ScoreHidden is the score of hidden criterion r, given points (the rubric).
func ScoreHidden(points map[string]float64, r card.Result) Score {
	x := Score{ID: r.ID, Title: r.Title, Kind: KindHidden, Status: r.Status, Max: points[r.ID], Message: r.Hint}
	if r.Status == card.Pass {
		x.Points = x.Max
	}
	return x
}

// ---- partial credit ----

// CondsBySLO is the card's conditions for 1 s and 0.5 s, nil where missing.
func CondsBySLO(c *card.Card) [2]*card.Condition {
	var out [2]*card.Condition
	for i, slo := range []float64{1000, 500} {
		for j := range c.Conditions {
			if ms, ok := ToMS(c.Conditions[j].SLO); ok && math.Abs(ms-slo) <= 5 {
				out[i] = &c.Conditions[j]
				break
			}
		}
	}
	return out
}

// ToMS reads a time figure in ms; without a time unit, a small value is
// taken as seconds (ok is false either way, for the unit rows).
func ToMS(f card.Figure) (float64, bool) {
	u := strings.ToLower(strings.TrimSpace(f.Unit))
	switch u {
	case "s", "sec", "second", "seconds", "秒":
		return f.Value * 1000, true
	case "ms", "msec", "millisecond", "milliseconds", "毫秒":
		return f.Value, true
	}
	if f.Value < 50 {
		return f.Value * 1000, false
	}
	return f.Value, false
}

func perSecond(f card.Figure) float64 {
	u := strings.ToLower(f.Unit)
	if strings.Contains(u, "min") || strings.Contains(u, "分钟") {
		return f.Value / 60
	}
	return f.Value
}

// band is the tolerance band of a number: 1 within the exact check's
// tolerance, 0.5 within 10 %, else 0.
func band(got, want, abs float64) float64 {
	if !finiteF(got) {
		return 0
	}
	d := math.Abs(got - want)
	switch {
	case d <= math.Max(0.01*math.Abs(want), abs):
		return 1
	case d <= 0.10*math.Abs(want):
		return 0.5
	}
	return 0
}

// ratioBand: the counts themselves → 1; the right value from other
// numbers (reduced, percent as 20/100) → 0.5.
func ratioBand(r card.Ratio, num, den float64) float64 {
	if r.Num == num && r.Den == den {
		return 1
	}
	if r.Den != 0 && den != 0 && math.Abs(r.Num/r.Den-num/den) < 1e-9 {
		return 0.5
	}
	return 0
}

// partial is the partial credit of a failed criterion in [0,1] and why,
// in Chinese (never an expected value); ok is false for criteria that are
// all or nothing. The numbers an SLO changes are scored per condition
// (half each) by tolerance band, the card's one P95 and one failure rate
// once, the path map by its structure.
func partial(id string, c *card.Card, s *metrics.Summary) (f float64, why string, ok bool) {
	conds := CondsBySLO(c)
	// perCond scores each of the two conditions and says how each did:
	// words[1] for a full half, words[0.5] for half of it, words[0] else.
	perCond := func(words map[float64]string, score func(c *card.Condition, want *metrics.Condition) float64) (float64, string, bool) {
		t := 0.0
		var parts []string
		for i, cc := range conds {
			slo := []string{"1 s", "0.5 s"}[i]
			if cc == nil {
				parts = append(parts, slo+" 门槛：没有这个条件")
				continue
			}
			v := score(cc, &s.Conditions[i])
			t += v / 2
			parts = append(parts, slo+" 门槛："+words[v])
		}
		return t, "两个门槛条件各占一半；" + strings.Join(parts, "；"), true
	}
	bandWords := map[float64]string{1: "与复算一致", 0.5: "接近复算值（相差在 10% 以内），得一半", 0: "与复算相差太多或没有填写"}
	ratioWords := map[float64]string{1: "分子和分母都对", 0.5: "比值对，但分子分母不是实际的计数，得一半", 0: "比值不对或没有填写"}
	// Per condition, each word is about that condition's half.
	halfOf := func(w map[float64]string) map[float64]string {
		return map[float64]string{1: w[1], 0.5: strings.Replace(w[0.5], "得一半", "得这一半的一半", 1), 0: w[0]}
	}
	countWords := map[float64]string{1: "与复算一致", 0: "与复算不一致"}
	switch id {
	case "figures.p95":
		// One P95 per card (no SLO enters it): scored once, not per condition.
		want := statedP95(c, s)
		if want == nil {
			return 0, "", true
		}
		ms, _ := ToMS(c.P95)
		f = band(ms, *want, 5)
		return f, bandWords[f], true
	case "figures.failure_rate":
		// One failure rate per card, scored once.
		f = ratioBand(c.FailureRate, float64(s.Failures), float64(s.Attempts))
		return f, ratioWords[f], true
	case "figures.qualified":
		return perCond(countWords, func(c *card.Condition, w *metrics.Condition) float64 {
			return boolF(int64(c.Qualified) == w.Qualified)
		})
	case "figures.qualified_rate":
		return perCond(halfOf(ratioWords), func(c *card.Condition, w *metrics.Condition) float64 {
			return ratioBand(c.QualifiedRate, w.QualifiedRate.Num, w.QualifiedRate.Den)
		})
	case "figures.goodput":
		return perCond(halfOf(bandWords), func(c *card.Condition, w *metrics.Condition) float64 {
			return band(perSecond(c.Goodput), w.GoodputPerS, 1e-3)
		})
	case "figures.cost":
		return perCond(halfOf(bandWords), func(c *card.Condition, w *metrics.Condition) float64 {
			if w.CostPer1000 == nil {
				return boolF(c.CostPer1000.Value == 0)
			}
			return band(c.CostPer1000.Value, *w.CostPer1000, 0.01)
		})
	case "map.steps":
		p := c.Path
		named := map[string]bool{}
		for _, st := range p.Steps {
			if n := strings.TrimSpace(st.Name); n != "" {
				named[n] = true
			}
		}
		// The release pre-fills the task: it counts only with steps of the learner's own.
		task := len(named) > 0 && (p.Task == card.TrainingTask || p.Task == card.InferenceTask)
		f = 0.75 * float64(min(len(named), 4)) / 4
		why = fmt.Sprintf("有名字的步骤 %d 个（四个才满分）", len(named))
		if task {
			f += 0.25
			why = "选定了任务；" + why
		}
		return f, why, true
	case "map.marks":
		var d, dev, o, fl bool
		for _, st := range c.Path.Steps {
			d = d || strings.TrimSpace(st.Data) != ""
			dev = dev || strings.TrimSpace(st.Device) != ""
			o = o || strings.TrimSpace(st.Output) != ""
			fl = fl || strings.TrimSpace(st.Failure) != ""
		}
		var have, lack []string
		for _, m := range []struct {
			ok   bool
			name string
		}{{d, "数据"}, {dev, "设备"}, {o, "输出"}, {fl, "失败点"}} {
			if m.ok {
				have = append(have, m.name)
			} else {
				lack = append(lack, m.name)
			}
		}
		why = "四种标注各占四分之一；已标出：" + strings.Join(have, "、") + "；还缺：" + strings.Join(lack, "、")
		return (boolF(d) + boolF(dev) + boolF(o) + boolF(fl)) / 4, why, true
	case "map.sampling":
		sp := strings.TrimSpace(c.Path.SamplingPoint)
		if sp == "" || strings.Contains(sp, "监控") || strings.Contains(strings.ToLower(sp), "monitor") {
			return 0, "", true
		}
		return 0.5, "写了一个具体的采样位置，但它不是路径图上某个步骤的名字", true // a concrete point, but not a step of the map
	}
	return 0, "", false
}

// statedP95 is the success P95 under the method card c states, which
// figures.p95 is checked against (nearest-rank when it states none): a
// near miss is measured from the number the learner was asked for, not
// from another method's.
func statedP95(c *card.Card, s *metrics.Summary) *float64 {
	m, ok := card.StatedMethod(c.PercentileMethod)
	if ok && m != s.TTFT.Method && s.TTFTOther != nil && s.TTFTOther.Method == m {
		return s.TTFTOther.P95
	}
	return s.TTFT.P95
}

func boolF(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func finiteF(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
