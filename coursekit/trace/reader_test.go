package trace_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
	"github.com/llmperf-course/course/coursekit/tracegen"
)

const header = `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":10000}}`

func read(t *testing.T, lines ...string) (*trace.Trace, error) {
	t.Helper()
	return trace.Read(strings.NewReader(strings.Join(lines, "\n")+"\n"), "t.jsonl")
}

func TestReadUnitTrace(t *testing.T) {
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(tr.Attempts); got != 10 {
		t.Fatalf("attempts = %d, want 10", got)
	}
	r7 := tr.Attempts[6]
	if ttft, ok := r7.TTFT(); !ok || ttft != 1200 {
		t.Errorf("R7 TTFT = %v, %v; want 1200 ms", ttft, ok)
	}
	r9 := tr.Attempts[8]
	if _, ok := r9.TTFT(); ok || r9.Outcome != trace.Timeout {
		t.Errorf("R9 must time out with no TTFT, got outcome %v", r9.Outcome)
	}
	if tr.Attempts[9].Outcome != trace.ConnectError {
		t.Errorf("R10 outcome = %v, want connect_error", tr.Attempts[9].Outcome)
	}
	if *tr.Header.WindowCost != 0.02 || tr.Header.Currency != "CNY" {
		t.Errorf("window cost = %v %s", *tr.Header.WindowCost, tr.Header.Currency)
	}
}

