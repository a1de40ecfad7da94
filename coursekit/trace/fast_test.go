package trace

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// fastSeeds are attempt lines in the writer's form, and near misses.
var fastSeeds = []string{
	`{"attempt":"a0000001","request":"q000001","start_ms":3.1,"outcome":"ok","http_status":200,"events":[{"t_ms":398.6},{"t_ms":424.3},{"t_ms":445.5,"tokens":3}],"end_ms":482.9,"quality":"pass","input_tokens":308,"output_tokens":4}`,
	`{"attempt":"R9","start_ms":7200,"outcome":"timeout","events":[],"end_ms":9700,"quality":null,"error":"no first token"}`,
	`{"attempt":"R1","start_ms":0,"outcome":"in_flight","events":[{"t_ms":1}],"end_ms":null,"quality":"fail"}`,
	`{"attempt":"R1","request":"","start_ms":0.000001,"outcome":"ok","events":[{"t_ms":12345678901234567890}],"end_ms":12345678901234567890.5}`,
	`{"attempt":"R1","start_ms":01,"outcome":"timeout","events":[],"end_ms":2}`,
	`{"attempt":"R1","start_ms":1.,"outcome":"timeout","events":[],"end_ms":2}`,
	`{"attempt":"R1","start_ms":1e3,"outcome":"timeout","events":[],"end_ms":2}`,
	`{"attempt":"R1","start_ms":5,"outcome":"timeout","events":[],"end_ms":2}`,
	`{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":1,"tokens":0}],"end_ms":2}`,
	`{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":1,"tokens":2.0}],"end_ms":2}`,
	`{"attempt":"R1","start_ms":0,"outcome":"ok","http_status":1000,"events":[{"t_ms":1}],"end_ms":2}`,
	`{"attempt":"R1","start_ms":0,"outcome":"nope","events":[],"end_ms":2}`,
	`{"attempt":"","start_ms":0,"outcome":"timeout","events":[],"end_ms":2}`,
	`{"attempt":"R\u0031","start_ms":0,"outcome":"timeout","events":[],"end_ms":2}`,
	`{"attempt":"R1","start_ms":0,"outcome":"timeout","events":[],"end_ms":2} `,
	`{"attempt":"R1","start_ms":0,"outcome":"timeout","events":[],"end_ms":2,"meta":{}}`,
	`{"attempt":"R1","start_ms":0,"outcome":"timeout","events":[],"end_ms":1e999}`,
	`{"attempt":"R1","start_ms":0,"outcome":"timeout","events":[],"end_ms":` + strings.Repeat("9", 400) + `}`,
	`{"attempt":"R1","start_ms":0.` + strings.Repeat("0", 400) + `1,"outcome":"timeout","events":[],"end_ms":2}`,
}

// FuzzFastPath: whenever the fast path accepts a line, the general parser
// accepts it too and reads exactly the same attempt.
//
//	go test -fuzz FuzzFastPath -fuzztime 60s ./coursekit/trace
func FuzzFastPath(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFast(t, line)
	})
}

func checkFast(t *testing.T, line []byte) {
	t.Helper()
	if bytes.IndexByte(line, '\n') >= 0 {
		return
	}
	lp := newLineParser("f")
	var fb block
	var fa Attempt
	if !lp.parseFast(line, &fa, &fb) {
		if len(fb.events) != 0 {
			t.Fatalf("rejected line left events behind: %q", line)
		}
		return
	}
	var gb block
	var ga Attempt
	if err := newLineParser("f").parseAttempt(line, &ga, &gb); err != nil {
		t.Fatalf("fast path accepted a line the parser rejects (%v): %q", err, line)
	}
	if len(fa.Events) == 0 {
		fa.Events = nil
	}
	if len(ga.Events) == 0 {
		ga.Events = nil
	}
	if !reflect.DeepEqual(fa, ga) {
		t.Fatalf("fast path read %q differently:\n fast    %+v\n general %+v", line, fa, ga)
	}
}

func TestFastPathSeeds(t *testing.T) {
	accepted := 0
	for _, s := range fastSeeds {
		checkFast(t, []byte(s))
		var b block
		var a Attempt
		if newLineParser("f").parseFast([]byte(s), &a, &b) {
			accepted++
		}
	}
	if accepted < 4 {
		t.Fatalf("the fast path accepted only %d of the writer-form seeds", accepted)
	}
}
