package trace_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// FuzzRead: any input either reads cleanly and survives a write/read round
// trip, or fails with a located *trace.Error. It never panics and never
// returns a partial trace. Run it with bench/card/run.sh or:
//
//	go test -fuzz FuzzRead -fuzztime 60s ./coursekit/trace
func FuzzRead(f *testing.F) {
	seeds := []string{
		header + "\n" + `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":200},{"t_ms":260,"tokens":2}],"end_ms":300,"quality":"pass"}`,
		header + "\n" + `{"attempt":"R9","start_ms":7200,"outcome":"timeout","events":[],"end_ms":9700,"quality":null,"error":"no first token"}`,
		header + "\n" + `{"attempt":"R1",`,
		`{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":1}],"end_ms":2}`,
		`{"trace":"llm-serving/v9","clock":"client","window":{"start_ms":0,"end_ms":1}}`,
		header + "\n" + `{"attempt":"R1","start_ms":0,"outcome":"success","end_ms":2}`,
		header + "\n" + `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2}` + "\n" + `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2}`,
		header + "\n" + `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":200},{"t_ms":150}],"end_ms":300}`,
		header + "\n" + `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":200}],"end_ms":150}`,
		header + "\n" + `{"attempt":"R1","start_ms":NaN,"outcome":"timeout","end_ms":2}`,
		header + "\n" + `{"attempt":"R1","start_ms":-1,"outcome":"timeout","end_ms":1e999}`,
		header + "\n" + `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":1,"tokens":0}],"end_ms":2}`,
		header + "\n" + `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[],"end_ms":2}`,
		header + "\n" + `{"attempt":"\u00e9\ud83d\ude00","start_ms":0,"outcome":"in_flight","end_ms":null,"meta":{"a":[1,2,{"b":null}]}}`,
		"",
		header + "\n\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		tr, err := trace.Read(bytes.NewReader(in), "fuzz")
		if err != nil {
			if !trace.IsBadInput(err) || !strings.HasPrefix(err.Error(), "fuzz") {
				t.Fatalf("error without a position: %v", err)
			}
			if tr != nil {
				t.Fatal("a failed read returned a trace")
			}
			return
		}
		var b bytes.Buffer
		w, err := trace.NewWriter(&b, tr.Header)
		if err != nil {
			t.Fatalf("header read but not writable: %v", err)
		}
		for i := range tr.Attempts {
			if err := w.Write(&tr.Attempts[i]); err != nil {
				t.Fatalf("attempt read but not writable: %v", err)
			}
		}
		w.Flush()
		back, err := trace.Read(&b, "roundtrip")
		if err != nil {
			t.Fatalf("written trace does not read back: %v\n%s", err, b.String())
		}
		if len(back.Attempts) != len(tr.Attempts) {
			t.Fatalf("round trip changed the attempt count %d → %d", len(tr.Attempts), len(back.Attempts))
		}
		for i := range tr.Attempts {
			x, y := &tr.Attempts[i], &back.Attempts[i]
			if x.ID != y.ID || x.Request != y.Request || x.StartMS != y.StartMS || x.EndMS != y.EndMS || x.HasEnd != y.HasEnd ||
				x.Outcome != y.Outcome || x.Quality != y.Quality || len(x.Events) != len(y.Events) || x.Error != y.Error {
				t.Fatalf("round trip changed attempt %d:\n%+v\n%+v", i, x, y)
			}
		}
	})
}
