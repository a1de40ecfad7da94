package assign

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/roster"
	"github.com/llmperf-course/course/coursekit/grade/secret"
)

// ReleaseMarker is the file Assign writes into its DIR: the fingerprint of
// the key the release was made with (never the key), so that a second
// assign with another key does not silently overwrite every learner's
// notebook and trace.
const ReleaseMarker = ".coursekit-release"

// CheckRelease reports whether assign may write into outDir with key: the
// folder is new, or was released with the same key (by its marker, or, for
// a release without one, by the first learner notebook found there).
func CheckRelease(key []byte, roster *roster.Roster, notebookName, outDir string) error {
	fp := secret.KeyFingerprint(key)
	if b, err := os.ReadFile(filepath.Join(outDir, ReleaseMarker)); err == nil {
		if got := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(b)), "key_fingerprint=")); got != fp {
			return fmt.Errorf("%s was released with another key (fingerprint %s, this key's is %s): assigning again would overwrite every learner's notebook and trace with ones the earlier key cannot grade. Use the key of that release, another --out, or --force", outDir, got, fp)
		}
		return nil
	}
	for _, l := range roster.Learners {
		b, err := os.ReadFile(filepath.Join(outDir, l.ID, notebookName))
		if err != nil {
			continue
		}
		if nb, err := notebook.ParseNotebook(b); err == nil && nb.Assignment != nil && !nb.Assignment.Verify(key) {
			return fmt.Errorf("%s: its release record does not verify with this key: %s was released with another key. Use the key of that release, another --out, or --force", filepath.Join(outDir, l.ID, notebookName), outDir)
		}
		return nil
	}
	return nil
}

func writeReleaseMarker(key []byte, outDir string) error {
	return os.WriteFile(filepath.Join(outDir, ReleaseMarker), []byte("key_fingerprint="+secret.KeyFingerprint(key)+"\n"), 0o644)
}
