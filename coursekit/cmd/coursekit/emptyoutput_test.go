package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A server that answers every request correctly but with no text (as
// llama.cpp does when SmolLM2 samples its end token first): bench records
// empty_output, says so with the usual cause on --api completions, and the
// card names them "空输出", failures in the denominator, not "流中途断开".
func TestBenchEmptyAnswersAreEmptyOutput(t *testing.T) {
	empty, err := os.ReadFile(filepath.Join("..", "..", "loadgen", "testdata", "llamacpp-completions-empty.sse"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model"}]}`))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(empty)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "empty.jsonl")
	code, _, errs := runCLI(t, "bench", "--url", srv.URL, "--concurrency", "1", "--num-requests", "3", "--duration", "10s", "--progress", "0", "--out", out)
	if code != 0 || !strings.Contains(errs, "(empty_output 3)") || !strings.Contains(errs, "3 of 3 attempts were empty_output") || !strings.Contains(errs, "--api chat applies the template") {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	code, text, _ := runCLI(t, "card", out)
	if code != 0 || !strings.Contains(text, "失败：3（空输出 3）") || strings.Contains(text, "流中途断开") {
		t.Errorf("card:\n%s", text)
	}
	code, text, _ = runCLI(t, "card", out, "--lang", "en")
	if code != 0 || !strings.Contains(text, "empty output 3") {
		t.Errorf("English card:\n%s", text)
	}
}

// A trace nobody rated, judged by the unit's rule (quality is a condition):
// card, its JSON, report (its table and the summary it embeds) and compare
// all say goodput is unknown, never 0.
func TestUnratedGoodputUnknownInEveryView(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":10000}}` + "\n")
	for i := range 20 {
		s := float64(i * 400)
		fmt.Fprintf(&b, `{"attempt":"a%d","start_ms":%g,"outcome":"ok","events":[{"t_ms":%g},{"t_ms":%g}],"end_ms":%g}`+"\n", i, s, s+100, s+150, s+200)
	}
	tr := filepath.Join(dir, "unrated.jsonl")
	if err := os.WriteFile(tr, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, text, _ := runCLI(t, "card", tr); !strings.Contains(text, "goodput：无法计算（未评分）") || strings.Contains(text, "0 次/s（联合合格") {
		t.Errorf("card:\n%s", text)
	}
	if _, js, _ := runCLI(t, "card", tr, "--format", "json"); !strings.Contains(js, `"goodput_per_s": null`) || !strings.Contains(js, `"goodput_unknown": "quality_unrated"`) {
		t.Errorf("JSON card:\n%s", js)
	}
	page := filepath.Join(dir, "r.html")
	if code, _, errs := runCLI(t, "report", tr, "-o", page); code != 0 {
		t.Fatalf("report: %s", errs)
	}
	html, _ := os.ReadFile(page)
	embedded := regexp.MustCompile(`"goodput_unknown":\s*"quality_unrated"`).MatchString(string(html))
	if !strings.Contains(string(html), "无法计算（未评分）") || !embedded {
		t.Errorf("report lacks the unknown goodput")
	}
	tr2 := filepath.Join(dir, "unrated2.jsonl")
	os.WriteFile(tr2, []byte(b.String()+`{"attempt":"x","start_ms":9000,"outcome":"ok","events":[{"t_ms":9100}],"end_ms":9200}`+"\n"), 0o644)
	if _, out, errs := runCLI(t, "compare", tr, tr2, "--format", "json"); !strings.Contains(out, `"name": "goodput@1000ms"`) || !strings.Contains(out, `"verdict": "n/a"`) {
		t.Errorf("compare:\n%s\n%s", out, errs)
	}
}
