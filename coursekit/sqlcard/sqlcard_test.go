package sqlcard

import (
	"regexp"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The query selects exactly Columns, in order, in both dialects: the
// engine tests (engine_test.go, make test-sql / test-spark) compare by them.
func TestQuerySelectsColumns(t *testing.T) {
	h := &trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 1000}}
	for _, d := range []Dialect{DuckDB, Spark} {
		q, err := Query(d, []string{"it's.parquet"}, h, Options{})
		if err != nil {
			t.Fatal(err)
		}
		sel := q[strings.LastIndex(q, "\nSELECT\n"):]
		got := regexp.MustCompile(` AS ([a-z0-9_]+),?\n`).FindAllStringSubmatch(sel, -1)
		if len(got) != len(Columns) {
			t.Fatalf("%s: %d output columns, want %d:\n%s", d, len(got), len(Columns), sel)
		}
		for i, c := range Columns {
			if got[i][1] != c.Name {
				t.Errorf("%s: column %d is %s, want %s", d, i, got[i][1], c.Name)
			}
		}
		if !strings.Contains(q, "CAST('1000' AS DOUBLE) AS slo_ttft_ms") {
			t.Errorf("%s: the default SLO is not metrics.DefaultSLOMS", d)
		}
		if d == DuckDB && !strings.Contains(q, "'it''s.parquet'") {
			t.Errorf("duckdb: the file name is not quoted:\n%s", q)
		}
	}
	if _, err := ParseDialect("bigquery"); err == nil {
		t.Error("bigquery accepted")
	}
	if _, err := Query(DuckDB, nil, h, Options{}); err == nil {
		t.Error("a query over no file")
	}
}

// The query's integer rank, ⌈p·n⌉ clamped to [1, n] on the query's scale, is
// metrics.NearestRankIndex + 1.
func TestRankFormulaIsNearestRank(t *testing.T) {
	for _, p := range metrics.Levels {
		scaled := scaledLevel(p)
		for n := int64(1); n <= 5000; n++ {
			k := min(max((scaled*n+rankScale-1)/rankScale, 1), n)
			if want := int64(metrics.NearestRankIndex(int(n), p)) + 1; k != want {
				t.Fatalf("p=%v n=%d: rank %d, want %d", p, n, k, want)
			}
		}
	}
}

// A file name with a control code, a bidi override or bytes that are not
// UTF-8 is refused, naming it escaped: the query is printed on a terminal,
// and escaping the name inside it would name another file.
func TestQueryRefusesFileNamesWithControlCodes(t *testing.T) {
	h := &trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 1000}}
	for _, name := range []string{"p\x1b[2J.parquet", "p\u202e.parquet", "p\u009b.parquet", "p\n.parquet", "p\xff.parquet"} {
		for _, d := range []Dialect{DuckDB, Spark} {
			q, err := Query(d, []string{"ok.parquet", name}, h, Options{})
			if err == nil || !strings.Contains(err.Error(), "rename") || strings.ContainsAny(err.Error(), "\x1b\u202e\u009b\n") {
				t.Errorf("%s %q: %v\n%.200s", d, name, err, q)
			}
		}
	}
}

// A file name with glob characters is refused, naming the file: DuckDB and Spark would expand
// "g*[1].parquet" as a pattern and read other files (the attacker walk's finding).
func TestQueryRefusesFileNamesWithGlobCharacters(t *testing.T) {
	h := &trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 1000}}
	for _, name := range []string{"g*[1].parquet", "a?.parquet", "b[0].parquet", "c{x,y}.parquet"} {
		for _, d := range []Dialect{DuckDB, Spark} {
			q, err := Query(d, []string{"ok.parquet", name}, h, Options{})
			if err == nil || !strings.Contains(err.Error(), "glob") || !strings.Contains(err.Error(), name) {
				t.Errorf("%s %q: %v\n%.200s", d, name, err, q)
			}
		}
	}
}
