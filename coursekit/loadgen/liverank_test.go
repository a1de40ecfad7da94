package loadgen

import (
	"math"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// The live view's percentiles are the card's nearest rank (⌈p·n⌉), not
// HdrHistogram's rounded rank: of the real engine's 12 TTFTs the done line
// said P95 ≈391 ms, the 11th, where the card said 709, the 12th. Every n
// from 1 to 200 and every level the live view prints, against the exact
// nearest rank of the same values (distinct, so that a wrong rank shows).
func TestLiveRankIsTheCards(t *testing.T) {
	for n := 1; n <= 200; n++ {
		h := hdrhistogram.New(1, 3_600_000_000, 3)
		for i := 1; i <= n; i++ {
			if err := h.RecordValue(int64(i) * 1000); err != nil { // i ms, in µs
				t.Fatal(err)
			}
		}
		for _, p := range []float64{0.50, 0.95, 0.99} {
			want := float64(metrics.NearestRankIndex(n, p) + 1)
			// Neighbouring values are 1 ms apart; the histogram keeps 3
			// significant digits (at most 0.2 ms off at 200 ms).
			if got := nearestRank(h, p); math.Abs(got-want) >= 0.5 {
				t.Fatalf("n %d, P%g: %g ms, want the %g-th value, %g ms", n, p*100, got, want, want)
			}
		}
	}
}
