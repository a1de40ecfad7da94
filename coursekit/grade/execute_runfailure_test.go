package grade

import (
	"strings"
	"testing"
	"time"
)

// A failing cell is named by its position and first line, with the panic
// GoNB printed rather than the checker's generic complaint, even when the
// kernel flushed the panic line in two stream outputs.
func TestRunFailureQuotesTheCell(t *testing.T) {
	executed := []byte(`{"cells": [
	 {"cell_type": "markdown", "source": "# x", "outputs": []},
	 {"cell_type": "code", "source": ["%%\n", "var xs []int\n", "fmt.Println(xs[3])\n"], "outputs": [
	  {"output_type": "stream", "name": "stderr", "text": "panic: "},
	  {"output_type": "stream", "name": "stderr", "text": ["runtime error: index out of range [3] with length 0\n", "\n", "goroutine 1 [running]:\n"]},
	  {"output_type": "display_data", "data": {"text/html": "<div class=\"gonb-err-location\">…</div>"}},
	  {"output_type": "error", "ename": "ERROR", "evalue": "exit status 2", "traceback": []}]}]}`)
	log := "== x\nFAIL /tmp/w/submission.ipynb: cell 1: GoNB error HTML (gonb-err-location) in output\n"
	msg, detail := runFailure(log, executed, time.Minute)
	want := "从头重新运行时第 2 个单元格（以“var xs []int”开头）出错：panic: runtime error: index out of range [3] with length 0"
	if msg != want || !strings.Contains(detail, "gonb-err-location") {
		t.Errorf("runFailure =\n%q, %q\nwant\n%q", msg, detail, want)
	}
	msg, _ = runFailure("FAIL x: notebook: CellTimeoutError: A cell timed out", nil, 20*time.Second)
	if msg != "有一个单元格的运行超过了每个单元格 20s 的时限。" {
		t.Errorf("timeout message %q", msg)
	}
}
