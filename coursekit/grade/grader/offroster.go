package grader

import (
	"fmt"
	"sync"

	"github.com/llmperf-course/course/coursekit/grade/assign"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
)

// FindNotOnRoster: the notebook carries a valid signed release record for
// a learner the roster does not list. The key made that record, so the
// learner was released to: the roster is probably out of date. The work is
// graded against the record's variant, and the instructor is told.
const FindNotOnRoster = "not_on_roster"

// offRoster holds the variants of learners graded by a signed record but
// missing from the roster, made on first use.
type offRoster struct {
	mu sync.Mutex
	v  map[string]*variantInfo
}

// variantOf is learner's variant: the roster's, else one regenerated from
// the key for a learner only a signed record names.
func (g *Grader) variantOf(learner string) (*variantInfo, error) {
	if v, ok := g.variants[learner]; ok {
		return v, nil
	}
	g.off.mu.Lock()
	defer g.off.mu.Unlock()
	if v, ok := g.off.v[learner]; ok {
		return v, nil
	}
	b, err := assign.Variant(g.o.Key, learner)
	if err != nil {
		return nil, err
	}
	v, err := newVariantInfo(learner, b)
	if err != nil {
		return nil, err
	}
	if g.off.v == nil {
		g.off.v = map[string]*variantInfo{}
	}
	g.off.v[learner] = v
	return v, nil
}

// notOnRosterFinding is the note on a submission graded for a learner the
// roster lacks: not the learner's mistake, so it is not a warning to them.
func notOnRosterFinding(learner string) integrity.Finding {
	return integrity.Finding{Code: FindNotOnRoster,
		Message: "名单可能过期：这份笔记本带有老师签发的发放记录，按发放记录评分。这不是你的问题，老师会更新名单。",
		Detail:  fmt.Sprintf("learner %s is not on the roster, but the notebook's release record for %s verifies with the key: add %s to the roster", learner, learner, learner)}
}
