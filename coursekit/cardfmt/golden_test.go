package cardfmt_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// The Chinese cards of the corpus are pinned byte for byte: moving the
// strings into tables with English beside them must not change a byte.
func TestChineseCardsUnchanged(t *testing.T) {
	var b strings.Builder
	for _, c := range corpus(t) {
		for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
			var out bytes.Buffer
			if err := cardfmt.Write(&out, c.s, c.name, f); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "=== %s %s\n%s", c.name, f, out.String())
		}
	}
	path := filepath.Join("testdata", "zh.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("Chinese card changed at line %d:\n got %s\nwant %s", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("Chinese card changed: %d lines, want %d", len(gl), len(wl))
	}
}
