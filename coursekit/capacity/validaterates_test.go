package capacity

import (
	"strings"
	"testing"
	"time"
)

// A max rate refused for being at the start rate names the rate the
// resolution also needs, so that the next try is not refused for the
// resolution (issue 35: --start-rate 0.5 --max-rate 0.5, then --max-rate 1
// refused for --resolution 1); the resolution's own refusal names both
// ways out. What Validate accepts is unchanged.
func TestValidateNamesBothRateFixes(t *testing.T) {
	base := Config{Target: 0.9, SLOTTFTMS: 1000, StartRate: 0.5, Growth: 2, Resolution: 1,
		StepDuration: time.Second, StepMaxDuration: 2 * time.Second, OutDir: "steps"}
	for _, c := range []struct {
		max  float64
		want string
	}{
		{0.5, "max rate 0.5 must be above the start rate 0.5 plus the resolution 1 req/s, that is above 1.5"},
		{0.2, "max rate 0.2 must be above the start rate 0.5 plus the resolution 1 req/s, that is above 1.5"},
		{1, "resolution 1 req/s is not smaller than the searched range [0.5, 1]: lower the resolution below 0.5 or raise the max rate above 1.5"},
		{1.5, "resolution 1 req/s is not smaller than the searched range [0.5, 1.5]: lower the resolution below 1 or raise the max rate above 1.5"},
		{1.6, ""},
	} {
		cfg := base
		cfg.MaxRate = c.max
		err := cfg.Validate()
		if c.want == "" {
			if err != nil {
				t.Errorf("max %g: %v", c.max, err)
			}
			continue
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("max %g: %v\nwant %s", c.max, err, c.want)
		}
	}
	// Without a usable resolution the max rate is refused as before.
	cfg := base
	cfg.MaxRate, cfg.Resolution = 0.5, 0
	if err := cfg.Validate(); err == nil || strings.Contains(err.Error(), "resolution") {
		t.Errorf("resolution 0: %v", err)
	}
}
