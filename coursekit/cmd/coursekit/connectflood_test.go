package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

// A closed loop against an address where nothing listens fails thousands
// of times a second: every attempt stays in the trace and the card, and
// the card's first notes say what the count is (a server not there, and a
// client resending at once), in both languages.
func TestConnectErrorFloodNote(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	out := filepath.Join(t.TempDir(), "dead.jsonl")
	code, _, errs := runCLI(t, "bench", "--url", dead, "--no-preflight", "--model", "m", "--concurrency", "2", "--num-requests", "12", "--duration", "2m", "--progress", "0", "--out", out)
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, errs)
	}
	// The end of the run says from when nothing answered and why the exit is 0.
	if !strings.Contains(errs, "nothing answered from the start to the end of the run") || !strings.Contains(errs, "exit status is 0, not a tool error") || !strings.Contains(errs, "backed off 10ms, doubling to 1s") {
		t.Errorf("bench's last lines do not say from when nothing answered:\n%s", errs)
	}
	for _, c := range []struct{ lang, want string }{{"zh", "次是连接失败（connect_error，"}, {"en", "attempts are connect errors (connect_error, "}} {
		code, card, errs := runCLI(t, "card", "--lang", c.lang, out)
		if code != 0 {
			t.Fatalf("card exit %d: %s", code, errs)
		}
		if i, j := strings.Index(card, c.want), strings.Index(card, "\n\n"); i < 0 || i > j {
			t.Errorf("%s card lacks the note %q before its numbers:\n%.1500s", c.lang, c.want, card)
		}
	}
}

// A server killed mid-run: the outcome line counts every connect error of
// the run, the line on the unanswered tail those sent after the last
// answer ended; when some were sent before it (while the last answer was
// still streaming), the tail line says how many of the run's they are and
// what the others were, so the two counts do not read as a contradiction.
func TestUnansweredLineSaysWhatItCounts(t *testing.T) {
	for _, c := range []struct {
		all, tail int
		want      []string
	}{
		{36, 34, []string{"nothing answered from 6017.000 ms (the last response byte)", "34 connect_error attempts sent since then (of the run's 36: the other 2 were sent before 6017.000 ms, while an answer was still under way)"}},
		{34, 34, []string{"34 connect_error attempts sent since then, nothing took"}},
	} {
		res := &loadgen.Result{Outcomes: map[string]int64{"ok": 50, "connect_error": int64(c.all)},
			Unanswered: loadgen.Unanswered{FromMS: 6017, ConnectErrors: int64(c.tail)}}
		res.Window.EndMS = 10000
		var b strings.Builder
		if !unansweredLine(&b, res, loadgen.Config{}) {
			t.Fatal("no line")
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%d of %d: the line lacks %q:\n%s", c.tail, c.all, w, b.String())
			}
		}
	}
}
