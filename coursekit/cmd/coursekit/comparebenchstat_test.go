package main

import (
	"strings"
	"testing"
)

// compare's help said it judged "as benchstat judges by runs"; benchstat
// tests runs with a Mann–Whitney U test at alpha 0.05, which 3 runs
// against 3 cannot pass, while compare takes Welch's t over the runs. The
// help says what compare does and how benchstat differs.
func TestCompareHelpSaysHowItDiffersFromBenchstat(t *testing.T) {
	h := commandHelp("compare", flagSetOf("compare"))
	if strings.Contains(h, "as benchstat judges") || !strings.Contains(h, "Mann-Whitney U") || !strings.Contains(h, "Welch's t over the runs") {
		t.Errorf("compare's help claims benchstat's judgement, or does not say how compare differs:\n%s", h)
	}
}
