//go:build warehouse

// The SQL card run for real in DuckDB and Spark: `make test-sql` and
// `make test-spark` build the Python environment and set COURSEKIT_SQL_PYTHON.

package sqlcard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/llmperf-course/course/coursekit/export"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

func TestDuckDBEqualsCard(t *testing.T) { testEngine(t, DuckDB) }

func TestSparkEqualsCard(t *testing.T) { testEngine(t, Spark) }

type result struct {
	Query   string          `json:"query"`
	Columns []string        `json:"columns"`
	Rows    [][]json.Number `json:"rows"`
}

func testEngine(t *testing.T, d Dialect) {
	py := os.Getenv("COURSEKIT_SQL_PYTHON")
	if py == "" {
		t.Fatal("COURSEKIT_SQL_PYTHON is not set: run `make test-sql` or `make test-spark`, which install the pinned engines")
	}
	dir := t.TempDir()
	var queries []string
	cards := map[string]*metrics.Summary{}
	opts := map[string]Options{}
	for _, c := range sqlCases {
		path := caseFile(t, dir, c)
		files := exportParts(t, path, c.parts)
		h, err := export.ReadHeader(files[0])
		if err != nil {
			t.Fatal(err)
		}
		o := Options{SLOsMS: c.slos, WindowCost: c.cost, Latency: c.lat, Judged: c.judged}
		q, err := Query(d, files, h, o)
		if err != nil {
			t.Fatal(err)
		}
		qf := filepath.Join(dir, c.name+".sql")
		if err := os.WriteFile(qf, []byte(q), 0o644); err != nil {
			t.Fatal(err)
		}
		queries = append(queries, qf)
		s, err := metrics.SummarizeFile(path, metrics.Options{SLOsMS: c.slos, WindowCost: c.cost, Latency: c.lat, Judged: c.judged})
		if err != nil {
			t.Fatal(err)
		}
		cards[qf], opts[qf] = s, o
	}
	cmd := exec.Command(py, "testdata/run_sql.py", string(d))
	cmd.Args = append(cmd.Args, queries...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", d, err, stderr.String())
	}
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var r result
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("bad output line %q: %v", sc.Text(), err)
		}
		seen++
		compare(t, d, filepath.Base(r.Query), r, cards[r.Query])
	}
	if seen != len(queries) {
		t.Fatalf("%s answered %d of %d queries\n%s", d, seen, len(queries), stderr.String())
	}
}

// compare checks every column of every condition row against the Go card.
func compare(t *testing.T, d Dialect, name string, r result, s *metrics.Summary) {
	t.Helper()
	if len(r.Columns) != len(Columns) {
		t.Fatalf("%s %s: columns %v", d, name, r.Columns)
	}
	for i, c := range Columns {
		if r.Columns[i] != c.Name {
			t.Fatalf("%s %s: column %d is %q, want %q", d, name, i, r.Columns[i], c.Name)
		}
	}
	if len(r.Rows) != len(s.Conditions) {
		t.Fatalf("%s %s: %d rows, want one per SLO (%d)", d, name, len(r.Rows), len(s.Conditions))
	}
	for ri, row := range r.Rows {
		cond := &s.Conditions[ri]
		for i, c := range Columns {
			var got *float64
			if row[i] != "" {
				v, err := row[i].Float64()
				if err != nil {
					t.Fatalf("%s %s: %s = %q: %v", d, name, c.Name, row[i], err)
				}
				got = &v
			}
			want := c.Card(s, cond)
			if !same(got, want) {
				t.Errorf("%s %s row %d: %s = %s, Go card %s", d, name, ri, c.Name, show(got), show(want))
			}
		}
	}
}

func show(v *float64) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprint(*v)
}

// exportParts exports the trace at path as parts Parquet files (attempts
// dealt round-robin, each part with the whole header).
func exportParts(t *testing.T, path string, parts int) []string {
	t.Helper()
	if parts <= 1 {
		out := path + ".parquet"
		if err := export.WriteParquetFile(path, out); err != nil {
			t.Fatal(err)
		}
		return []string{out}
	}
	tr, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for p := range parts {
		var atts []trace.Attempt
		for i := p; i < len(tr.Attempts); i += parts {
			atts = append(atts, tr.Attempts[i])
		}
		part := fmt.Sprintf("%s.part%d.jsonl", path, p)
		writeTrace(t, part, tr.Header, atts)
		out := part + ".parquet"
		if err := export.WriteParquetFile(part, out); err != nil {
			t.Fatal(err)
		}
		files = append(files, out)
	}
	return files
}
