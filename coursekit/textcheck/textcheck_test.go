package textcheck

import (
	"slices"
	"testing"
)

func TestTermsFindEveryVariant(t *testing.T) {
	for _, v := range Variants {
		if got := Terms("这里写了"+v.Never+"。", false); len(got) != 1 || got[0].Never != v.Never {
			t.Errorf("%q: %v", v.Never, got)
		}
	}
	for _, glossary := range []string{"开环（也有人叫开放到达）", "采集点（别处也叫采样点、观察点）"} {
		if got := Terms(glossary, true); len(got) != 0 {
			t.Errorf("the glossary may name %q: %v", glossary, got)
		}
	}
	// The course's own terms, and 掉 or 量的是 where they are not spoken.
	for _, good := range []string{
		"首字时延（TTFT）、指标口径卡、单元格、质量通过、联合合格、0.02 元", "TTFT 的边界由采集点决定", "请把截图发给老师",
		"测量的是什么", "计量的是", "删掉了失败的尝试", "关掉缓存", "丢掉不需要的返回值", "去掉行首的 //", "测完就停掉",
		"还不足以支撑尾时延结论", "goodput 下降了",
	} {
		if got := Terms(good, false); len(got) != 0 {
			t.Errorf("%q flagged: %v", good, got)
		}
	}
}

// One idea, one word: the source's 采集点 for where a timestamp is taken,
// 老师 for the one who teaches; spoken shortcuts written out (where they
// are not spoken, as in 删掉 or 测量的是, TestTermsFindEveryVariant lets
// them be).
func TestTermsAndRegister(t *testing.T) {
	for text, want := range map[string]string{
		"TTFT 的边界由采样点决定":   "采样点",
		"观察点：客户端时钟":        "观察点",
		"请把截图发给助教":         "助教",
		"或“卡不够用”":          "卡不够用",
		"忙碌率接近满格":          "满格",
		"| 它量的是什么 |":       "量的是",
		"量的是事件间隔":          "量的是",
		"goodput 掉了，忙碌率没动": "掉",
		"质量通过率都会往下掉":       "掉",
		"样本很少时不足以下尾时延的结论":  "不足以下",
	} {
		if got := Terms(text, false); len(got) != 1 || got[0].Never != want {
			t.Errorf("%q: %v, want %q", text, got, want)
		}
	}
}

