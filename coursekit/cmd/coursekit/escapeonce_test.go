package main

import (
	"html"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A trace's server timings print "cache_n > 0" as written in every view:
// the text and Markdown cards, and the report, whose page escapes the card
// once ("&gt;" in its source, never "&amp;gt;"); a hostile attempt id from
// the trace ("R3<b>") stays text in each: escaped once in Markdown and in
// the report, never a tag, never shown escaped twice.
func TestServerLinesEscapedOnce(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "timings.jsonl")
	itoa := strconv.Itoa
	line := func(id string, start int, timings string) string {
		return `{"attempt":"` + id + `","start_ms":` + itoa(start) + `,"outcome":"ok","events":[{"t_ms":` + itoa(start+100) + `},{"t_ms":` + itoa(start+150) + `}],"end_ms":` + itoa(start+200) +
			`,"meta":{"server_timings":` + timings + `}}`
	}
	body := strings.Join([]string{
		`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":10000}}`,
		line("R1", 0, `{"prompt_n":19,"prompt_ms":90,"predicted_n":10,"predicted_ms":120,"cache_n":0}`),
		line("R2", 1000, `{"prompt_n":1,"prompt_ms":15,"predicted_n":10,"predicted_ms":110,"cache_n":18}`),
		line("R3<b>", 2000, `{"prompt_ms":"<i>"}`),
	}, "\n") + "\n"
	if err := os.WriteFile(tr, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := func(args ...string) string {
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return stdout
	}
	text := cli("card", tr)
	md := cli("card", "--format", "markdown", tr)
	page := filepath.Join(dir, "r.html")
	cli("report", tr, "-o", page)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	report := string(b)
	shown := html.UnescapeString(report) // what the browser shows
	for name, v := range map[string]string{"text": text, "markdown": md, "report as shown": shown} {
		if !strings.Contains(v, "（cache_n > 0）") {
			t.Errorf("%s lacks \"cache_n > 0\":\n%s", name, v)
		}
		if strings.Contains(v, "&gt;") || strings.Contains(v, "&amp;") {
			t.Errorf("%s shows an escape as text:\n%s", name, v)
		}
	}
	if !strings.Contains(text, "attempt R3<b>:") || !strings.Contains(md, "attempt R3&lt;b>:") || !strings.Contains(shown, "attempt R3<b>:") {
		t.Errorf("the hostile id is not text in every view:\ntext: %s\nmarkdown: %s", text, md)
	}
	if strings.Contains(report, "R3<b>") || strings.Contains(report, "&amp;lt;") || strings.Contains(report, "&amp;gt;") {
		t.Error("the report page holds the id as a tag, or escapes it twice")
	}
}