// Figure 01.2: one request, events at 700, 800 and 950 ms, end at 1000 ms.
func TestTimelineOfFigure012(t *testing.T) {
	tr, err := trace.ReadFile("../../data/unit01/timeline.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	a := tr.Attempts[0]
	ttft, _ := a.TTFT()
	e2e, _ := a.E2E()
	itl := a.EventIntervals(nil)
	if ttft != 700 || e2e != 1000 || len(itl) != 2 || itl[0] != 100 || itl[1] != 150 {
		t.Fatalf("TTFT %v, E2E %v, ITL %v; want 700, 1000, [100 150]", ttft, e2e, itl)
	}
	// E2E is not the sum of the intervals: it also holds TTFT and the wait for the end.
	if ttft+itl[0]+itl[1] == e2e {
		t.Fatal("the figure's point is that E2E ≠ TTFT + ΣITL here")
	}
}

func TestMissingTTFTIsNotZero(t *testing.T) {
	tr, err := read(t, header, `{"attempt":"R9","start_ms":100,"outcome":"timeout","end_ms":2600}`)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := tr.Attempts[0].TTFT(); ok {
		t.Fatalf("TTFT of an attempt with no event = %v, want missing", v)
	}
}

func TestDefaults(t *testing.T) {
	tr, err := read(t, header, `{"attempt":"A1","start_ms":0,"outcome":"ok","events":[{"t_ms":5},{"t_ms":9,"tokens":3}],"end_ms":10}`)
	if err != nil {
		t.Fatal(err)
	}
	a := tr.Attempts[0]
	if a.Request != "A1" {
		t.Errorf("request defaults to the attempt id, got %q", a.Request)
	}
	if a.Events[0].Tokens != 1 || a.Events[1].Tokens != 3 {
		t.Errorf("tokens default to 1: %+v", a.Events)
	}
	if a.Quality != trace.Unrated {
		t.Errorf("no quality means not rated, got %v", a.Quality)
	}
	// TPOT = (t_N − t_1) / (N − 1) = (9 − 5) / (4 − 1): the last token
	// arrives with the last event; the wait for the end (10) is not in it.
	if tp, ok := a.TPOT(); !ok || tp != 4.0/3 {
		t.Errorf("TPOT = %v, %v", tp, ok)
	}
}

func TestHeaderOnlyTrace(t *testing.T) {
	tr, err := read(t, header)
	if err != nil || len(tr.Attempts) != 0 {
		t.Fatalf("header-only trace: %v, %d attempts", err, len(tr.Attempts))
	}
}

// okLine is a valid attempt line.
const okLine = `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":200}],"end_ms":300}`

// badInputCases are the reader's bad-input messages: each bad input gets
// its own message, located at file:line. TestBadInput checks the part that
// matters in want; TestBadInputMessagesExact keeps every message byte for
// byte (testdata/bad_input.golden).
var badInputCases = []struct {
	name  string
	lines []string
	want  string
}{
	{"not JSON", []string{header, `{"attempt":"R1",`}, `t.jsonl:2: attempt "R1": not valid JSON (truncated: the line ends inside a value): unexpected end of line after column 16`},
	{"bad token", []string{header, `{"attempt":"R1","start_ms":01}`}, `t.jsonl:2: attempt "R1": not valid JSON: unexpected '1' at column 29 (leading zero in a number)`},
	{"not an object", []string{header, `[1,2]`}, "t.jsonl:2: not a JSON object"},
	{"no header", []string{okLine}, "t.jsonl:1: missing header"},
	{"unknown version", []string{`{"trace":"llm-serving/v9","clock":"client","window":{"start_ms":0,"end_ms":1}}`}, `t.jsonl:1: trace: unknown trace version "llm-serving/v9"`},
	{"header without window", []string{`{"trace":"llm-serving/v1","clock":"client"}`}, "t.jsonl:1: window: missing required header field"},
	{"empty window", []string{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":5,"end_ms":5}}`}, "t.jsonl:1: window: end_ms 5 must be after start_ms 5"},
	{"missing attempt", []string{header, `{"start_ms":0,"outcome":"ok","events":[{"t_ms":1}],"end_ms":2}`}, "t.jsonl:2: attempt: missing required field"},
	{"missing start", []string{header, `{"attempt":"R1","outcome":"ok","events":[{"t_ms":1}],"end_ms":2}`}, `t.jsonl:2: attempt "R1": start_ms: missing required field`},
	{"missing outcome", []string{header, `{"attempt":"R1","start_ms":0,"events":[{"t_ms":1}],"end_ms":2}`}, `outcome: missing required field`},
	{"missing end", []string{header, `{"attempt":"R1","start_ms":0,"outcome":"timeout"}`}, `end_ms: missing: a timeout attempt must record its final event`},
	{"unknown outcome", []string{header, `{"attempt":"R1","start_ms":0,"outcome":"success","end_ms":2}`}, `outcome: unknown outcome "success"`},
	{"duplicate id", []string{header, okLine, okLine}, `t.jsonl:3: attempt "R1": attempt: duplicate attempt id (first used on line 2)`},
	{"events out of order", []string{header, `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":200},{"t_ms":150}],"end_ms":300}`}, "events[1].t_ms: 150 is before events[0].t_ms 200"},
	{"event before start", []string{header, `{"attempt":"R1","start_ms":100,"outcome":"ok","events":[{"t_ms":50}],"end_ms":300}`}, "events[0].t_ms: 50 is before start_ms 100"},
	{"end before last event", []string{header, `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":200}],"end_ms":150}`}, "end_ms: 150 is before the last event at 200"},
	{"negative", []string{header, `{"attempt":"R1","start_ms":-5,"outcome":"timeout","end_ms":2}`}, "start_ms: is negative (-5)"},
	{"NaN", []string{header, `{"attempt":"R1","start_ms":NaN,"outcome":"timeout","end_ms":2}`}, "start_ms: is NaN"},
	{"Inf", []string{header, `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":1e999}`}, "end_ms: is infinite"},
	{"tokens < 1", []string{header, `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":1,"tokens":0}],"end_ms":2}`}, "events[0].tokens: is 0; an event carries at least 1 token"},
	{"ok without events", []string{header, `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[],"end_ms":2}`}, "events: an ok attempt has no events"},
	{"in flight with end", []string{header, `{"attempt":"R1","start_ms":0,"outcome":"in_flight","end_ms":2}`}, "end_ms: an in_flight attempt has not ended"},
	{"unknown field", []string{header, `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"qualiy":"pass"}`}, `qualiy: unknown field`},
	{"bad quality", []string{header, `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"quality":"good"}`}, `quality: "good" is not a rating`},
	{"field twice", []string{header, `{"attempt":"R1","start_ms":0,"start_ms":1,"outcome":"timeout","end_ms":2}`}, `start_ms: given twice`},
	{"string number", []string{header, `{"attempt":"R1","start_ms":"0","outcome":"timeout","end_ms":2}`}, `start_ms: want a number`},
	{"fractional tokens", []string{header, `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":1,"tokens":1.5}],"end_ms":2}`}, `events[0].tokens: want a whole number, got 1.5`},
	{"second header", []string{header, header}, "t.jsonl:2: a second header line"},
	{"blank line", []string{header, okLine, "", `{"attempt":"R2","start_ms":0,"outcome":"timeout","end_ms":2}`}, "t.jsonl:3: blank line"},
	{"header key twice", []string{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"window":{"start_ms":0,"end_ms":2}}`}, "t.jsonl:1: window: given twice in the header"},
	{"header nested key twice", []string{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1,"end_ms":2}}`}, "t.jsonl:1: window.end_ms: given twice in the header"},
	{"line over 1 MiB", []string{header, `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"error":"` + strings.Repeat("x", trace.MaxLineBytes) + `"}`}, "t.jsonl:2: line is longer than 1048576 bytes"},
}

// Each bad input gets its own message, located at file:line.
func TestBadInput(t *testing.T) {
	if len(badInputCases) != 32 {
		t.Errorf("%d bad-input cases; the reader documents 32", len(badInputCases))
	}
	for _, c := range badInputCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := read(t, c.lines...)
			if err == nil {
				t.Fatalf("want error containing %q, got none", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q\n does not contain %q", err, c.want)
			}
			if !trace.IsBadInput(err) {
				t.Fatalf("error %v is not a *trace.Error", err)
			}
		})
	}
}

