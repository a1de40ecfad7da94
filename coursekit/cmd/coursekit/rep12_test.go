package main

import (
	"strings"
	"testing"
)

// The report's TTFT chart draws one P95, the card's: its caption says so
// in both languages, not "two percentile methods give two P95s" (issue 35).
func TestReportTTFTCaptionOneP95(t *testing.T) {
	for _, c := range []struct {
		lang, want, stale string
	}{
		{"en", "the vertical line is the P95 on the card (nearest-rank)", "two P95s"},
		{"zh", "竖线是指标卡上的 P95（最近秩）", "两种分位算法给出不同的 P95"},
	} {
		code, page, stderr := runCLI(t, "report", "--lang", c.lang, unitTrace)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.lang, code, stderr)
		}
		if !strings.Contains(page, c.want) {
			t.Errorf("%s: caption lacks %q", c.lang, c.want)
		}
		if strings.Contains(page, c.stale) {
			t.Errorf("%s: caption still says %q", c.lang, c.stale)
		}
	}
}
