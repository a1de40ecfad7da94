package nb

import (
	"errors"
	"strings"
	"testing"
)

func TestMustReturnsTheValueWhenThereIsNoError(t *testing.T) {
	if got := Must(42, nil); got != 42 {
		t.Fatalf("Must(42, nil) = %v", got)
	}
	Check(nil) // must not panic
}

func TestMustStopsWithTheOriginalErrorInside(t *testing.T) {
	base := errors.New("trace.jsonl:3: attempt \"R2\": start_ms: missing required field")
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok {
			t.Fatalf("Must did not panic with an error: %v", r)
		}
		if !errors.Is(err, base) || !strings.HasPrefix(err.Error(), "单元格在这里停下了") || !strings.Contains(err.Error(), "trace.jsonl:3") {
			t.Fatalf("panic %q should start in Chinese and keep FILE:LINE", err)
		}
	}()
	Must(0, base)
	t.Fatal("Must returned after an error")
}
