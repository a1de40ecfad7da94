package lab

import (
	"errors"
	"slices"
	"testing"
)

// The runs alternate A, B, A, B and are named name-i; the first error
// stops them.
func TestRepeatABAlternates(t *testing.T) {
	var order []string
	a, b, err := repeatAB(3, "slots1", "slots4", func(name string, side, i int) error {
		order = append(order, name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"slots1-1", "slots4-1", "slots1-2", "slots4-2", "slots1-3", "slots4-3"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	if !slices.Equal(a, []string{"slots1-1", "slots1-2", "slots1-3"}) || !slices.Equal(b, []string{"slots4-1", "slots4-2", "slots4-3"}) {
		t.Errorf("names %v %v", a, b)
	}
	order = nil
	boom := errors.New("engine did not start")
	if _, _, err := repeatAB(3, "a", "b", func(name string, side, i int) error {
		order = append(order, name)
		if name == "b-2" {
			return boom
		}
		return nil
	}); !errors.Is(err, boom) || len(order) != 4 {
		t.Errorf("stopped with %v after %v", err, order)
	}
	if _, _, err := repeatAB(0, "a", "b", nil); err == nil {
		t.Error("no run a side was accepted")
	}
}
