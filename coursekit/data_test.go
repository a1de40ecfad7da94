package coursekit_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/llmperf-course/course/coursekit"
)

func TestDataFindsTheUnitTrace(t *testing.T) {
	p := coursekit.Data("unit01/trace.jsonl")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("Data gave %s: %v", p, err)
	}
}

func TestDataEnvOverride(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "unit01"), 0o755)
	os.WriteFile(filepath.Join(dir, "unit01", "trace.jsonl"), []byte("x"), 0o644)
	t.Setenv(coursekit.DataEnv, dir)
	if got := coursekit.Data("unit01/trace.jsonl"); got != filepath.Join(dir, "unit01", "trace.jsonl") {
		t.Fatalf("got %s", got)
	}
}
