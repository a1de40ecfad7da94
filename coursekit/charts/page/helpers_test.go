package page_test

import (
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

const dataDir = "../../../data/unit01/"

func readTrace(t testing.TB, name string) *trace.Trace {
	t.Helper()
	tr, err := trace.ReadFile(dataDir + name)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
