package coursekit_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// topLevel is what the repository's root holds under version control: the
// course's shape (notebooks/, coursekit/, data/, docker/, go.mod,
// README.md) and the files that build and document it. A stray file a
// command left at the root (a walk's crash.out was committed once) fails
// here, not in a learner's clone.
var topLevel = []string{".ci", ".dockerignore", ".gitignore", "Makefile", "README.md", "course.go", "coursekit", "data", "docker", "docs", "go.mod", "go.sum", "notebooks"}

func TestRepositoryRootHoldsOnlyTheCourse(t *testing.T) {
	out, err := exec.Command("git", "-C", "..", "ls-files").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var stray []string
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		top, _, _ := strings.Cut(f, "/")
		if !slices.Contains(topLevel, top) && !slices.Contains(stray, top) {
			stray = append(stray, top)
		}
	}
	if len(stray) > 0 {
		t.Errorf("tracked at the repository's root but not part of the course: %q (remove them, or add them to topLevel with a reason)", stray)
	}
}