func TestEmptyFile(t *testing.T) {
	_, err := trace.Read(strings.NewReader(""), "empty.jsonl")
	if err == nil || !strings.Contains(err.Error(), "empty.jsonl: empty file") {
		t.Fatalf("got %v", err)
	}
}

// A bad line stops the scan: the attempts before it are delivered, the
// error names the line, and nothing after it is counted as read.
func TestScanDeliversUpToTheBadLine(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(header + "\n")
	for i := range 50000 {
		b.WriteString(`{"attempt":"A` + strconv.Itoa(i) + `","start_ms":1,"outcome":"timeout","end_ms":2}` + "\n")
	}
	b.WriteString(`{"attempt":"bad","start_ms":1,"outcome":"nope","end_ms":2}` + "\n")
	b.WriteString(`{"attempt":"after","start_ms":1,"outcome":"timeout","end_ms":2}` + "\n")
	n := 0
	err := trace.Scan(&b, "big.jsonl", func(*trace.Header) error { return nil }, func(a *trace.Attempt) error {
		if a.Line != n+2 {
			t.Fatalf("attempt %s on line %d, want %d", a.ID, a.Line, n+2)
		}
		n++
		return nil
	})
	var te *trace.Error
	if !errors.As(err, &te) || te.Line != 50002 {
		t.Fatalf("err = %v, want a *trace.Error on line 50002", err)
	}
	if n != 50000 {
		t.Fatalf("delivered %d attempts before the bad line, want 50000", n)
	}
}

// Blocks are parsed in parallel, but a duplicate id is reported like a
// sequential reader would: at its second line, naming the first.
func TestDuplicateFarApart(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(header + "\n")
	for i := range 60000 {
		id := "A" + strconv.Itoa(i)
		if i == 59000 || i == 59500 {
			id = "A17" // lines 59002 and 59502 reuse the id of line 19
		}
		b.WriteString(`{"attempt":"` + id + `","start_ms":1,"outcome":"timeout","end_ms":2}` + "\n")
	}
	_, err := trace.Read(&b, "dup.jsonl")
	if err == nil || !strings.Contains(err.Error(), `dup.jsonl:59002: attempt "A17": attempt: duplicate attempt id (first used on line 19)`) {
		t.Fatalf("got %v", err)
	}
}

