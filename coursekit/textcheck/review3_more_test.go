package textcheck

import (
	"os"
	"path/filepath"
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

// Event gaps are not ITL (the glossary's rule) in what an engineer reads
// either: `coursekit card -h` lists what the card computes without calling
// its event gaps ITL, docs/engineers.md never says "per-event ITL" or
// "the card's ITL", and where it lists the JSON key itl_ms it says the key
// holds event gaps.
func TestEngineersReadEventGapsNotITL(t *testing.T) {
	cli := readRepoFile(t, "docs/cli.md")
	purpose := regexp.MustCompile(`(?m)^  card +(.*)$`).FindStringSubmatch(cli)
	if purpose == nil || strings.Contains(purpose[1], "ITL") {
		t.Errorf("docs/cli.md (coursekit -h): the card's purpose %q calls its event gaps ITL", purpose)
	}
	eng := readRepoFile(t, "docs/engineers.md")
	for _, never := range []string{"per-event ITL", "card's ITL", "card's per-event"} {
		if strings.Contains(eng, never) {
			t.Errorf("docs/engineers.md says %q: the card's event gaps are not ITL", never)
		}
	}
	key := strings.Index(eng, "`itl_ms{")
	if key < 0 || !strings.Contains(eng[key:min(len(eng), key+600)], "event gaps") {
		t.Errorf("docs/engineers.md lists the JSON key itl_ms without saying it holds event gaps")
	}
}

func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
