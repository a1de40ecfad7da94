package labfig_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/llmperf-course/course/coursekit/web"
)

// chart is what every function of the package returns.
type chart interface {
	web.Snippeter
	JSON() map[string]interface{}
}

// option is the chart's ECharts option as indented JSON, after go-echarts
// has validated it (RenderSnippet runs the validation).
func option(t testing.TB, c chart) []byte {
	t.Helper()
	c.RenderSnippet()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c.JSON()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// decoded is the option as generic JSON, to look values up in tests.
func decoded(t testing.TB, c chart) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(option(t, c), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

const evil = `</script><img src=x onerror=alert(1)>`

var scriptSrc = regexp.MustCompile(`(?i)<script[^>]*\ssrc\s*=`)
