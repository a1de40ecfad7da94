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

// Each side's engine starts once, every run of a side gets that one
// engine, and both are stopped when the runs end, also after a failed run.
func TestRepeatOnEnginesStartsEachSideOnce(t *testing.T) {
	fake := writeFake(t, "")
	a := EngineSide{Name: "slots1", Engine: Engine{Python: python3(t), Serve: fake}}
	b := EngineSide{Name: "slots4", Engine: Engine{Python: python3(t), Serve: fake, Parallel: 4}}
	for _, failAt := range []string{"", "slots1-2"} {
		seen := map[int][]*EngineProcess{}
		boom := errors.New("the load failed")
		err := repeatOnEngines(3, a, b, func(p *EngineProcess, name string, side, i int) error {
			seen[side] = append(seen[side], p)
			if name == failAt {
				return boom
			}
			return nil
		})
		if failAt == "" && err != nil || failAt != "" && !errors.Is(err, boom) {
			t.Fatalf("fail at %q: err %v", failAt, err)
		}
		runs := map[int]int{0: 3, 1: 3}
		if failAt != "" {
			runs = map[int]int{0: 2, 1: 1}
		}
		for side, ps := range seen {
			if len(ps) != runs[side] {
				t.Errorf("fail at %q: side %d ran %d times, want %d", failAt, side, len(ps), runs[side])
			}
			for _, p := range ps {
				if p != ps[0] {
					t.Errorf("fail at %q: side %d's runs got different engines", failAt, side)
				}
			}
			select {
			case <-ps[0].done:
			default:
				t.Errorf("fail at %q: side %d's engine still runs after the runs ended", failAt, side)
			}
		}
		if seen[0][0] == seen[1][0] || seen[1][0].Info.Parallel != 4 || seen[0][0].Info.Parallel != 1 {
			t.Errorf("fail at %q: the sides share an engine or have the wrong one: %+v, %+v", failAt, seen[0][0].Info, seen[1][0].Info)
		}
	}
}