// The unordered scan of a file finds duplicates by sorting the ids after
// the scan; its error is the ordered reader's, whichever comes first of a
// duplicate and another bad line, for a seekable and a streamed input.
func TestScanUnorderedDuplicateIsTheOrderedError(t *testing.T) {
	line := func(id string) string {
		return `{"attempt":"` + id + `","start_ms":1,"outcome":"timeout","end_ms":2}` + "\n"
	}
	for _, c := range []struct {
		name     string
		dup, bad int // 0-based attempt index of the duplicate and of a bad line (-1: none)
	}{{"dup only", 59000, -1}, {"dup before bad", 40000, 50000}, {"bad before dup", 59000, 30000}, {"neither", -1, -1}} {
		var b strings.Builder
		b.WriteString(header + "\n")
		for i := range 60000 {
			switch i {
			case c.dup:
				b.WriteString(line("A17"))
			case c.bad:
				b.WriteString(`{"attempt":"B","start_ms":-1,"outcome":"timeout","end_ms":2}` + "\n")
			default:
				b.WriteString(line("A" + strconv.Itoa(i)))
			}
		}
		_, want := trace.Read(strings.NewReader(b.String()), "t.jsonl")
		none := func(*trace.Header) error { return nil }
		sink := func(int) func(*trace.Attempt) error { return func(*trace.Attempt) error { return nil } }
		seek := trace.ScanUnordered(strings.NewReader(b.String()), "t.jsonl", nil, none, sink)
		stream := trace.ScanUnordered(bytes.NewBufferString(b.String()), "t.jsonl", nil, none, sink)
		if fmt.Sprint(seek) != fmt.Sprint(want) || fmt.Sprint(stream) != fmt.Sprint(want) {
			t.Errorf("%s:\n seekable %v\n streamed %v\n ordered  %v", c.name, seek, stream, want)
		}
		if c.dup >= 0 && want == nil {
			t.Errorf("%s: the ordered reader missed the duplicate", c.name)
		}
	}
}

func TestScanUnorderedSeesEveryAttempt(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(header + "\n")
	for i := range 30000 {
		b.WriteString(`{"attempt":"A` + strconv.Itoa(i) + `","start_ms":1,"outcome":"timeout","end_ms":2}` + "\n")
	}
	var mu sync.Mutex
	total := 0
	err := trace.ScanUnordered(&b, "u.jsonl", nil, func(*trace.Header) error { return nil }, func(int) func(*trace.Attempt) error {
		n := 0
		return func(a *trace.Attempt) error {
			n++
			mu.Lock()
			total++
			mu.Unlock()
			return nil
		}
	})
	if err != nil || total != 30000 {
		t.Fatalf("err %v, saw %d attempts", err, total)
	}
}

