package loadgen

import (
	"net/http"
	"testing"
)

// A token shorter than 8 bytes is hidden where it stands as a whole value
// (a header echo, a JSON value, a URL's query value or path segment), in
// every escaped form, and nowhere else: a token "a" leaves the text's
// other a's alone. A longer token is hidden wherever it appears.
func TestHiderShortTokensByContext(t *testing.T) {
	hide := func(tok string) *Hide { return Hider(http.Header{"Authorization": {"Bearer " + tok}}) }
	for _, c := range []struct{ tok, in, want string }{
		{"a", "401: bad key Bearer a", "401: bad key Bearer xxxxx"},
		{"a", "echo: Authorization: Bearer a\n", "echo: Authorization: Bearer xxxxx\n"},
		{"a", "authorization:a, then", "authorization:xxxxx, then"},
		{"a", `{"error":{"key": "a"}}`, `{"error":{"key": "xxxxx"}}`},
		{"a", "Location: /login/a", "Location: /login/xxxxx"},
		{"a", `redirect to "http://h/?key=a&x=1"`, `redirect to "http://h/?key=xxxxx&x=1"`},
		{"k", "bearer k bearer k", "bearer xxxxx bearer xxxxx"},
		{"s3/c+t!", `"k":"s3/c+t!" ?t=s3%2Fc%2Bt%21 Bearer s3/c+t!`, `"k":"xxxxx" ?t=xxxxx Bearer xxxxx`},
		{"sk-0123456789", "prefix sk-0123456789suffix", "prefix xxxxxsuffix"},
		// Ordinary text keeps its letters.
		{"a", "a cat ate a banana", "a cat ate a banana"},
		{"a", `{"a":1,"answer":"a b"}`, `{"a":1,"answer":"a b"}`},
		{"a", "Bearer ab and Bearer ba", "Bearer ab and Bearer ba"},
		{"v", "POST http://127.0.0.1:8000/v1/completions", "POST http://127.0.0.1:8000/v1/completions"},
		{"ok", "recorded 3 (ok 3); the answer is ok", "recorded 3 (ok 3); the answer is ok"},
		{"A", "bearer a", "bearer a"},
	} {
		if got := hide(c.tok).Replace(c.in); got != c.want {
			t.Errorf("token %q: %q → %q, want %q", c.tok, c.in, got, c.want)
		}
	}
	if Hider(http.Header{}) != nil || Hider(http.Header{"Authorization": {"Bearer "}}) != nil {
		t.Error("no token: want a nil Hide")
	}
	var none *Hide
	if none.Replace("x") != "x" {
		t.Error("a nil Hide changed its text")
	}
}
