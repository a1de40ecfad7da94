package loadgen

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxHTMLExcerpt is how much of an HTML error page's title or text an
// attempt's error keeps.
const maxHTMLExcerpt = 120

var (
	htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	htmlDrop  = regexp.MustCompile(`(?is)<(script|style|head)[^>]*>.*?</(script|style|head)>|<!--.*?-->`)
	htmlBlock = regexp.MustCompile(`(?i)<(/?(p|div|h[1-6]|br|hr|li|ul|ol|tr|td|th|table|pre|body|html|section|header|footer|main)\b[^>]*|!doctype[^>]*)>`)
	htmlTag   = regexp.MustCompile(`(?s)<[^>]*>`)
)

// isHTML: an error response's body is a web page, by its Content-Type or
// its first bytes.
func isHTML(ct string, body []byte) bool {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "text/html") {
		return true
	}
	b := bytes.ToLower(bytes.TrimSpace(body))
	return bytes.HasPrefix(b, []byte("<!doctype html")) || bytes.HasPrefix(b, []byte("<html"))
}

// errorBody is what an attempt's error says of an error response's body:
// an HTML page (a web server, a proxy's error page, not an inference
// server) as a short note with its <title>, else the first line of its
// text, at most maxHTMLExcerpt characters (the page's markup and line
// breaks, printed raw, hid what it said); any other body as it is.
func errorBody(ct string, body []byte) string {
	if !isHTML(ct, body) {
		return string(body)
	}
	if m := htmlTitle.FindSubmatch(body); m != nil {
		if t := oneLine(htmlTag.ReplaceAllString(string(m[1]), " ")); t != "" {
			return `an HTML page titled "` + cutWords(t, maxHTMLExcerpt) + `" (a web page, not an API's answer)`
		}
	}
	// Block tags end a line, inline ones (<b>, <a>) do not.
	text := htmlTag.ReplaceAllString(htmlBlock.ReplaceAllString(htmlDrop.ReplaceAllString(string(body), "\n"), "\n"), "")
	for line := range strings.Lines(text) {
		if line = oneLine(line); line != "" {
			return `an HTML page that begins "` + cutWords(line, maxHTMLExcerpt) + `" (a web page, not an API's answer)`
		}
	}
	return "an HTML page without text (a web page, not an API's answer)"
}

// oneLine is s's text with entities decoded and its spaces and line
// breaks collapsed to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(html.UnescapeString(s)), " ") }

// cutWords is s when it is at most n runes, else cut to n runes at a
// word's end, with "…".
func cutWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	if i := strings.LastIndexByte(string(r), ' '); i >= len(string(r))*2/3 {
		return string(r)[:i] + "…"
	}
	return string(r) + "…"
}