func TestCalloutLabelsAreTheTwo(t *testing.T) {
	for text, want := range map[string]string{
		"**读图提示**：训练跑完": "读图提示",
		"读表时注意四件事：":     "读表时注意",
		"**看图提示**：":     "看图提示",
		"**读表要点**：":     "读表要点",
		"看表时注意：":        "看表时注意",
	} {
		if got := CalloutLabels(text); len(got) != 1 || got[0] != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
	if got := CalloutLabels("**看图要点**：图 01.9 …… **看表要点**：两份 trace"); len(got) != 0 {
		t.Errorf("the two labels flagged: %q", got)
	}
}

func TestPunctuationWantsFullWidthNextToChinese(t *testing.T) {
	for _, bad := range []string{"时延:700 ms", "首字时延(TTFT)", "失败,重试", "真的吗?", "窗口(固定)内"} {
		if len(Punctuation(bad)) == 0 {
			t.Errorf("%q passed", bad)
		}
	}
	for _, good := range []string{"时延：700 ms", "首字时延（TTFT）", "TTFT(ms)", "f(x, y)", "[0, 10000) ms", `"观察": "x"`, "1,000 次"} {
		if got := Punctuation(good); len(got) != 0 {
			t.Errorf("%q flagged: %q", good, got)
		}
	}
}

// The seventh review's two chart texts: a bracket opened full-width and
// closed half-width (Fig. 01.2's title), a label's half-width colon (Fig.
// 01.4's funnel). Both passed the rule before.
func TestChartPunctuationCatchesMixedBracketsAndLabelColons(t *testing.T) {
	for _, bad := range []string{"图 01.2 · 一次请求的客户端时间轴（T1)", "首字时延(TTFT）", "−TTFT > 1 s:2", "TTFT,按", "失败,重试"} {
		if len(ChartPunctuation(bad)) == 0 {
			t.Errorf("%q passed", bad)
		}
	}
	if len(Punctuation("时间轴（T1)")) == 0 {
		t.Error("Punctuation passes a bracket opened full-width and closed half-width")
	}
	for _, good := range []string{"图 01.2 · 一次请求的客户端时间轴（T1）", "−TTFT > 1 s：2", "TTFT(ms)", "f(g(x)) 的值（单位（ms））", "12:30", "http://x", "TTFT ≤ 1 s", "[0, 10000) ms"} {
		if got := ChartPunctuation(good); len(got) != 0 {
			t.Errorf("%q flagged: %q", good, got)
		}
	}
}

func TestEnglishCodesStandAloneOnly(t *testing.T) {
	for text, want := range map[string][]string{
		"R6：qualified → ttft_over_slo":      {"ttft_over_slo", "qualified"},
		"否:timeout":                         {"timeout"},
		"全部记录：true":                         {"true"},
		"完整成功 8 · 失败 2（timeout 1）":          {"timeout"},
		"up to 2 after a timeout, HTTP 503": nil,
		"no first token; client gave up":    nil,
		"status: connect_error":             {"connect_error"},
		"timeout_policy（超时策略）":              nil,
		"[text.outputs] ok":                 {"ok"},
	} {
		got := EnglishCodes(text)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}

func TestCopiedFindsRunsAcrossPunctuationAndWhitespace(t *testing.T) {
	seed := "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥。另一句完全不同的话在这里结束了吗"
	fp := Fingerprint(seed)
	got := Copied("前言：甲乙丙丁，戊己庚辛 壬癸子丑寅卯辰巳午未申酉戌亥 后记", fp)
	if len(got) != 1 || got[0] != "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥" {
		t.Errorf("copied: %q", got)
	}
	// 17 shared characters are not a copy; a letter breaks a run.
	if got := Copied("乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未", fp); len(got) != 0 {
		t.Errorf("17 characters: %q", got)
	}
	if got := Copied("甲乙丙丁戊己庚辛壬 TTFT 癸子丑寅卯辰巳午未申酉", fp); len(got) != 0 {
		t.Errorf("broken by a word: %q", got)
	}
	// Full-width forms normalise (NFKC) before comparing.
	if got := Copied("甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申", Fingerprint("甲乙丙丁戊己庚辛壬癸，子丑寅卯辰巳午未申")); len(got) != 1 {
		t.Errorf("punctuation inside a run: %q", got)
	}
	back, err := ParseFingerprint(FormatFingerprint(fp))
	if err != nil || len(back) != len(fp) {
		t.Fatalf("round trip: %d of %d, %v", len(back), len(fp), err)
	}
}

func TestCostUnitIsPerThousandQualified(t *testing.T) {
	for _, bad := range []string{
		"每千次合格成本：0.02 元 ÷ 5 × 1000 = 4 元",
		"每千次合格成本：4 → 5 元",
		"TTFT ≤ 1 s：每千次合格成本 4 元",
		"每千次合格成本（元）",
		"每千次合格成本：4 元，运行本单元格",
	} {
		if len(CostUnitMissing(bad)) == 0 {
			t.Errorf("%q passed", bad)
		}
	}
	for _, good := range []string{
		"每千次合格成本：0.02 元 ÷ 5 × 1000 = 4 元/千次合格",
		"每千次合格成本：4 → 5 元/千次合格",
		"  每千次合格成本：0.02 元 / 5 × 1000 = 4 元 / 千次合格",
		"窗口成本 0.02 元",
		"每千次合格成本：无（trace 未记录窗口成本）",
		"每千次合格成本（元/千次合格）：你的预测 未填。请先运行预测单元格，再运行本单元格。",
	} {
		if got := CostUnitMissing(good); len(got) != 0 {
			t.Errorf("%q flagged: %q", good, got)
		}
	}
}
