package batch

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
)

// The class report names everyone: each roster learner with no
// submission, each file whose learner is unknown (by its unknown-N name
// and file name), each ungradable file with its reason. A count alone
// leaves the instructor to find who is missing.

// FindSameAnswer: the learner's free-text answer is word for word another
// learner's. An info finding for the person who reads the answers: it
// never changes a score (the instructor decides).
const FindSameAnswer = "same_free_text"

// MinSameAnswerRunes is the shortest answer (whitespace not counted)
// compared for copies: short answers such as "同上" or "不知道" are the
// same by chance, a sentence of 15 characters rarely is.
const MinSameAnswerRunes = 15

// MaxNamedOthers is how many others one learner's same-answer finding
// names (the class report names them all): a template answer shared by a
// whole class would otherwise put every name in every feedback file.
const MaxNamedOthers = 5

// SameAnswer is one free-text answer handed in by two or more learners.
type SameAnswer struct {
	Criterion, Title string
	Learners         []string
	Text             string // the answer, whitespace normalised
}

// normAnswer is an answer with every run of whitespace made one space.
func normAnswer(s string) string { return strings.Join(strings.Fields(s), " ") }

// markSameAnswers finds free-text answers (the graded submission of each
// learner) that are identical once all whitespace is removed, and at least
// MinSameAnswerRunes long, and gives each learner involved one finding
// naming the others, per question.
func (b *Batch) markSameAnswers() {
	type key struct{ crit, text string }
	groups := map[key][]string{}
	var keys []key
	title := map[string]string{}
	text := map[key]string{} // as the first learner wrote it
	for _, l := range b.Learners() {
		s, ok := b.Chosen[l.ID]
		if !ok || !s.Gradable {
			continue
		}
		s.Integrity = slices.DeleteFunc(s.Integrity, func(f integrity.Finding) bool { return f.Code == FindSameAnswer })
		for _, m := range s.Manual {
			// Compared with no whitespace at all: a line break or a space
			// between Chinese characters changes nothing.
			t := strings.Join(strings.Fields(m.Text), "")
			if utf8.RuneCountInString(t) < MinSameAnswerRunes {
				continue
			}
			k := key{m.ID, t}
			if len(groups[k]) == 0 {
				keys = append(keys, k)
				text[k] = normAnswer(m.Text)
			}
			if !slices.Contains(groups[k], l.ID) {
				groups[k] = append(groups[k], l.ID)
			}
			title[m.ID] = m.Title
		}
	}
	b.Same = nil
	order := criteria.CriterionIDs()
	slices.SortStableFunc(keys, func(x, y key) int { return slices.Index(order, x.crit) - slices.Index(order, y.crit) })
	per := map[string][]string{} // learner → "“title”与 a、b 相同"
	perEn := map[string][]string{}
	for _, k := range keys {
		ids := groups[k]
		if len(ids) < 2 {
			continue
		}
		b.Same = append(b.Same, SameAnswer{Criterion: k.crit, Title: title[k.crit], Learners: ids, Text: text[k]})
		for _, id := range ids {
			others := slices.DeleteFunc(slices.Clone(ids), func(x string) bool { return x == id })
			zh, en := strings.Join(others, "、"), strings.Join(others, ", ")
			if len(others) > MaxNamedOthers {
				zh = fmt.Sprintf("%s 等 %d 人", strings.Join(others[:MaxNamedOthers], "、"), len(others))
				en = fmt.Sprintf("%s and %d more", strings.Join(others[:MaxNamedOthers], ", "), len(others)-MaxNamedOthers)
			}
			per[id] = append(per[id], fmt.Sprintf("“%s”与 %s 的答案相同", title[k.crit], zh))
			perEn[id] = append(perEn[id], k.crit+": "+en)
		}
	}
	for _, l := range b.Learners() {
		if len(per[l.ID]) == 0 {
			continue
		}
		s := b.Chosen[l.ID]
		s.Integrity = append(s.Integrity, integrity.Finding{Code: FindSameAnswer, Private: true,
			Message: "文字题答案与别人的一字不差（不计空白）：" + strings.Join(per[l.ID], "；") + "。阅读时请核对，这一条本身不改变分数。",
			Detail:  "same free-text answer as " + strings.Join(perEn[l.ID], "; ")})
	}
}
