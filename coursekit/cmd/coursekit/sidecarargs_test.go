package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A capacity --out folder holds, beside each step's trace, its metrics
// sidecar step-NN-rate-R.jsonl.metrics.jsonl, so DIR/step-*.jsonl names
// both. A sidecar among the traces is not read as a trace: a note names it
// and the traces are read; named alone it is refused as a sidecar, not as a
// "bad header" (walk: `card DIR/step-01-*.jsonl` said "want exactly one
// TRACE file, got 2").
func TestSidecarAmongTraceArguments(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "step-01-rate-4.jsonl")
	b, err := os.ReadFile(unitTrace)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr, b, 0o644); err != nil {
		t.Fatal(err)
	}
	side := tr + ".metrics.jsonl"
	scrapes := `{"t_ms":0.085,"dur_ms":1.2,"values":{"sim_batch_size":1,"sim_queue_depth":0}}` + "\n" +
		`{"t_ms":250.8,"dur_ms":1.1,"error":"connection refused"}` + "\n"
	if err := os.WriteFile(side, []byte(scrapes), 0o644); err != nil {
		t.Fatal(err)
	}
	note := map[string]string{
		"zh": side + " 是服务器指标文件（读取 /metrics 的记录），不是 trace",
		"en": side + " is a metrics sidecar (scrapes of /metrics), not a trace",
	}
	for _, c := range []struct {
		lang string
		args []string
	}{
		{"zh", []string{"card", tr, side}},
		{"en", []string{"card", "--lang", "en", side, tr}},
		{"zh", []string{"report", tr, side, "-o", filepath.Join(dir, "r.html")}},
		{"en", []string{"csv", tr, side}},
		{"zh", []string{"compare", tr, side, "--", tr, side}},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != 0 || !strings.Contains(errs, "coursekit "+c.args[0]+": "+note[c.lang]) {
			t.Errorf("%v: exit %d, stderr %q; want exit 0 and a note %q", c.args, code, errs, note[c.lang])
		}
		if c.args[0] != "report" && out == "" {
			t.Errorf("%v: nothing on stdout: the trace was not read", c.args)
		}
	}
	// The same trace, without the sidecar, gives the same card.
	_, want, _ := runCLI(t, "card", tr)
	if _, got, _ := runCLI(t, "card", side, tr); got != want {
		t.Errorf("card with the sidecar named differs from card of the trace alone:\n%s\nwant\n%s", got, want)
	}

	// Only sidecars: refused as sidecars, exit 2, nothing read.
	for _, args := range [][]string{
		{"card", side},
		{"card", side, side},
		{"report", side, "-o", filepath.Join(dir, "r2.html")},
		{"export", side, "-o", filepath.Join(dir, "t.parquet")},
		{"compare", tr, "--", side},
	} {
		code, out, errs := runCLI(t, args...)
		if code != 2 || out != "" || !strings.Contains(errs, side+": a metrics sidecar (scrapes of the server's /metrics") || strings.Contains(errs, "bad header") || strings.Contains(errs, "coursekit help") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming the sidecar", args, code, out, errs)
		}
	}
	stdin = strings.NewReader(scrapes)
	defer func() { stdin = os.Stdin }()
	if code, _, errs := runCLI(t, "card", "-"); code != 2 || !strings.Contains(errs, "stdin:1: a metrics sidecar") {
		t.Errorf("card - < sidecar: exit %d, stderr %q; want exit 2 saying it is a metrics sidecar", code, errs)
	}
}
