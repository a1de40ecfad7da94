package class_test

import (
	"encoding/json"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts/class"
)

// The value axis of the horizontal class charts is named under its
// ticks, centred (nameLocation "middle", with a gap), not at the axis's
// end, where "人" floated alone past the last tick.
func TestClassChartAxisNames(t *testing.T) {
	for name, c := range map[string]interface{ JSON() map[string]any }{
		"pass rates": class.PassRates([]string{"a", "b"}, []int{1, 2}, 2),
		"mistakes":   class.Mistakes([]string{"a"}, []int{1}, 2),
	} {
		b, err := json.Marshal(c.JSON())
		if err != nil {
			t.Fatal(err)
		}
		var o struct {
			X []struct {
				Type, Name, NameLocation string
				NameGap                  int
			} `json:"xAxis"`
		}
		if err := json.Unmarshal(b, &o); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, x := range o.X {
			if x.Type != "value" {
				continue
			}
			found = true
			if x.Name == "" || x.NameLocation != "middle" || x.NameGap < 20 {
				t.Errorf("%s: value axis %+v: want a name centred under the ticks", name, x)
			}
		}
		if !found {
			t.Errorf("%s: no horizontal value axis in %s", name, b)
		}
	}
}
