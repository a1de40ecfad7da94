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
	var sides, is []int
	err := repeatAB(3, "slots1", "slots4", func(name string, side, i int) error {
		order, sides, is = append(order, name), append(sides, side), append(is, i)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"slots1-1", "slots4-1", "slots1-2", "slots4-2", "slots1-3", "slots4-3"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	if !slices.Equal(sides, []int{0, 1, 0, 1, 0, 1}) || !slices.Equal(is, []int{1, 1, 2, 2, 3, 3}) {
		t.Errorf("sides %v, runs %v", sides, is)
	}
	if got := Repeats("slots1", 3); !slices.Equal(got, []string{"slots1-1", "slots1-2", "slots1-3"}) {
		t.Errorf("Repeats: %v", got)
	}
	order = nil
	boom := errors.New("engine did not start")
	if err := repeatAB(3, "a", "b", func(name string, side, i int) error {
		order = append(order, name)
		if name == "b-2" {
			return boom
		}
		return nil
	}); !errors.Is(err, boom) || len(order) != 4 {
		t.Errorf("stopped with %v after %v", err, order)
	}
	if err := repeatAB(0, "a", "b", nil); err == nil {
		t.Error("no run a side was accepted")
	}
}
