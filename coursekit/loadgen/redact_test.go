package loadgen

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// Query values whose key looks secret are redacted like a password; the
// rest of the URL is kept as written.
func TestRedactURLQuery(t *testing.T) {
	for in, want := range map[string]string{
		"http://h/?api_key=sk-1":                     "http://h/?api_key=xxxxx",
		"http://h/metrics?token=t&x=1":               "http://h/metrics?token=xxxxx&x=1",
		"http://h/?access_token=a&AUTH=b&password=c": "http://h/?access_token=xxxxx&AUTH=xxxxx&password=xxxxx",
		"http://h/?secret=s&sig=g&X-Amz-Signature=z": "http://h/?secret=xxxxx&sig=xxxxx&X-Amz-Signature=xxxxx",
		"http://u:pw@h/?key=k":                       "http://xxxxx@h/?key=xxxxx",
		"http://u:pw@h/":                             "http://xxxxx@h/",
		"http://user@h/#frag":                        "http://xxxxx@h/",
		"http://h/?pw=1&sas=2&access=3&sv=4#f":       "http://h/?pw=xxxxx&sas=xxxxx&access=xxxxx&sv=4",
		"http://h/v1?model=m&stream=1":               "http://h/v1?model=m&stream=1",
		"http://h/cb?code=c0de&state=1":              "http://h/cb?code=xxxxx&state=1",
		"http://h/?Code=c0de&encode=utf8&zipcode=1":  "http://h/?Code=xxxxx&encode=utf8&zipcode=1",
		"http://127.0.0.1:8000":                      "http://127.0.0.1:8000",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
	c := &http.Client{Timeout: 2 * time.Second}
	_, err := c.Get("http://127.0.0.1:1/metrics?token=tk-s3cret")
	if err == nil {
		t.Skip("something answers on port 1")
	}
	if msg := redactErr(err); strings.Contains(msg, "tk-s3cret") || !strings.Contains(msg, "token=xxxxx") {
		t.Errorf("redactErr: %q", msg)
	}
}
