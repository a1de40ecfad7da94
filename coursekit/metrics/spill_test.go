package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/internal/keyrec"
	"github.com/llmperf-course/course/coursekit/tracegen"
)

const spillHeader = `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":1000,"end_ms":61000}}`

// spillTrace builds a trace from attempt lines made by line(i).
func spillTrace(n int, line func(i int) string) []byte {
	var b strings.Builder
	b.WriteString(spillHeader + "\n")
	for i := range n {
		b.WriteString(line(i) + "\n")
	}
	return []byte(b.String())
}

func okLine(id, req string, start, first, gap float64, events int, quality string, end float64) string {
	var ev []string
	for e := range events {
		ev = append(ev, fmt.Sprintf(`{"t_ms":%g}`, first+float64(e)*gap))
	}
	r := ""
	if req != "" {
		r = `,"request":"` + req + `"`
	}
	return fmt.Sprintf(`{"attempt":"%s"%s,"start_ms":%g,"outcome":"ok","events":[%s],"end_ms":%g,"quality":%s}`,
		id, r, start, strings.Join(ev, ","), end, quality)
}

// A card computed with a memory budget so small that every store spills
// (samples every few values, id and request records every few attempts)
// is the in-memory card, field for field, but for the note that it
// spilled; and the temporary directory is gone afterwards.
func TestSpilledCardEqualsInMemory(t *testing.T) {
	defer func(c, m int) { budgetChunkLen, keyrec.MinStoreCap = c, m }(budgetChunkLen, keyrec.MinStoreCap)
	budgetChunkLen, keyrec.MinStoreCap = 16, 16
	var gen bytes.Buffer
	if _, err := tracegen.Generate(&gen, tracegen.Config{Seed: 3, Requests: 400, RatePerS: 50, TimeoutMS: 3000}); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"generated": gen.Bytes(),
		// 200 successes with 4 distinct TTFTs: ties at every rank.
		"ties at the rank": spillTrace(200, func(i int) string {
			return okLine(fmt.Sprint("A", i), "", 2000, 2100+float64(i%4)*50, 25, 3, `"pass"`, 2500)
		}),
		"one success among failures": spillTrace(300, func(i int) string {
			if i == 150 {
				return okLine("A150", "", 5000, 5300, 10, 2, `"pass"`, 5400)
			}
			return fmt.Sprintf(`{"attempt":"A%d","start_ms":%d,"outcome":"timeout","events":[],"end_ms":%d}`, i, 2000+i, 5000+i)
		}),
		"in flight, outside the window, retries": spillTrace(400, func(i int) string {
			switch i % 4 {
			case 0:
				return fmt.Sprintf(`{"attempt":"A%d","request":"R%d","start_ms":%d,"outcome":"in_flight","events":[{"t_ms":%d}],"end_ms":null}`, i, i/8, 60000+i, 60900+i)
			case 1:
				return okLine(fmt.Sprint("A", i), "", 500, 700+float64(i), 3, 5, `"pass"`, 1500+float64(i)) // starts before the window
			case 2:
				return okLine(fmt.Sprint("A", i), fmt.Sprint("R", i/8), 3000+float64(i), 3200+float64(i)*7, 11, 4, `"fail"`, 9000)
			}
			return okLine(fmt.Sprint("A", i), fmt.Sprint("R", i/8), 3000+float64(i), 3100+float64(i)*3, 9, 6, "null", 9000)
		}),
		"header only": []byte(spillHeader + "\n"),
	}
	for name, tr := range cases {
		for _, opts := range []Options{{SLOsMS: []float64{1000, 250}}, {Method: Linear, Levels: []float64{0.5, 0.999}}} {
			want, err := SummarizeReader(bytes.NewReader(tr), "t.jsonl", opts)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			opts.MemoryBytes = 1
			got, err := SummarizeReader(bytes.NewReader(tr), "t.jsonl", opts)
			if err != nil {
				t.Fatalf("%s spilled: %v", name, err)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("%s: the spill left %d files behind", name, len(left))
			}
			if name != "header only" && (got.Spill == nil || got.Spill.Runs < 2) {
				t.Errorf("%s: the card did not spill (%+v)", name, got.Spill)
			}
			got.Spill = nil
			a, _ := json.Marshal(want)
			b, _ := json.Marshal(got)
			if !bytes.Equal(a, b) {
				t.Errorf("%s: the spilled card differs:\n memory %s\n spill  %s", name, a, b)
			}
		}
	}
}
