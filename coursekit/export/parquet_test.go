package export

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/llmperf-course/course/coursekit/trace"
)

const sample = `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":10000},"window_cost":2.5,"currency":"CNY","conditions":{"model":"m"}}
{"attempt":"a1","start_ms":0.1,"outcome":"ok","http_status":200,"events":[{"t_ms":100.25},{"t_ms":120,"tokens":3}],"end_ms":130,"quality":"pass","input_tokens":12,"output_tokens":4,"meta":{"conn_retries":1}}
{"attempt":"a2","request":"a1","start_ms":500,"outcome":"timeout","events":[],"end_ms":3500,"quality":null,"error":"no first token"}
{"attempt":"a3","start_ms":9999.5,"outcome":"in_flight","events":[{"t_ms":10001}],"end_ms":null}
{"attempt":"a4","start_ms":1,"outcome":"ok","events":[{"t_ms":100}],"end_ms":130,"finish_ms":120.5,"output_tokens":2}
`

// readBack reads every attempt of a Parquet export as the trace reader would build it.
func readBack(t *testing.T, path string) []trace.Attempt {
	t.Helper()
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fr, err := pqarrow.NewFileReader(r, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	for i, f := range Schema.Fields() {
		g := tbl.Schema().Field(i)
		if g.Name != f.Name || g.Nullable != f.Nullable || !arrow.TypeEqual(g.Type, f.Type) {
			t.Fatalf("column %d read back as %v, want %v", i, g, f)
		}
	}
	tr := array.NewTableReader(tbl, 0)
	defer tr.Release()
	var out []trace.Attempt
	for tr.Next() {
		rec := tr.RecordBatch()
		col := func(i int) arrow.Array { return rec.Column(i) }
		for i := range int(rec.NumRows()) {
			a := trace.Attempt{
				Line:    int(col(colLine).(*array.Int64).Value(i)),
				ID:      col(colAttempt).(*array.String).Value(i),
				Request: col(colRequest).(*array.String).Value(i),
				StartMS: col(colStart).(*array.Float64).Value(i),
			}
			a.Outcome, _ = trace.ParseOutcome(col(colOutcome).(*array.String).Value(i))
			if h := col(colHTTP).(*array.Int32); h.IsValid(i) {
				a.HTTPStatus = int(h.Value(i))
			}
			ev := col(colEvents).(*array.List)
			st := ev.ListValues().(*array.Struct)
			lo, hi := ev.ValueOffsets(i)
			for j := lo; j < hi; j++ {
				a.Events = append(a.Events, trace.Event{
					TMS:    st.Field(0).(*array.Float64).Value(int(j)),
					Tokens: int(st.Field(1).(*array.Int64).Value(int(j))),
				})
			}
			if e := col(colEnd).(*array.Float64); e.IsValid(i) {
				a.EndMS, a.HasEnd = e.Value(i), true
			}
			if f := col(colFinish).(*array.Float64); f.IsValid(i) {
				a.FinishMS, a.HasFinish = f.Value(i), true
			}
			if q := col(colQuality).(*array.String); q.IsValid(i) {
				a.Quality = map[string]trace.Quality{"pass": trace.Pass, "fail": trace.Fail}[q.Value(i)]
			}
			if v := col(colIn).(*array.Int64); v.IsValid(i) {
				a.InputTokens = int(v.Value(i))
			}
			if v := col(colOut).(*array.Int64); v.IsValid(i) {
				a.OutputTokens = int(v.Value(i))
			}
			if v := col(colError).(*array.String); v.IsValid(i) {
				a.Error = v.Value(i)
			}
			if v := col(colMeta).(*array.String); v.IsValid(i) {
				a.Meta = json.RawMessage(v.Value(i))
			}
			out = append(out, a)
		}
	}
	return out
}

func TestParquetKeepsEveryField(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(in, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "t.parquet")
	if err := WriteParquetFile(in, out); err != nil {
		t.Fatal(err)
	}
	want, err := trace.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	got := readBack(t, out)
	if len(got) != len(want.Attempts) {
		t.Fatalf("%d rows, want %d", len(got), len(want.Attempts))
	}
	for i := range got {
		// Lines written by the trace writer from both must be the same bytes.
		g, w := string(trace.AppendAttempt(nil, &got[i])), string(trace.AppendAttempt(nil, &want.Attempts[i]))
		if g != w || got[i].Line != want.Attempts[i].Line {
			t.Errorf("row %d:\n got %s (line %d)\nwant %s (line %d)", i, g, got[i].Line, w, want.Attempts[i].Line)
		}
	}
	h, err := ReadHeader(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h.Window, want.Header.Window) || *h.WindowCost != 2.5 || h.Currency != "CNY" || string(h.Conditions) != `{"model":"m"}` {
		t.Errorf("header read back: %+v", h)
	}
}

func TestParquetManyBatches(t *testing.T) {
	// More attempts than one batch: every row arrives, in file order.
	var b strings.Builder
	b.WriteString(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000}}` + "\n")
	n := batchRows + 17
	for i := range n {
		a := trace.Attempt{ID: "a" + string(rune('a'+i%26)) + strings.Repeat("x", i%3) + itoa(i), StartMS: float64(i % 1000), Outcome: trace.Timeout, HasEnd: true, EndMS: 2000}
		b.Write(trace.AppendAttempt(nil, &a))
		b.WriteByte('\n')
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "t.parquet")
	os.WriteFile(in, []byte(b.String()), 0o644)
	if err := WriteParquetFile(in, out); err != nil {
		t.Fatal(err)
	}
	got := readBack(t, out)
	if len(got) != n || got[n-1].Line != n+1 || got[batchRows].Line != batchRows+2 {
		t.Fatalf("%d rows, last line %d", len(got), got[len(got)-1].Line)
	}
}

func itoa(i int) string { return string(appendInt(nil, i)) }

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}

func TestBadTraceLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "bad.jsonl"), filepath.Join(dir, "bad.parquet")
	bad := strings.Replace(sample, `"start_ms":500`, `"start_ms":-5`, 1)
	os.WriteFile(in, []byte(bad), 0o644)
	err := WriteParquetFile(in, out)
	if err == nil || !strings.Contains(err.Error(), in+":3") || !trace.IsBadInput(err) {
		t.Fatalf("error %v, want one naming %s:3", err, in)
	}
	if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
		t.Errorf("a half-written %s was left behind", out)
	}
}

func TestReadHeaderRejectsOtherParquet(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.parquet")
	os.WriteFile(p, []byte("PAR1 not really"), 0o644)
	if _, err := ReadHeader(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("error %v, want one naming %s", err, p)
	}
}

// A row group is bounded by bytes as well as rows: 100 attempts of about 1 MB each (request id
// and error text) are written as several row groups of at most about rowGroupBytes, not one
// buffered group of every row (the attacker walk's 400 such rows took 2.4 GB of RSS).
func TestParquetRowGroupBoundedByBytes(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "t.parquet")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000}}` + "\n")
	const n, half = 100, 500_000
	for i := range n {
		a := trace.Attempt{ID: "a" + itoa(i), Request: strings.Repeat("r", half) + itoa(i), Error: strings.Repeat("e", half), StartMS: float64(i), Outcome: trace.Timeout, HasEnd: true, EndMS: 2000}
		f.Write(append(trace.AppendAttempt(nil, &a), '\n'))
	}
	f.Close()
	if err := WriteParquetFile(in, out); err != nil {
		t.Fatal(err)
	}
	r, err := file.OpenParquetFile(out, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.NumRows() != n || r.NumRowGroups() < 2 {
		t.Fatalf("%d rows in %d row groups: want %d rows in several groups", r.NumRows(), r.NumRowGroups(), n)
	}
	for i := range r.NumRowGroups() {
		if rows := r.MetaData().RowGroup(i).NumRows(); rows*2*half > rowGroupBytes+2*half {
			t.Errorf("row group %d holds %d rows of 1 MB: over the %d-byte bound", i, rows, rowGroupBytes)
		}
	}
}
