package review

import (
	"regexp"
	"strings"
)

// The note column of manual-review.csv holds grade's notes for the
// instructor and whatever the instructor typed. grade's notes are one
// block, GradeNoteMark + notes ("; "-separated) + GradeNoteEnd; each run
// finds the block wherever it is in the cell, replaces it with this
// run's notes (or removes it), and keeps every other character of the
// cell as typed: text before the block, after it, whatever separates it
// (" | ", a space, a new line, "。").
//
// Inside this package a note is handled with GradeNoteMark in front
// (noteChanged, keptNote, ...); addNote joins them and joinNote writes
// them into a cell as the block.

// oldGradeNotes begin the English notes an earlier coursekit wrote,
// "; "-separated: still grade's, so removed, never kept as a person's
// text.
var oldGradeNotes = []string{"answer changed since it was scored", "kept from an earlier run", "same answer as ", "rescaled from ", "set aside: ", "no score was changed"}

// legacyNote matches, at the start of a string, one note an earlier
// coursekit wrote with GradeNoteMark in front and no GradeNoteEnd: the
// texts it wrote, so that where the note ends is known and the text a
// person typed after it ("…没有改动 | 老师：…", "…没有改动。老师：…") is
// kept.
var legacyNote = regexp.MustCompile(`^` + regexp.QuoteMeta(GradeNoteMark) + `(?:` + strings.Join([]string{
	legacyPattern(noteChanged),
	legacyPattern(keptNote),
	legacyPattern(noteRescaled),
	legacyPattern(noteSetAside),
	legacyPattern(zeroNote) + `(?:：[0-9.]+/[0-9.]+（权重恢复前计 0 分）)?`,
	`与 .*?的答案相同（不计空白）：请核对是否抄袭，分数没有改动`,
}, "|") + `)`)

// legacyPattern is a note constant as a pattern, its %s a number.
func legacyPattern(note string) string {
	q := regexp.QuoteMeta(strings.TrimPrefix(note, GradeNoteMark))
	return strings.ReplaceAll(q, "%s", `[0-9.]+`)
}

// parsedNote is a note cell taken apart: grade's notes (each with
// GradeNoteMark in front) and the rest, the text before and after
// grade's block (found says there was one).
type parsedNote struct {
	grade         []string
	before, after string
	found         bool
}

// parseNote takes a note cell apart.
func parseNote(cell string) parsedNote {
	var p parsedNote
	i := strings.Index(cell, GradeNoteMark)
	if i < 0 {
		p.before = dropOldNotes(cell, &p)
		return p
	}
	p.found = true
	p.before = dropOldNotes(cell[:i], &p)
	rest := cell[i:]
	for rest != "" {
		// rest begins with GradeNoteMark: one block (or an earlier
		// coursekit's note) to take out.
		body, next := "", len(rest)
		if j, k := strings.Index(rest, GradeNoteEnd), strings.Index(rest[len(GradeNoteMark):], GradeNoteMark); j >= 0 && (k < 0 || j < k+len(GradeNoteMark)) {
			body, next = rest[len(GradeNoteMark):j], j+len(GradeNoteEnd)
		} else if m := legacyNote.FindString(rest); m != "" {
			body, next = strings.TrimPrefix(m, GradeNoteMark), len(m)
		} else {
			// A note of grade's it does not know: up to the end of its
			// line or its "; ".
			body = rest[len(GradeNoteMark):]
			if e := strings.IndexAny(body, "\n"); e >= 0 {
				body = body[:e]
			}
			if e := strings.Index(body, "; "); e >= 0 {
				body = body[:e]
			}
			next = len(GradeNoteMark) + len(body)
		}
		for _, n := range strings.Split(body, "; ") {
			if n = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(n), GradeNoteMark)); n != "" {
				p.grade = append(p.grade, GradeNoteMark+n)
			}
		}
		rest = rest[next:]
		// An earlier coursekit joined its notes with "; ".
		if strings.HasPrefix(rest, "; "+GradeNoteMark) {
			rest = rest[2:]
			continue
		}
		k := strings.Index(rest, GradeNoteMark)
		if k < 0 {
			p.after += dropOldNotes(rest, &p)
			break
		}
		p.after += dropOldNotes(rest[:k], &p)
		rest = rest[k:]
	}
	return p
}

// dropOldNotes is s without the "; "-separated parts that are an earlier
// coursekit's English notes (kept in p.grade); s itself, verbatim, when
// it has none.
func dropOldNotes(s string, p *parsedNote) string {
	parts := strings.Split(s, "; ")
	kept := parts[:0:0]
	for _, part := range parts {
		t := strings.TrimSpace(part)
		old := false
		for _, o := range oldGradeNotes {
			old = old || strings.HasPrefix(t, o)
		}
		if old {
			p.found = true
			continue
		}
		kept = append(kept, part)
	}
	if len(kept) == len(parts) {
		return s
	}
	return strings.Join(kept, "; ")
}

// joinNote is the note cell with grade's notes note (addNote-joined,
// GradeNoteMark in front of each; "" for none) in place of the ones the
// cell typed held, and everything else in typed kept as it was: the
// block replaces the old one where it was, or goes first.
func joinNote(note, typed string) string {
	p := parseNote(typed)
	var block string
	if note != "" {
		var bodies []string
		for _, n := range strings.Split(note, "; ") {
			if n = strings.TrimSpace(strings.TrimPrefix(n, GradeNoteMark)); n != "" {
				bodies = append(bodies, n)
			}
		}
		block = GradeNoteMark + strings.Join(bodies, "; ") + GradeNoteEnd
	}
	switch {
	case block == "":
		// Nothing of grade's now: the person's text, without the
		// separator that stood between it and grade's block.
		s := strings.TrimSpace(p.before + p.after)
		if strings.TrimSpace(p.before) == "" {
			s = strings.TrimSpace(strings.TrimLeft(s, "|;；"))
		}
		return s
	case !p.found:
		if t := strings.TrimSpace(typed); t != "" {
			return block + " " + t
		}
		return block
	}
	return p.before + block + p.after
}

// notePart is grade's note in a note cell that begins with prefix
// (GradeNoteMark in front), or "".
func notePart(cell, prefix string) string {
	for _, n := range parseNote(cell).grade {
		if strings.HasPrefix(n, prefix) {
			return n
		}
	}
	return ""
}

// addNote is grade's notes note with part added ("; "-separated), once.
func addNote(note, part string) string {
	switch {
	case part == "":
		return note
	case note == "":
		return part
	}
	for _, n := range strings.Split(note, "; ") {
		if n == part {
			return note
		}
	}
	return note + "; " + part
}
