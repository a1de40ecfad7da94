package textcheck

import (
	"regexp"
	"strings"
	"testing"
)

// More of the third review of unit 01, one rule each.

// vLLM moves its latency timestamp only on chunks that carry choices; the
// final usage chunk comes later with choices: []. So its E2EL ends at the
// last chunk with choices, not at the last chunk: a line that ends E2EL
// at 最后一个数据块 or 最后一块 says which chunk (the review found it in 00,
// 02 and 05, beside a TPOT row that said it right).
var lastChunk = regexp.MustCompile(`最后一个数据块|最后一块`)

func TestVLLME2ELEndsAtTheLastChunkWithChoices(t *testing.T) {
	for _, c := range notebookCells(t) {
		for _, line := range strings.Split(c.source, "\n") {
			for _, clause := range strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune("。；", r) }) {
				if strings.Contains(strings.ToUpper(clause), "E2EL") && lastChunk.MatchString(clause) && !strings.Contains(clause, "choices") {
					t.Errorf("%s: %q: vLLM's E2EL ends at the last chunk with choices (最后一个带 choices 的数据块); the usage chunk after it does not count",
						c.where, strings.TrimSpace(clause))
				}
			}
		}
	}
}
