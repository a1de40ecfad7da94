package main

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/nb"
	"github.com/llmperf-course/course/coursekit/trace"
)

// viewTraces writes the traces the views are compared on, beside the
// unit's: a bench-like run that judged nothing and recorded its SLO set
// (E2E included) in its header; a judged run (a dataset in the header,
// passes, fails and unrated answers); a run with a window cost in USD.
// Each has failures, in-flight attempts, retries and attempts outside the
// window, so that no count is the same as another by chance.
func viewTraces(t *testing.T) (unjudged, judged, costly string) {
	t.Helper()
	dir := t.TempDir()
	write := func(name, header string, quality func(i int) string) string {
		var b strings.Builder
		b.WriteString(header + "\n")
		for i := 0; i < 47; i++ {
			start := float64(i)*310 + 600 // the first two start before the window
			ttft := 120 + float64((i*137)%900)
			gap := 15 + float64((i*29)%40)
			n := 3 + i%5
			id := fmt.Sprintf("a%02d", i)
			req := fmt.Sprintf("r%02d", i-i%7/6) // every seventh attempt retries the one before
			var ev []string
			last := start + ttft
			for k := 0; k < n; k++ {
				if k > 0 {
					last += gap * float64(1+k%3)
				}
				ev = append(ev, fmt.Sprintf(`{"t_ms":%g}`, last))
			}
			switch {
			case i%11 == 5:
				fmt.Fprintf(&b, `{"attempt":%q,"request":%q,"start_ms":%g,"outcome":"timeout","events":[],"end_ms":%g,"error":"no first token"}`+"\n", id, req, start, start+2500)
			case i%13 == 7:
				fmt.Fprintf(&b, `{"attempt":%q,"request":%q,"start_ms":%g,"outcome":"stream_error","events":[%s],"end_ms":%g,"error":"EOF"}`+"\n", id, req, start, ev[0], start+ttft+5)
			case i == 46:
				fmt.Fprintf(&b, `{"attempt":%q,"request":%q,"start_ms":%g,"outcome":"in_flight","events":[%s]}`+"\n", id, req, start, ev[0])
			default:
				q := quality(i)
				if q != "" {
					q = `,"quality":"` + q + `"`
				}
				fmt.Fprintf(&b, `{"attempt":%q,"request":%q,"start_ms":%g,"outcome":"ok","events":[%s],"end_ms":%g,"output_tokens":%d%s}`+"\n", id, req, start, strings.Join(ev, ","), last+3+float64(i%4)*400, n, q)
			}
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := trace.ReadFile(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	none := func(int) string { return "" }
	unjudged = write("unjudged.jsonl", `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":1000,"end_ms":15000},"conditions":{"slo":{"slo_ttft_ms":[800],"slo_e2e_ms":1200},"percentiles":[0.5,0.9,0.999]}}`, none)
	judged = write("judged.jsonl", `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":1000,"end_ms":15000},"conditions":{"dataset":{"name":"easy","prompts":9}}}`,
		func(i int) string { return []string{"pass", "pass", "fail", "", "pass"}[i%5] })
	costly = write("costly.jsonl", `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":1000,"end_ms":15000},"window_cost":1.75,"currency":"USD"}`,
		func(i int) string { return []string{"pass", "pass", "pass", "fail"}[i%4] })
	return
}

// Every view of one trace under the same flags shows the same numbers:
// card text and Markdown (in both languages), card JSON, the report (its
// embedded summary, its card, every chart's title, subtitle, marks and
// stages, its attempt verdicts) and the notebooks' tables, for the unit
// trace, an unjudged run with --slo-e2e (and with the SLOs its header
// records), a judged run and a run with a window cost. Nothing is compared
// with a number written here: each view against the summary of
// `coursekit card --format json`.
func TestEveryViewShowsTheSummarysNumbers(t *testing.T) {
	unjudged, judged, costly := viewTraces(t)
	cases := []struct {
		name  string
		path  string
		flags []string
	}{
		{"unit", unitTrace, nil},
		{"unit, two SLOs", unitTrace, []string{"--slo-ttft", "1s", "--slo-ttft", "500ms"}},
		{"unjudged, the SLOs its header records", unjudged, nil},
		{"unjudged, --slo-e2e", unjudged, []string{"--slo-e2e", "1500ms"}},
		{"judged, --slo-e2e", judged, []string{"--slo-ttft", "800ms", "--slo-e2e", "3s"}},
		{"unjudged, --slo-tpot", unjudged, []string{"--slo-ttft", "900ms", "--slo-tpot", "40ms"}},
		{"unjudged, --slo-itl-p95", unjudged, []string{"--slo-ttft", "900ms", "--slo-itl-p95", "80ms"}},
		{"judged, --slo-tpot and --slo-itl-p95", judged, []string{"--slo-ttft", "800ms", "--slo-itl-p95", "100ms", "--slo-tpot", "45ms"}},
		{"judged, TTFT alone", judged, []string{"--slo-ttft", "600ms", "--slo-ttft", "300ms"}},
		{"window cost, linear", costly, []string{"--slo-ttft", "800ms", "--slo-ttft", "300ms", "--percentile", "linear", "--percentiles", "50,99.9"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			js := cliOut(t, append([]string{"card", c.path, "--format", "json"}, c.flags...)...)
			var want map[string]any
			var s metrics.Summary
			if err := json.Unmarshal([]byte(js), &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(js), &s); err != nil {
				t.Fatal(err)
			}
			if len(s.Conditions) == 0 || s.Attempts == 0 {
				t.Fatalf("a summary with nothing to compare: %s", js)
			}
			allowed := append(numbersOf(want), derived(&s)...)
			for _, l := range []lang.Lang{lang.ZH, lang.EN} {
				for _, f := range []string{"text", "markdown"} {
					out := cliOut(t, append([]string{"card", c.path, "--format", f, "--lang", string(l)}, c.flags...)...)
					checkNumbers(t, fmt.Sprintf("card %s %s", f, l), out, c.path, allowed)
					checkQualified(t, fmt.Sprintf("card %s %s", f, l), out, l, &s)
				}
				checkReport(t, l, c.path, c.flags, js, &s, allowed)
			}
			// The card's note that the flags left out a recorded SLO is
			// a warning of the JSON card too (and so of the report's
			// embedded summary, checked equal to it above).
			en := cliOut(t, append([]string{"card", c.path, "--lang", "en"}, c.flags...)...)
			dropped := strings.Contains(en, "without the recorded")
			warned := slices.ContainsFunc(s.Warnings, func(w metrics.Warning) bool {
				return w.Kind == metrics.WarnSLODropped && strings.Contains(en, w.Text[1:])
			})
			if dropped != warned {
				t.Errorf("the text card says a recorded SLO was dropped: %v; the JSON card warns so: %v (%+v)", dropped, warned, s.Warnings)
			}
			checkNotebookTables(t, c.path, &s)
		})
	}
}

// derived are numbers a view computes from the summary by its own
// methods: each condition's stages (metrics.Summary.Stages), the rows of
// the trace (in the window and outside it), and the nearest rank of each
// level of the TTFT distribution.
func derived(s *metrics.Summary) []float64 {
	out := []float64{float64(s.Attempts + s.OutsideWindow)}
	for i := range s.Conditions {
		for _, st := range s.Stages(i) {
			out = append(out, float64(st.Kept), float64(st.Dropped), st.LimitMS)
		}
	}
	if n := s.TTFT.N; n > 0 {
		for _, p := range metrics.Levels {
			out = append(out, float64(metrics.NearestRankIndex(n, p)+1))
		}
	}
	return out
}

// cliOut runs the CLI and returns its stdout; it fails the test on a
// non-zero exit.
func cliOut(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("coursekit %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// numbersOf is every number in a decoded JSON value, the numbers written
// inside its strings included.
func numbersOf(v any) []float64 {
	var out []float64
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case float64:
			out = append(out, x)
		case string:
			for _, m := range numberRE.FindAllString(x, -1) {
				if f, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64); err == nil {
					out = append(out, f)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

var numberRE = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)

// structural are the parts of a view's text whose digits name a definition,
// not a number of the trace: percentile levels, the 95 % of an interval and
// its 2.5 % tails, "per 1000", TPOT's formula, the trace format's version.
var structural = regexp.MustCompile(`P\d+(?:\.\d+)?|95% ?(?:区间|置信区间|interval|confidence)|95 ?%|≤ 2\.5%|× ?1000|千次|1000 qualified|per 1000|t_N − t_1|t_1|\(N − 1\)|⌈0\.95×|llm-serving/v1|numpy|ECharts [\d.]+|ITL P95|一屏 \d+ 行|\d+ rows in view`)

// checkNumbers says which numbers of a view's text are none of the
// summary's (as shown: rounded, as a percentage, in seconds or ms).
func checkNumbers(t *testing.T, view, text, source string, allowed []float64) {
	t.Helper()
	text = strings.ReplaceAll(text, source, "")
	text = strings.ReplaceAll(text, filepath.Base(source), "")
	text = structural.ReplaceAllString(text, " ")
	for _, loc := range numberRE.FindAllStringIndex(text, -1) {
		m := text[loc[0]:loc[1]]
		x, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
		if err != nil {
			continue
		}
		if !fromSummary(m, x, allowed) {
			// The context of this occurrence, not of the first equal digits.
			t.Errorf("%s shows %s, which is no number of the summary: …%s«%s»%s…", view, m, text[max(0, loc[0]-60):loc[0]], m, text[loc[1]:min(len(text), loc[1]+40)])
		}
	}
}

// fromSummary reports whether x, written as m, is a number of the summary
// as a view may show it: rounded to the decimals m shows, as a percentage,
// or converted between ms and s.
func fromSummary(m string, x float64, allowed []float64) bool {
	dec := 0
	if i := strings.IndexByte(m, '.'); i >= 0 {
		dec = len(m) - i - 1
	}
	tol := 0.5*math.Pow(10, -float64(dec)) + 1e-9
	for _, v := range allowed {
		for _, f := range []float64{1, 100, 1.0 / 1000, 1000} {
			if math.Abs(v*f-x) <= tol*math.Max(1, math.Abs(x)*1e-12) || math.Abs(v*f-x) <= tol {
				return true
			}
		}
	}
	return false
}

// checkQualified finds each condition's "qualified Q / N" in a card (its
// text lines, or the cells of its Markdown or HTML table's qualified row)
// and compares it with the summary's.
func checkQualified(t *testing.T, view, text string, l lang.Lang, s *metrics.Summary) {
	t.Helper()
	name := map[lang.Lang]string{lang.ZH: "联合合格", lang.EN: "Qualified"}[l]
	var got []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		var cells []string
		switch {
		case strings.HasPrefix(line, name+"：") || strings.HasPrefix(line, name+": "):
			cells = []string{strings.TrimLeft(strings.TrimPrefix(line, name), "：: ")}
		case strings.HasPrefix(line, "| "+name+" |"):
			cells = strings.Split(strings.Trim(strings.TrimPrefix(line, "| "+name+" |"), " |"), " | ")
		case strings.HasPrefix(line, "<tr><td>"+name+"</td><td>"):
			cells = strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "<tr><td>"+name+"</td><td>"), "</td></tr>"), "</td><td>")
		}
		got = append(got, cells...)
	}
	if len(got) != len(s.Conditions) {
		t.Errorf("%s: %d qualified counts for %d conditions", view, len(got), len(s.Conditions))
		return
	}
	for i, cell := range got {
		if want := fmt.Sprintf("%d / %d = ", s.Conditions[i].Qualified, s.Attempts); !strings.HasPrefix(strings.TrimSpace(cell), want) {
			t.Errorf("%s: condition %d shows %q qualified, the summary %q", view, i, cell, want)
		}
	}
}

// checkReport compares a report with the card's summary: the summary it
// embeds is the card's JSON; its card section, every chart's title,
// subtitle and marks show only the summary's numbers; each funnel's
// stages are the summary's; the attempts chart labels as many rows
// qualified as the first condition counts; the sweep marks each
// condition's qualified count.
func checkReport(t *testing.T, l lang.Lang, path string, flags []string, cardJSON string, s *metrics.Summary, allowed []float64) {
	t.Helper()
	view := "report " + string(l)
	page := cliOut(t, append([]string{"report", path, "--lang", string(l)}, flags...)...)

	m := regexp.MustCompile(`(?s)<script type="application/json" id="coursekit-summary">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("%s embeds no summary", view)
	}
	var emb, want any
	if err := json.Unmarshal([]byte(m[1]), &emb); err != nil {
		t.Fatalf("%s: embedded summary: %v", view, err)
	}
	json.Unmarshal([]byte(cardJSON), &want)
	if !reflect.DeepEqual(emb, want) {
		t.Errorf("%s: the embedded summary is not `card --format json` under the same flags", view)
	}

	card := regexp.MustCompile(`(?s)<section class="card">(.*?)</section>`).FindStringSubmatch(page)
	if card == nil {
		t.Fatalf("%s has no card", view)
	}
	cardText := html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(card[1], " "))
	checkNumbers(t, view+" card", cardText, path, allowed)
	checkQualified(t, view+" card", card[1], l, s)

	opts := chartOptions(t, page)
	for i := range s.Conditions {
		f, ok := opts[fmt.Sprintf("funnel_%d", i)]
		if !ok {
			t.Errorf("%s: no funnel for condition %d", view, i)
			continue
		}
		var kept []float64
		for _, d := range seriesData(f, 0) {
			kept = append(kept, d["value"].(float64))
		}
		var want []float64
		for _, st := range s.Stages(i) {
			want = append(want, float64(st.Kept))
		}
		if !reflect.DeepEqual(kept, want) {
			t.Errorf("%s: funnel %d keeps %v, the summary's stages %v", view, i, kept, want)
		}
	}
	if len(opts["funnel_"+strconv.Itoa(len(s.Conditions))]) > 0 {
		t.Errorf("%s: a funnel for a condition the summary does not have", view)
	}
	// The attempts chart labels each complete success in the window with
	// its verdict under the first condition: as many rows per verdict as
	// the summary counts, whatever SLOs the condition has.
	labels := map[string]int64{}
	for _, d := range seriesData(opts["attempts"], 2) {
		if lab, ok := d["label"].(map[string]any); ok {
			labels[fmt.Sprint(lab["formatter"])]++
		}
	}
	c0 := s.Conditions[0]
	for _, v := range []struct {
		r    metrics.Reason
		want int64
	}{
		{metrics.Qualified, c0.Qualified},
		{metrics.QualityFail, c0.NotQualified.QualityFail},
		{metrics.QualityUnrated, c0.NotQualified.QualityUnrated},
		{metrics.TTFTOverSLO, c0.NotQualified.TTFTOverSLO},
		{metrics.E2EOverSLO, c0.NotQualified.E2EOverSLO},
		{metrics.ITLOverSLO, c0.NotQualified.ITLOverSLO},
		{metrics.TPOTOverSLO, c0.NotQualified.TPOTOverSLO},
	} {
		if n := labels[cardfmt.ReasonNameIn(l, v.r)]; n != v.want {
			t.Errorf("%s: the attempts chart labels %d attempts %s, the summary %d", view, n, v.r, v.want)
		}
	}
	markRE := map[lang.Lang]*regexp.Regexp{lang.ZH: regexp.MustCompile(`合格 (\d+)`), lang.EN: regexp.MustCompile(`qualified (\d+)`)}[l]
	marks := markNames(opts["slo_sweep"])
	if len(marks) != len(s.Conditions) {
		t.Errorf("%s: the SLO sweep has %d marks for %d conditions", view, len(marks), len(s.Conditions))
	}
	for i, mk := range marks {
		if i < len(s.Conditions) {
			if q := markRE.FindStringSubmatch(mk); q == nil || q[1] != strconv.FormatInt(s.Conditions[i].Qualified, 10) {
				t.Errorf("%s: sweep mark %q, the summary qualifies %d", view, mk, s.Conditions[i].Qualified)
			}
		}
	}
	for id, o := range opts {
		var words []string
		if title, ok := o["title"].(map[string]any); ok {
			words = append(words, fmt.Sprint(title["text"]), fmt.Sprint(title["subtext"]))
		}
		words = append(words, markNames(o)...)
		if strings.HasPrefix(id, "funnel_") {
			for k := 0; k < 2; k++ {
				for _, d := range seriesData(o, k) {
					if lab, ok := d["label"].(map[string]any); ok {
						words = append(words, fmt.Sprint(lab["formatter"]))
					}
				}
			}
		}
		if id == "timeline" || id == "server_gauges" { // one attempt's times; the server's readings
			continue
		}
		checkNumbers(t, view+" chart "+id, strings.Join(words, "\n"), path, allowed)
	}
	// The TTFT distribution's P95 mark and subtitle print the summary's P95
	// as the card does, not rounded further (walk 35f 4).
	if p := s.TTFT.P95; p != nil {
		cdf := opts["ttft_cdf"]
		want := numfmt.Num(*p) + " ms"
		title, _ := cdf["title"].(map[string]any)
		marked := slices.ContainsFunc(markNames(cdf), func(mk string) bool { return strings.HasPrefix(mk, "P95") && strings.HasSuffix(mk, " "+want) })
		if sub := fmt.Sprint(title["subtext"]); !marked || !strings.Contains(sub, "= "+want) {
			t.Errorf("%s: the TTFT distribution's P95 marks %q and subtitle %q, want the card's %s", view, markNames(cdf), sub, want)
		}
	}
}

// seriesData are the data items of series k of a chart.
func seriesData(o map[string]any, k int) []map[string]any {
	ss, _ := o["series"].([]any)
	if k >= len(ss) {
		return nil
	}
	data, _ := ss[k].(map[string]any)["data"].([]any)
	var out []map[string]any
	for _, d := range data {
		if m, ok := d.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// markNames are the names of every mark line of a chart.
func markNames(o map[string]any) []string {
	var out []string
	ss, _ := o["series"].([]any)
	for _, s := range ss {
		ml, _ := s.(map[string]any)["markLine"].(map[string]any)
		data, _ := ml["data"].([]any)
		for _, d := range data {
			switch x := d.(type) {
			case map[string]any:
				out = append(out, fmt.Sprint(x["name"]))
			case []any:
				if len(x) > 0 {
					out = append(out, fmt.Sprint(x[0].(map[string]any)["name"]))
				}
			}
		}
	}
	return out
}

// checkNotebookTables compares the notebooks' tables of the trace under
// each TTFT SLO of the summary with `coursekit card --slo-ttft` under that
// SLO alone (the notebooks judge the unit's way: a TTFT SLO alone): the
// verdict table's qualified rows, and the rates of nb.PerSecond.
func checkNotebookTables(t *testing.T, path string, s *metrics.Summary) {
	t.Helper()
	tr, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Conditions {
		slo := strconv.FormatFloat(c.SLOTTFTMS, 'f', -1, 64) + "ms"
		var card metrics.Summary
		if err := json.Unmarshal([]byte(cliOut(t, "card", path, "--format", "json", "--slo-ttft", slo)), &card); err != nil {
			t.Fatal(err)
		}
		want := card.Conditions[0]
		df := nb.VerdictTable(tr, c.SLOTTFTMS)
		col := df.Col("联合合格").Records()
		n := int64(0)
		for i, v := range col {
			if v == "合格" && tr.Header.Window.Contains(tr.Attempts[i].StartMS) {
				n++
			}
		}
		if n != want.Qualified {
			t.Errorf("nb.VerdictTable at %s: %d qualified rows in the window, the card %d", slo, n, want.Qualified)
		}
		r := nb.PerSecond(tr, c.SLOTTFTMS)
		// The JSON card writes its floats without arithmetic noise (numfmt.Clean).
		if r.Qualified != float64(want.Qualified) || numfmt.Clean(r.Good) != want.GoodputPerS || numfmt.Clean(r.WindowS) != card.WindowS || r.Tokens != card.Throughput.OutputTokens.Num {
			t.Errorf("nb.PerSecond at %s: %+v; the card: qualified %d, goodput %g, window %g s, tokens %g", slo, r, want.Qualified, want.GoodputPerS, card.WindowS, card.Throughput.OutputTokens.Num)
		}
	}
}
