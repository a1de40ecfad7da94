package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmperf-course/course/coursekit/web"
)

// hasControl reports whether s would move the cursor, erase or retitle a
// terminal: C0 other than newline and tab, DEL, C1, or bytes that are not
// UTF-8 (a raw C1 byte).
func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			return true
		}
	}
	return !utf8.ValidString(s)
}

// A trace's clock, currency, attempt ids and errors, a file name, and zip
// entry names reach the terminal with their control codes escaped (shown
// as \x1b and the like), never raw.
func TestTerminalControlCodesEscaped(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	os.WriteFile(tr, []byte(`{"trace":"llm-serving/v1","clock":"client\u001b[2K\r","window":{"start_ms":0,"end_ms":1000},"window_cost":2,"currency":"CNY\u001b]0;pwned\u0007"}
{"attempt":"a\u001b[1A","start_ms":1,"outcome":"ok","http_status":200,"events":[{"t_ms":3}],"end_ms":5,"quality":"pass"}
{"attempt":"b\u009b","start_ms":1,"outcome":"http_error","http_status":500,"events":[],"end_ms":5,"error":"boom\u001b[31m"}
`), 0o644)
	for _, args := range [][]string{{"card", tr}, {"card", "--format", "md", tr}, {"card", "--lang", "en", tr}} {
		code, o, e := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, e)
		}
		if hasControl(o) || hasControl(e) {
			t.Errorf("%v prints control codes raw:\n%q\n%q", args, o, e)
		}
		if !strings.Contains(o, `client\x1b[2K\r`) {
			t.Errorf("%v: the clock is not shown escaped:\n%s", args, o)
		}
	}

	// A file name on stderr, in an error.
	bad := filepath.Join(dir, "x\x1b[2K\r.jsonl")
	os.WriteFile(bad, []byte("{not json\n"), 0o644)
	code, _, e := runCLI(t, "card", bad)
	if code == 0 || hasControl(e) || !strings.Contains(e, `x\x1b[2K\r.jsonl`) {
		t.Errorf("card on a bad file: exit %d, stderr %q", code, e)
	}

	// Zip entry names in grade's progress lines and warnings.
	c := newClassroom(t, "id,name\nalice,A\n", nil)
	z := filepath.Join(dir, "lms.zip")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"alice\x1b[2K\r/06-deliverable.ipynb", "notes\x1b]0;pwned\x07\xc2\x9b.txt"} {
		w, _ := zw.Create(name)
		w.Write([]byte("{"))
	}
	zw.Close()
	os.WriteFile(z, buf.Bytes(), 0o644)
	code, o, e := runCLI(t, "grade", "--key-file", c.key, "--roster", c.roster, "--out", filepath.Join(dir, "graded"), z)
	if code == 0 {
		t.Errorf("grade: exit 0 with nothing gradable")
	}
	if hasControl(o) || hasControl(e) {
		t.Errorf("grade prints control codes raw:\n%q\n%q", o, e)
	}
	if !strings.Contains(e, `alice\x1b[2K\r/06-deliverable.ipynb`) || !strings.Contains(e, `notes\x1b]0;pwned\x07\u009b.txt`) {
		t.Errorf("grade's stderr does not show the entry names escaped:\n%s", e)
	}
}

// A trace whose file name (and clock) carry an ESC, C1 controls and a bidi
// override: report's page shows them escaped (\x1b, \u202e) in its
// <title>, heading, text and card, never raw, and invalid UTF-8 in the
// name as U+FFFD.
func TestReportFileNameControlCodesEscaped(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "ev\x1b[2Jil\u009b\u202egnp\xff.jsonl")
	if err := os.WriteFile(tr, []byte(`{"trace":"llm-serving/v1","clock":"cl\u009b31m\u202eock","window":{"start_ms":0,"end_ms":1000},"window_cost":1,"currency":"C\u0085NY"}
{"attempt":"a1","start_ms":0,"outcome":"ok","events":[{"t_ms":10}],"end_ms":20,"quality":"pass"}
`), 0o644); err != nil {
		t.Skip(err) // a file system that refuses such names
	}
	page := reportPage(t, tr)
	// The text of the page; the inlined ECharts has CRLF line ends of its own.
	text := regexp.MustCompile(`(?s)<script.*?</script>`).ReplaceAllString(page, "")
	if hasControl(text) || strings.ContainsAny(text, "\u202e") {
		for _, line := range strings.Split(text, "\n") {
			if hasControl(line) || strings.ContainsAny(line, "\u202e") {
				t.Errorf("control codes raw in the page: %q", line)
			}
		}
	}
	title := regexp.MustCompile(`<title>([^<]*)</title>`).FindStringSubmatch(page)
	if title == nil || !strings.Contains(title[1], `ev\x1b[2Jil\u009b\u202egnp`+"\uFFFD"+`.jsonl`) {
		t.Errorf("the <title> does not show the name escaped: %q", title)
	}
}

// Trace fields that reach report's charts (an attempt id in the attempts
// chart and the timeline's title) with bidi marks (LRM, RLM, ALM) and the
// line and paragraph separators: the page's chart options show them
// escaped (\u200f) as the other bidi controls, never as the characters.
func TestReportChartTextBidiMarksEscaped(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "marks.jsonl")
	const id = "a\u200e1\u200f2\u061c3\u20284\u20295"
	os.WriteFile(tr, []byte(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000}}
{"attempt":"`+id+`","start_ms":0,"outcome":"ok","events":[{"t_ms":10},{"t_ms":12}],"end_ms":20,"quality":"pass"}
`), 0o644)
	page := strings.Replace(reportPage(t, tr), web.InlineEChartsScript(), "", 1)
	if strings.ContainsAny(page, "\u200e\u200f\u061c\u2028\u2029") {
		t.Errorf("bidi marks or separators reach the page as characters")
	}
	// In the charts' options, a JSON escape \u2028 is the character too.
	jsonSep := regexp.MustCompile(`(^|[^\\])(\\\\)*\\u202[89]`)
	for _, sc := range regexp.MustCompile(`(?s)<script[^>]*>(.*?)</script>`).FindAllStringSubmatch(page, -1) {
		if m := jsonSep.FindString(sc[1]); m != "" {
			t.Errorf("a line or paragraph separator reaches a chart's options: %q", m)
		}
	}
	if !strings.Contains(page, `a\\u200e1\\u200f2\\u061c3\\u20284\\u20295`) {
		t.Errorf("the attempt id is not shown escaped in the chart options")
	}
}
