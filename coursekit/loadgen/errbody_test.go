package loadgen

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// An HTML error page is said to be one, with its title or first line of
// text, cut at a word's end; any other body is kept as it is.
func TestErrorBody(t *testing.T) {
	long := strings.Repeat("word ", 60)
	for _, c := range []struct {
		ct, body, want string
	}{
		{"text/html", "<html><head><title>\n  502 Bad &amp; Gateway\n</title></head><body>x</body></html>", `an HTML page titled "502 Bad & Gateway" (a web page, not an API's answer)`},
		{"", "<!doctype html><html><head><style>p{}</style></head><body>\n<p>Not <b>here</b></p>\n<p>two</p>", `an HTML page that begins "Not here" (a web page, not an API's answer)`},
		{"text/html", "<html><title></title><body></body></html>", "an HTML page without text (a web page, not an API's answer)"},
		{"application/json", `{"error":{"message":"model not found"}}`, `{"error":{"message":"model not found"}}`},
		{"text/plain", "<b>not html</b>\nsecond line", "<b>not html</b>\nsecond line"},
	} {
		if got := errorBody(c.ct, []byte(c.body)); got != c.want {
			t.Errorf("%s %q:\n got %q\nwant %q", c.ct, c.body, got, c.want)
		}
	}
	got := errorBody("text/html", []byte("<title>"+long+"</title>"))
	if n := utf8.RuneCountInString(got); n > 200 || !strings.Contains(got, `word…"`) {
		t.Errorf("a long title: %d runes, %q", n, got)
	}
}
