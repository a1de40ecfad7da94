package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportAndSQL(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "a.parquet")
	if code, out, errs := runCLI(t, "export", unitTrace, "-o", pq); code != 0 || out != "" {
		t.Fatalf("export: code %d, %q %q", code, out, errs)
	}
	code, q, errs := runCLI(t, "sql", "--dialect", "spark", pq, "--slo-ttft", "1s", "--slo-ttft", "250ms")
	if code != 0 || !strings.Contains(q, "parquet.`"+pq+"`") || !strings.Contains(q, "CAST('250' AS DOUBLE) AS slo_ttft_ms") {
		t.Fatalf("sql: code %d, stderr %q, query:\n%s", code, errs, q)
	}
	// The alias and --format csv write the same table.
	_, viaCSV, _ := runCLI(t, "csv", unitTrace)
	csvFile := filepath.Join(dir, "a.csv")
	if code, _, errs := runCLI(t, "export", "--format", "csv", unitTrace, "-o", csvFile); code != 0 {
		t.Fatalf("export --format csv: %d %s", code, errs)
	}
	if b, _ := os.ReadFile(csvFile); string(b) != viaCSV || !strings.HasPrefix(viaCSV, "line,attempt,") {
		t.Errorf("export --format csv differs from csv")
	}
}

func TestExportAndSQLBadInput(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.jsonl")
	os.WriteFile(other, []byte(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":5}}`+"\n"), 0o644)
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	runCLI(t, "export", unitTrace, "-o", a)
	runCLI(t, "export", other, "-o", b)
	notParquet := filepath.Join(dir, "n.parquet")
	os.WriteFile(notParquet, []byte("hello"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", unitTrace}, "name the file with -o FILE"},
		{[]string{"export", "--format", "xlsx", unitTrace, "-o", a}, `unknown format "xlsx"`},
		{[]string{"sql", "--dialect", "bigquery", a}, `unknown SQL dialect "bigquery"`},
		{[]string{"sql"}, "want one or more PARQUET files"},
		{[]string{"sql", a, b}, b + ": its window or window_cost differs"},
		{[]string{"sql", notParquet}, notParquet + ": not a Parquet file"},
		{[]string{"sql", unitTrace}, unitTrace + ": not a Parquet file"},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}

// sql judges as card does: the trace's recorded SLOs (here written by
// import --slo-e2e), or the same SLO flags, and the card's quality rule.
func TestSQLTakesTheCardsSLOs(t *testing.T) {
	dir := t.TempDir()
	tr, pq := filepath.Join(dir, "vl.jsonl"), filepath.Join(dir, "vl.parquet")
	if code, _, errs := runCLI(t, "import", "--from", "vllm", "--slo-e2e", "3s", "-q", "-o", tr, importData+"vllm_current.json"); code != 0 {
		t.Fatalf("import: %d %s", code, errs)
	}
	if code, _, errs := runCLI(t, "export", tr, "-o", pq); code != 0 {
		t.Fatalf("export: %d %s", code, errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "ok.e2e_ms <= CAST('3000' AS DOUBLE)"},
		{[]string{"--slo-e2e", "2s"}, "ok.e2e_ms <= CAST('2000' AS DOUBLE)"},
	} {
		code, q, errs := runCLI(t, append([]string{"sql", pq}, c.args...)...)
		if code != 0 || !strings.Contains(q, c.want) || !strings.Contains(q, "THEN qual0.fast") {
			t.Errorf("sql %v: code %d, stderr %q; want %q and the latency-only rule:\n%s", c.args, code, errs, c.want, q)
		}
	}
	if code, _, errs := runCLI(t, "sql", pq, "--slo-tpot", "40ms"); code != 2 || !strings.Contains(errs, "judged by coursekit card") {
		t.Errorf("sql --slo-tpot: code %d, %s", code, errs)
	}
}
