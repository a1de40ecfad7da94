package main

import (
	"strings"
	"testing"
)

// guidellm's file holds only each request's first-token time: the
// comparison's itl_ms rows have no ITL of ours, and the reason says the
// file has no per-event times, not a difference of method. AIPerf's file
// has them: its itl_ms rows keep the method's reason.
func TestImportITLRowsWithoutEventTimes(t *testing.T) {
	for _, c := range []struct{ lang, want, not string }{
		{"en", "the file has no per-event times (at most one event per request), so there is no ITL of ours to compare", "per-request average per token; ours: per event"},
		{"zh", "文件里没有逐事件的时间（每个请求至多一个事件），所以没有我们的 ITL 可比", "工具：每个请求内逐 token 的平均；我们：逐事件"},
	} {
		code, errs := runCLIStderr(t, "import", "--lang", c.lang, "--from", "guidellm", importData+"guidellm081_faults_benchmarks.json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.lang, code, errs)
		}
		rows := 0
		for _, l := range strings.Split(errs, "\n") {
			if !strings.HasPrefix(l, "itl_ms ") {
				continue
			}
			rows++
			if !strings.Contains(l, "n=0") || !strings.HasSuffix(l, c.want) || strings.Contains(l, c.not) {
				t.Errorf("%s: %q; want the no-event-times reason", c.lang, l)
			}
		}
		if rows == 0 {
			t.Errorf("%s: no itl_ms row:\n%s", c.lang, errs)
		}
	}
	_, errs := runCLIStderr(t, "import", "--lang", "en", "--from", "aiperf", importData+"aiperf_profile_export.jsonl")
	if strings.Contains(errs, "no per-event times") {
		t.Errorf("AIPerf's file has event times:\n%s", errs)
	}
}

// The malformed-SSE note of an AIPerf import names the ok attempts it
// might concern and says the file cannot tell which: not "such attempts
// are ok in this trace", as if some were.
func TestImportAIPerfMalformedNoteCounts(t *testing.T) {
	for _, c := range []struct{ file, lang, want string }{
		{"aiperf_profile_export.jsonl", "en", "no telling how many of the 2 ok attempts in this trace were such streams (maybe none)"},
		{"aiperf_profile_export.jsonl", "zh", "无法判断本 trace 的 2 次 ok 尝试里有几次是这种流（可能一次也没有）"},
		{"aiperf013_faults_profile_export.jsonl", "en", "no telling how many of the 28 ok attempts in this trace"},
	} {
		code, errs := runCLIStderr(t, "import", "--lang", c.lang, "--from", "aiperf", importData+c.file)
		if code != 0 || !strings.Contains(errs, c.want) || strings.Contains(errs, "such attempts are ok in this trace") {
			t.Errorf("%s %s: exit %d; want %q:\n%s", c.file, c.lang, code, c.want, errs)
		}
	}
}
