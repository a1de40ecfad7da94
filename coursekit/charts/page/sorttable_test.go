package page

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/lang"
)

// A sortable table escapes every cell and header, and its id cannot
// leave the script's string.
func TestSortableTableEscapes(t *testing.T) {
	h, err := SortableTable(`x"</script><b>`, []string{"<th>"}, [][]string{{"<img src=x onerror=alert(1)>"}}).pageHTML(lang.ZH)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<img", "<th><th>", "</script><b>"} {
		if strings.Contains(h, bad) {
			t.Errorf("unescaped %q in\n%s", bad, h)
		}
	}
	for _, want := range []string{"&lt;img src=x onerror=alert(1)&gt;", `getElementById("x\"\u003c/script\u003e\u003cb\u003e")`, "addEventListener(\"click\""} {
		if !strings.Contains(h, want) {
			t.Errorf("lacks %q in\n%s", want, h)
		}
	}
}