// The writer puts C1 controls and bidi overrides of the header, the ids,
// the error text and the meta as \u escapes (cat on a terminal cannot act
// on them), and the reader reads the same strings back.
func TestWriterEscapesSpoofingCharacters(t *testing.T) {
	const evil = "x\u009b2J\u202eok\u2066\u0085"
	var b bytes.Buffer
	w, err := trace.NewWriter(&b, trace.Header{Clock: evil, Window: trace.Window{EndMS: 10}, Conditions: []byte(`{"model":"` + evil + `"}`)})
	if err != nil {
		t.Fatal(err)
	}
	a := trace.Attempt{ID: evil, Request: evil + "r", StartMS: 1, Outcome: trace.HTTPError, HTTPStatus: 500, EndMS: 2, HasEnd: true,
		Error: evil, Meta: []byte(`{"server":"` + evil + `"}`)}
	if err := w.Write(&a); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if strings.ContainsAny(b.String(), "\u009b\u202e\u2066\u0085") {
		t.Errorf("written raw:\n%s", b.String())
	}
	back, err := trace.Read(&b, "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var cond, meta map[string]string
	json.Unmarshal(back.Header.Conditions, &cond)
	json.Unmarshal(back.Attempts[0].Meta, &meta)
	x := back.Attempts[0]
	if back.Header.Clock != evil || cond["model"] != evil || x.ID != evil || x.Request != evil+"r" || x.Error != evil || meta["server"] != evil {
		t.Errorf("read back: %q %q %q %q %q %q", back.Header.Clock, cond["model"], x.ID, x.Request, x.Error, meta["server"])
	}
}

func TestWriterRoundTrip(t *testing.T) {
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, err := trace.NewWriter(&b, tr.Header)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tr.Attempts {
		if err := w.Write(&tr.Attempts[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	back, err := trace.Read(&b, "roundtrip")
	if err != nil {
		t.Fatal(err)
	}
	for i := range tr.Attempts {
		x, y := tr.Attempts[i], back.Attempts[i]
		x.Line, y.Line = 0, 0
		if x.ID != y.ID || x.StartMS != y.StartMS || x.EndMS != y.EndMS || len(x.Events) != len(y.Events) || x.Quality != y.Quality || x.Outcome != y.Outcome {
			t.Fatalf("attempt %d changed in a round trip:\n%+v\n%+v", i, x, y)
		}
	}
}

func TestWriterRejectsInvalidAttempt(t *testing.T) {
	w, _ := trace.NewWriter(&bytes.Buffer{}, trace.Header{Clock: "client", Window: trace.Window{EndMS: 1}})
	err := w.Write(&trace.Attempt{ID: "x", Outcome: trace.OK, HasEnd: true})
	if err == nil || !strings.Contains(err.Error(), "an ok attempt has no events") {
		t.Fatalf("got %v", err)
	}
}

func TestCSVKeepsMissingEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := trace.WriteCSVFile("../../data/unit01/trace.jsonl", &b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 11 {
		t.Fatalf("want header + 10 rows, got %d lines", len(lines))
	}
	if !strings.HasPrefix(lines[9], "10,R9,R9,true,7200,timeout,false,,0,0,,2500,") {
		t.Fatalf("R9 row: %s", lines[9])
	}
}

// BenchmarkScan reads a generated trace of about 20,000 attempts from memory.
// The whole-file benchmark against the Python reference is bench/card/run.sh.
func BenchmarkScan(b *testing.B) {
	var buf bytes.Buffer
	if _, err := tracegen.Generate(&buf, tracegen.Config{Seed: 1, Requests: 20000}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		n := 0
		err := trace.Scan(bytes.NewReader(buf.Bytes()), "bench", func(*trace.Header) error { return nil }, func(*trace.Attempt) error { n++; return nil })
		if err != nil || n == 0 {
			b.Fatal(err, n)
		}
	}
}

// The largest finite float is a valid time (the format bounds times only
// by being finite and non-negative): an event there is read, not rejected
// as "before start_ms". An infinite time built in memory is named as such.
func TestLargestFiniteTime(t *testing.T) {
	const max = "1.7976931348623157e308"
	tr, err := read(t, header, `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":1e308},{"t_ms":`+max+`}],"end_ms":`+max+`}`)
	if err != nil {
		t.Fatalf("an event at the largest finite time: %v", err)
	}
	if got := tr.Attempts[0].Events[1].TMS; got != math.MaxFloat64 {
		t.Fatalf("event read as %g", got)
	}
	a := trace.Attempt{ID: "R1", Outcome: trace.OK, Events: []trace.Event{{TMS: math.Inf(1), Tokens: 1}}, HasEnd: true, EndMS: math.Inf(1)}
	if err := a.Validate(); err == nil || !strings.Contains(err.Error(), "events[0].t_ms: is infinite") {
		t.Fatalf("Validate of an infinite event: %v", err)
	}
}

// A header key that matches a field only when case is ignored is refused: encoding/json would
// read it as the field, Python, pandas and DuckDB would not (the attacker walk's shadow
// "Window", "END_MS", "Trace", "Clock" and "Window_Cost").
func TestHeaderKeysDifferingOnlyInCaseRefused(t *testing.T) {
	// Keys coursekit does not read stay free-form in conditions, whatever their case.
	if _, err := trace.Read(strings.NewReader(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"Model":"m","PREFIX_REUSE":"none"}}`+"\n"), "t.jsonl"); err != nil {
		t.Errorf("free-form condition keys: %v", err)
	}
	// Free-form keys that differ only in case are different keys (nothing reads them folded),
	// in conditions, below them and in meta; the same key twice is still refused.
	for _, h := range []string{
		`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"x":1,"X":2}}`,
		`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"model":{"a":1,"A":2},"slo":{"slo_ttft_ms":[1000]}}}`,
		`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"meta":{"label":{"a":1,"A":2}}}`,
	} {
		if _, err := trace.Read(strings.NewReader(h+"\n"), "t.jsonl"); err != nil {
			t.Errorf("%s: free-form keys differing only in case: %v", h, err)
		}
	}
	if _, err := trace.Read(strings.NewReader(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"x":1,"x":2}}`+"\n"), "t.jsonl"); err == nil || !strings.Contains(err.Error(), "conditions.x: given twice in the header") {
		t.Errorf("a free-form key given twice: got %v", err)
	}
	for _, c := range []struct{ header, want string }{
		{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":13,"end_ms":243},"Window":{"start_ms":0,"end_ms":600}}`, `t.jsonl:1: Window: differs from the header field "window" only in case`},
		{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":13,"end_ms":243,"END_MS":600}}`, `t.jsonl:1: window.END_MS: differs from the header field "end_ms" only in case`},
		{`{"trace":"other/v9","Trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1}}`, `t.jsonl:1: Trace: differs from the header field "trace" only in case`},
		{`{"trace":"llm-serving/v1","clock":"server","Clock":"client","window":{"start_ms":0,"end_ms":1}}`, `t.jsonl:1: Clock: differs from the header field "clock" only in case`},
		// Alone, a key that only matches a field when case is ignored.
		{`{"trace":"llm-serving/v1","clock":"client","Window":{"start_ms":0,"end_ms":600}}`, `t.jsonl:1: Window: differs from the header field "window" only in case`},
		{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"window_cost":3.6,"currency":"CNY","Window_Cost":99999}`, `t.jsonl:1: Window_Cost: differs from the header field "window_cost" only in case`},
		// Inside the free-form conditions, which the card decodes later: twice but for case.
		{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"slo":{"slo_ttft_ms":[1000],"SLO_TTFT_MS":[1]}}}`, `t.jsonl:1: conditions.slo.SLO_TTFT_MS: differs from the condition key "slo_ttft_ms" only in case`},
		{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"percentiles":[0.5],"Percentiles":[0.999]}}`, `t.jsonl:1: conditions.Percentiles: differs from the condition key "percentiles" only in case`},
		// Alone inside conditions, a key that only matches one coursekit reads when case is
		// ignored: "SLO_TTFT_MS" alone set the card's SLO.
		{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"slo":{"SLO_TTFT_MS":[1]}}}`, `t.jsonl:1: conditions.slo.SLO_TTFT_MS: differs from the condition key "slo_ttft_ms" only in case`},
		{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"slo":{"slo_ttft_ms":[1000],"Slo_E2E_ms":1}}}`, `t.jsonl:1: conditions.slo.Slo_E2E_ms: differs from the condition key "slo_e2e_ms" only in case`},
		{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"SLO":{"slo_ttft_ms":[1]}}}`, `t.jsonl:1: conditions.SLO: differs from the condition key "slo" only in case`},
		{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"Percentiles":[0.999]}}`, `t.jsonl:1: conditions.Percentiles: differs from the condition key "percentiles" only in case`},
		{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"METRICS_SIDECAR":"x.jsonl"}}`, `t.jsonl:1: conditions.METRICS_SIDECAR: differs from the condition key "metrics_sidecar" only in case`},
		{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"Capture_ms":5}}`, `t.jsonl:1: conditions.Capture_ms: differs from the condition key "capture_ms" only in case`},
		{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"Dataset":{}}}`, `t.jsonl:1: conditions.Dataset: differs from the condition key "dataset" only in case`},
		{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"run_end":{"REASON":"completed","planned_duration_ms":1,"planned_window":{"start_ms":0,"end_ms":1}}}}`, `t.jsonl:1: conditions.run_end.REASON: differs from the condition key "reason" only in case`},
		{`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1},"conditions":{"run_end":{"reason":"completed","planned_duration_ms":1,"planned_window":{"start_ms":0,"End_MS":1}}}}`, `t.jsonl:1: conditions.run_end.planned_window.End_MS: differs from the condition key "end_ms" only in case`},
	} {
		_, err := trace.Read(strings.NewReader(c.header+"\n"), "t.jsonl")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %q", c.header, err, c.want)
		}
	}
}
