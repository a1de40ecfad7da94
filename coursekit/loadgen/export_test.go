package loadgen

import "time"

// SetScrapeTimeout replaces the timeout of one scrape until the returned
// func restores it.
func SetScrapeTimeout(d time.Duration) (restore func()) {
	old := scrapeTimeout
	scrapeTimeout = d
	return func() { scrapeTimeout = old }
}
