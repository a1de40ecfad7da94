package csvhead

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"id", "criterion", "score", "Score"}, `columns "score" (column 3) and "Score" (column 4) differ only in case`},
		{[]string{"\ufeffid", "ID"}, `columns "id" (column 1) and "ID" (column 2)`},
		{[]string{"id", " id"}, `column "id" appears twice (columns 1 and 2)`},
		{[]string{"lms_id", "LMS_ID"}, `differ only in case`},
		{[]string{"id", "\u212a", "k"}, `differ only in case`}, // Kelvin sign
	} {
		err := Check(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want …%s…", c.in, err, c.want)
		}
	}
	for _, ok := range [][]string{{"id", "name", "", ""}, {"id", "score", "notes"}} {
		if err := Check(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}
