package loadgen

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// docs/engineers.md says over how many seconds the progress line's rate
// is taken, the span the code uses (RateSpan), not "since the previous
// line", which a one-send second after a 1.5/s line contradicted (walk 35).
func TestProgressRateDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/engineers.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	i := strings.Index(doc, "Its rate is the sends per second")
	if i < 0 {
		t.Fatal("docs/engineers.md does not say what the progress line's rate is")
	}
	say := doc[i:]
	say = say[:strings.Index(say, ";")]
	if want := fmt.Sprintf("over the last %g s", RateSpan.Seconds()); !strings.Contains(say, want) {
		t.Errorf("the docs say %q; want it to name the span the code uses (%q)", say, want)
	}
	if strings.Contains(say, "since the previous line;") || strings.HasSuffix(say, "since the previous line") {
		t.Errorf("the docs say the rate is since the previous line: %q", say)
	}
}
