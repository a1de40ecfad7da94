package main

import (
	"regexp"
	"strings"
	"testing"
)

// flagHelp is the help text of one flag in a command's help, its lines
// joined with single spaces.
func flagHelp(t *testing.T, help, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)\n  --` + regexp.QuoteMeta(name) + `\b[^\n]*\n(.*?)(\n  --|\n\n|$)`).FindStringSubmatch(help)
	if m == nil {
		t.Fatalf("no --%s in the help:\n%s", name, help)
	}
	return strings.Join(strings.Fields(m[1]), " ")
}

// card, report and compare judge a trace under its recorded SLO set when
// no --slo-* flag is given, latency SLOs included, so their latency SLO
// flags do not say "default: none" (walk 35g F9); bench's, whose trace
// records what its flags say, do.
func TestLatencySLOHelpNamesTheRecordedDefault(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"card", "(default: the trace's recorded SLO (conditions.slo), none if it has none; any --slo-* flag replaces the whole recorded set)"},
		{"report", "(default: the trace's recorded SLO (conditions.slo), none if it has none; any --slo-* flag replaces the whole recorded set)"},
		{"compare", "(default: the first A trace's recorded SLO (conditions.slo), none if it has none; any --slo-* flag replaces the whole recorded set)"},
		{"bench", "(default: none)"},
	} {
		h := commandHelp(tc.cmd, flagSetOf(tc.cmd))
		for _, f := range []string{"slo-e2e", "slo-itl-p95", "slo-tpot"} {
			if got := flagHelp(t, h, f); !strings.HasSuffix(got, tc.want) {
				t.Errorf("%s --%s: %q, want it to end %q", tc.cmd, f, got, tc.want)
			}
		}
	}
}
