package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A card note is bold in the Markdown card (**注意：…**) and must be bold in
// the HTML report too, never the literal marks.
func TestReportRendersBoldNotes(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "unrated.jsonl")
	// complete successes with no quality rating: the card adds a 注意 note
	tr := `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000}}
{"attempt":"a","start_ms":0,"outcome":"ok","http_status":200,"events":[{"t_ms":100},{"t_ms":120}],"end_ms":130}
{"attempt":"b","start_ms":10,"outcome":"ok","http_status":200,"events":[{"t_ms":200},{"t_ms":230}],"end_ms":240}
`
	if err := os.WriteFile(in, []byte(tr), 0o644); err != nil {
		t.Fatal(err)
	}
	code, md, stderr := runCLI(t, "card", in, "--format", "markdown")
	if code != 0 {
		t.Fatalf("card: exit %d: %s", code, stderr)
	}
	if !strings.Contains(md, "**注意：") {
		t.Fatalf("the markdown card has no bold note to test:\n%s", md)
	}
	// CommonMark: a ** run opens when not followed by a space and closes
	// when not preceded by one; every line's marks pair up.
	for _, line := range strings.Split(md, "\n") {
		if n := strings.Count(line, "**"); n%2 != 0 {
			t.Errorf("unpaired ** in %q", line)
		}
		if regexp.MustCompile(`\*\*\s[^*]*\*\*|\*\*[^*]*\s\*\*`).MatchString(line) {
			t.Errorf("a bold span starts or ends with a space (not bold in CommonMark): %q", line)
		}
	}
	out := filepath.Join(dir, "report.html")
	if code, _, stderr := runCLI(t, "report", in, "-o", out); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if !strings.Contains(page, "<strong>注意：") {
		t.Error("the report does not render the note in bold")
	}
	body := page[strings.Index(page, "<body>"):]
	body = regexp.MustCompile(`(?s)<script.*?</script>`).ReplaceAllString(body, "")
	if strings.Contains(body, "<p>- ") || strings.Contains(body, "<p>  - ") {
		t.Error("the report shows a Markdown list mark as text")
	}
	if i := strings.Index(body, "**"); i >= 0 {
		t.Errorf("the report shows literal **: …%s…", body[max(0, i-80):min(len(body), i+80)])
	}
}
