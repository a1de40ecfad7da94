package cardfmt_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// TestCrashedRunNoteSaysFromWhen: a server that crashed mid-run. bench
// printed "nothing answered from 7969.000 ms"; the card's note, from the
// trace alone, says the same time (the last answer's end), in both languages, and
// the JSON carries it; a server that was never there is "from the start".
func TestCrashedRunNoteSaysFromWhen(t *testing.T) {
	h := trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 20000}}
	var as []trace.Attempt
	for i := range 5 {
		a := ok(fmt.Sprint("ok", i), float64(i)*1500, trace.Unrated)
		as = append(as, a)
	}
	as[4].EndMS = 7969 // the last answer
	for i := range 30 {
		as = append(as, trace.Attempt{ID: fmt.Sprint("c", i), StartMS: 8000 + float64(i)*300, Outcome: trace.ConnectError, HasEnd: true, EndMS: 8000 + float64(i)*300 + 1, Error: "connection refused"})
	}
	tr := &trace.Trace{Header: h, Attempts: as}
	for _, c := range []struct {
		l    lang.Lang
		want string
	}{{lang.ZH, "从第 7.969 s 起到运行结束没有服务应答（此后 30 次尝试都是连接失败）"}, {lang.EN, "nothing answered from 7.969 s to the end of the run (the 30 attempts since were all connect errors)"}} {
		for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
			if c2 := cardIn(t, tr, f, c.l); !strings.Contains(c2, c.want) {
				t.Errorf("%s %s card lacks %q:\n%.2000s", c.l, f, c.want, c2)
			}
		}
	}
	if j := cardIn(t, tr, cardfmt.JSON, lang.ZH); !strings.Contains(j, `"unanswered": {
    "from_ms": 7969,
    "connect_errors": 30
  }`) {
		t.Errorf("card JSON lacks unanswered:\n%s", j)
	}
	tr.Attempts = as[5:]
	if c := cardIn(t, tr, cardfmt.Text, lang.ZH); !strings.Contains(c, "从运行开始到结束没有服务应答") {
		t.Errorf("a server never there:\n%.1500s", c)
	}
}

// TestCrashDatedFromLastResponseByte: a trace shaped like a killed
// llama-server's (walk 35e): the last answer ended at 4708.131 ms; then a
// no_response ended at 5019.362 ms and a stream_error (HTTP 200, no event)
// at 5019.066 ms, both connections closed by the dying server with no
// response byte; 39 connect errors from 5019.12 ms on. The death is dated
// from the last response byte, so every connect error, the two sent
// before the no_response ended too, is "since then".
func TestCrashDatedFromLastResponseByte(t *testing.T) {
	h := trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 12000}}
	var as []trace.Attempt
	for i := range 5 {
		as = append(as, ok(fmt.Sprint("q", i), float64(i)*700, trace.Unrated))
	}
	as[4].EndMS = 4708.131
	as = append(as,
		trace.Attempt{ID: "q5", StartMS: 2519.971, Outcome: trace.StreamError, HTTPStatus: 200, HasEnd: true, EndMS: 5019.066, Error: "unexpected EOF"},
		trace.Attempt{ID: "q6", StartMS: 3271.345, Outcome: trace.NoResponse, HasEnd: true, EndMS: 5019.362, Error: "EOF"},
		trace.Attempt{ID: "q7", StartMS: 4708.153, Outcome: trace.NoResponse, HasEnd: true, EndMS: 5018.523, Error: "EOF"})
	for i := range 39 {
		st := 5019.12 + float64(i)*150
		as = append(as, trace.Attempt{ID: fmt.Sprint("c", i), StartMS: st, Outcome: trace.ConnectError, HasEnd: true, EndMS: st + 0.2, Error: "connection refused"})
	}
	tr := &trace.Trace{Header: h, Attempts: as}
	if j := cardIn(t, tr, cardfmt.JSON, lang.EN); !strings.Contains(j, `"unanswered": {
    "from_ms": 4708.131,
    "connect_errors": 39
  }`) {
		t.Errorf("card JSON does not date the death from the last response byte:\n%s", j)
	}
	if c := cardIn(t, tr, cardfmt.Text, lang.EN); !strings.Contains(c, "nothing answered from 4.708 s to the end of the run (the 39 attempts since were all connect errors)") {
		t.Errorf("the note:\n%.2000s", c)
	}
}

// An unrated trace: the table's "Qualified, 95% interval" cell says why it
// has no interval instead of being empty (walk 35e), in both languages.
func TestUnratedTableIntervalCellSaysWhy(t *testing.T) {
	var as []trace.Attempt
	for i := range 5 {
		as = append(as, ok(fmt.Sprint("a", i), float64(i)*300, trace.Unrated))
	}
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{EndMS: 2000}}, Attempts: as}
	for _, c := range []struct {
		l    lang.Lang
		want string
	}{{lang.ZH, "| 联合合格 95% 区间 | 无（未评分：合格数未知，没有区间） |"}, {lang.EN, "| Qualified, 95% interval | none (unrated: the qualified count is unknown, so no interval) |"}} {
		if md := cardIn(t, tr, cardfmt.Markdown, c.l); !strings.Contains(md, c.want) {
			t.Errorf("%s: the table lacks %q:\n%s", c.l, c.want, md)
		}
	}
}

// A short run against a dead URL (walk 35f 5: `--no-preflight`, 9 connect
// errors in 3 s) gets the note too: nothing ever answered, so the 10
// connect errors the note asks of a run that had answers do not apply. A
// short run that had answers and a few connect errors stays without it.
func TestShortRunNothingAnsweredIsNoted(t *testing.T) {
	h := trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 3000}}
	var dead []trace.Attempt
	for i := range 9 {
		st := float64(i) * 330
		dead = append(dead, trace.Attempt{ID: fmt.Sprint("c", i), StartMS: st, Outcome: trace.ConnectError, HasEnd: true, EndMS: st + 0.3, Error: "connection refused"})
	}
	for _, c := range []struct {
		l    lang.Lang
		want string
	}{{lang.ZH, "从运行开始到结束没有服务应答（9 次尝试都是连接失败）"}, {lang.EN, "nothing answered from the start to the end of the run (9 attempts were all connect errors)"}} {
		for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
			if got := cardIn(t, &trace.Trace{Header: h, Attempts: dead}, f, c.l); !strings.Contains(got, c.want) {
				t.Errorf("%s %s card of 9 connect errors lacks %q:\n%.2000s", c.l, f, c.want, got)
			}
		}
	}
	blip := append([]trace.Attempt{ok("a", 0, trace.Unrated), ok("b", 100, trace.Unrated)}, dead[6:]...)
	if got := cardIn(t, &trace.Trace{Header: h, Attempts: blip}, cardfmt.Text, lang.EN); strings.Contains(got, "connect errors (connect_error") || strings.Contains(got, "nothing answered") {
		t.Errorf("a short run with answers and 3 connect errors is noted as a server not there:\n%.2000s", got)
	}
}
