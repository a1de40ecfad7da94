package metrics

// Throughput is what the window delivered per second. The denominator is
// the fixed measurement window (the same as goodput's): attempts are
// counted by their send time in it, so an attempt sent in the window that
// ends after it still counts.
type Throughput struct {
	// CompleteSuccesses is complete successes / window second.
	CompleteSuccesses Ratio `json:"complete_successes_per_s"`
	// Attempts is every in-window attempt, failures included / window second.
	Attempts Ratio `json:"attempts_per_s"`
	// OutputTokens is the output tokens of complete successes (the server's
	// usage when it reports it, else the tokens the events carried) /
	// window second.
	OutputTokens Ratio  `json:"output_tokens_per_s"`
	Window       string `json:"window"`
	// EndedAfterWindow counts the attempts counted above that ended after
	// the window closed (after its end; one ending at its end ended within
	// it): sent in the window, they
	// drained past it. The rates above keep them (the course's
	// definition); a rate of what ended within the window would not.
	// EndedWithinWindow counts the others that have ended; an attempt
	// still in flight is in neither (Summary.InFlight).
	EndedAfterWindow  EndedCounts `json:"ended_after_window"`
	EndedWithinWindow EndedCounts `json:"ended_within_window"`
}

// EndedCounts counts in-window attempts (by send time) by when they ended.
type EndedCounts struct {
	Attempts          int64 `json:"attempts"`
	CompleteSuccesses int64 `json:"complete_successes"`
}

// The throughput ratios' units.
const (
	UnitSuccessesPerS = "complete successes / window second"
	UnitAttemptsPerS  = "attempts / window second"
	UnitTokensPerS    = "output tokens of complete successes / window second"
	ThroughputWindow  = "the fixed measurement window (attempts by send time), the denominator of goodput"
)

func newThroughput(s *Summary, tokens int64, late EndedCounts) Throughput {
	return Throughput{
		CompleteSuccesses: NewRatio(float64(s.CompleteSuccess), s.WindowS, UnitSuccessesPerS),
		Attempts:          NewRatio(float64(s.Attempts), s.WindowS, UnitAttemptsPerS),
		OutputTokens:      NewRatio(float64(tokens), s.WindowS, UnitTokensPerS),
		Window:            ThroughputWindow,
		EndedAfterWindow:  late,
		EndedWithinWindow: EndedCounts{Attempts: s.Attempts - s.InFlight - late.Attempts, CompleteSuccesses: s.CompleteSuccess - late.CompleteSuccesses},
	}
}
