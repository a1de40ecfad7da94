package loadgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Arrival is an open-loop arrival process.
type Arrival string

// The arrival processes. Gamma with burstiness 1 is Poisson; below 1 it
// is burstier (clumps and lulls at the same mean rate), above 1 smoother.
const (
	Constant Arrival = "constant"
	Poisson  Arrival = "poisson"
	Gamma    Arrival = "gamma"
)

// ParseArrival maps a flag value to an Arrival.
func ParseArrival(s string) (Arrival, error) {
	switch a := Arrival(s); a {
	case Constant, Poisson, Gamma:
		return a, nil
	}
	return "", fmt.Errorf("unknown arrival %q (want constant, poisson or gamma)", s)
}

// Gaps returns a generator of inter-arrival gaps for rate requests/s.
// Gamma gaps have shape burstiness and scale 1/(rate·burstiness), as in
// vLLM's benchmark, so the mean rate is the same for every burstiness.
// Unlike vLLM, the schedule is not rescaled to end exactly at N/rate: it is
// a free-running process, and the same seed gives the same schedule.
func Gaps(a Arrival, rate, burstiness float64, seed uint64) (func() time.Duration, error) {
	if !(rate > 0) || math.IsInf(rate, 0) {
		return nil, fmt.Errorf("rate must be a positive number of requests/s, got %g", rate)
	}
	r := rand.New(rand.NewPCG(seed, 0x6c6f6164)) // "load"
	mean := float64(time.Second) / rate
	switch a {
	case Constant:
		return func() time.Duration { return time.Duration(mean) }, nil
	case Poisson:
		return func() time.Duration { return time.Duration(r.ExpFloat64() * mean) }, nil
	case Gamma:
		if !(burstiness > 0) || math.IsInf(burstiness, 0) {
			return nil, fmt.Errorf("burstiness must be positive, got %g", burstiness)
		}
		return func() time.Duration { return time.Duration(gamma(r, burstiness) / burstiness * mean) }, nil
	}
	return nil, fmt.Errorf("unknown arrival %q", a)
}

// gamma draws from Gamma(k, 1) (Marsaglia and Tsang, 2000).
func gamma(r *rand.Rand, k float64) float64 {
	if k < 1 {
		return gamma(r, k+1) * math.Pow(r.Float64(), 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
