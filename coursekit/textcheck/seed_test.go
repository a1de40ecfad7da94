package textcheck

import (
	"os"
	"testing"
)

// The seed (the unit's source text, the spec the notebooks teach from) is
// not in the repository: testdata/seed.fingerprint holds the hash of every
// CopyRun-character Chinese window of it, which is all the copy check
// needs. To rebuild it from a copy of the seed:
//
//	SEED_TEXT=/path/to/seed.txt go test ./coursekit/textcheck -run TestSeedFingerprint
const fingerprintFile = "testdata/seed.fingerprint"

func seedFingerprint(t *testing.T) map[uint64]bool {
	t.Helper()
	b, err := os.ReadFile(fingerprintFile)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := ParseFingerprint(string(b))
	if err != nil {
		t.Fatalf("%s: %v", fingerprintFile, err)
	}
	// The seed has about 3,000 Chinese characters: far more windows than this.
	if len(fp) < 1000 {
		t.Fatalf("%s holds %d windows: not the seed's fingerprint", fingerprintFile, len(fp))
	}
	return fp
}

func TestSeedFingerprint(t *testing.T) {
	path := os.Getenv("SEED_TEXT")
	if path == "" {
		seedFingerprint(t) // the committed file is well-formed and full
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := FormatFingerprint(Fingerprint(string(b)))
	if old, _ := os.ReadFile(fingerprintFile); string(old) == want {
		return
	}
	if err := os.WriteFile(fingerprintFile, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("rewrote %s from %s", fingerprintFile, path)
}
