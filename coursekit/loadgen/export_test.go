package loadgen

import "time"

// SetScrapeTimeout replaces the timeout of one scrape until the returned
// func restores it.
func SetScrapeTimeout(d time.Duration) (restore func()) {
	old := scrapeTimeout
	scrapeTimeout = d
	return func() { scrapeTimeout = old }
}

// SetPreflightTimeout replaces the pre-flight request's timeout until the
// returned func restores it.
func SetPreflightTimeout(d time.Duration) (restore func()) {
	old := preflightTimeout
	preflightTimeout = d
	return func() { preflightTimeout = old }
}

// SetPlainProbeAfter replaces how long a TLS handshake may go unanswered
// before the pre-flight asks plain HTTP, until the returned func restores it.
func SetPlainProbeAfter(d time.Duration) (restore func()) {
	old := plainProbeAfter
	plainProbeAfter = d
	return func() { plainProbeAfter = old }
}
