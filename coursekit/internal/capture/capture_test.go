package capture

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// A report longer than a pipe's buffer comes back whole, and os.Stdout is
// restored.
func TestStdoutTakesALongReport(t *testing.T) {
	before := os.Stdout
	line := strings.Repeat("字", 100) + "\n"
	out, err := Stdout(func() {
		for range 1000 {
			fmt.Print(line)
		}
	})
	if err != nil || out != strings.Repeat(line, 1000) {
		t.Errorf("got %d bytes (%v), want %d", len(out), err, 1000*len(line))
	}
	if os.Stdout != before {
		t.Error("os.Stdout was not restored")
	}
}
