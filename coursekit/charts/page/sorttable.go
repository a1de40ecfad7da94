package page

import (
	"html"
	"strings"

	"github.com/llmperf-course/course/coursekit/lang"
)

type sortTablePart struct {
	id   string
	head []string
	rows [][]string
}

// SortableTable is a table whose rows sort by a column when its header is
// clicked (again: the other way). Cells are text, escaped; a column whose
// cells start with a number ("12/30") sorts by that number, blank cells
// last. The sorting is a few lines of inline script: the page stays
// offline. id names the table (it must be unique on the page).
func SortableTable(id string, head []string, rows [][]string) Part {
	return sortTablePart{id, head, rows}
}

// sortScript sorts the rows of table ID by the clicked column.
const sortScript = `<script>
(function () {
  var t = document.getElementById(%q);
  if (!t) return;
  var heads = t.tHead.rows[0].cells;
  function key(td) {
    var s = td.textContent.trim();
    var n = parseFloat(s);
    return {blank: s === "", num: /^-?[0-9]/.test(s) && !isNaN(n), n: n, s: s};
  }
  function cmp(a, b) {
    if (a.blank || b.blank) return (a.blank ? 1 : 0) - (b.blank ? 1 : 0);
    if (a.num && b.num) return a.n - b.n;
    if (a.num !== b.num) return a.num ? -1 : 1;
    return a.s.localeCompare(b.s, "zh-CN");
  }
  Array.prototype.forEach.call(heads, function (th, col) {
    th.addEventListener("click", function () {
      var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
      var body = t.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (x, y) {
        var a = key(x.cells[col]), b = key(y.cells[col]);
        if (a.blank !== b.blank) return cmp(a, b); // blanks last either way
        return dir * cmp(a, b);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
})();
</script>
`

func (p sortTablePart) pageHTML(lang.Lang) (string, error) {
	t := tableHTML(`id="`+html.EscapeString(p.id)+`" class="class-table sortable"`, ` title="点击排序"`, ";cursor:pointer", p.head, p.rows)
	return t + strings.Replace(sortScript, "%q", jsString(p.id), 1), nil
}

// jsString is s as a JavaScript string literal that is safe inside a
// <script> element.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "<", `\u003c`, ">", `\u003e`, "&", `\u0026`, "\n", `\n`, "\r", `\r`, "\u2028", `\u2028`, "\u2029", `\u2029`)
	return `"` + r.Replace(s) + `"`
}
