package loadgen

import (
	"strings"
	"testing"
)

// The header's quality text for generated prompts agrees with the card
// and compare, which print a TTFT-only goodput of unrated answers as
// "unknown (unrated)": the header said "goodput is 0".
func TestUnjudgedQualityTextSaysUnknown(t *testing.T) {
	m := map[string]any{}
	datasetConditions(m, nil)
	q, _ := m["quality"].(string)
	if !strings.Contains(q, "unknown (unrated)") || strings.Contains(q, "goodput is 0") {
		t.Errorf("quality text %q: want goodput unknown (unrated), as card and compare print it, not 0", q)
	}
}
