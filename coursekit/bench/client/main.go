// Command client is the analysis half of `make bench-client` (run.sh is
// the driver): it matches each client's per-request TTFT with the
// simulator's server-side truth and prints the comparison table.
//
//	go run ./coursekit/bench/client row --client go --rate 1000 --expected 5000 \
//	    --truth truth.json --in trace.jsonl            # one JSON row on stdout
//	go run ./coursekit/bench/client table rows.jsonl  # the Markdown table
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench-client:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: row … | table ROWS.jsonl")
	}
	switch args[0] {
	case "row":
		fs := flag.NewFlagSet("row", flag.ContinueOnError)
		client := fs.String("client", "go", "go (a coursekit trace) or aiperf (profile_export.jsonl)")
		label := fs.String("label", "", "client name in the table (default: --client)")
		rate := fs.Float64("rate", 0, "target rate, requests/s")
		expected := fs.Int("expected", 0, "requests the schedule plans")
		truthPath := fs.String("truth", "", "GET /debug/truth of the run")
		in := fs.String("in", "", "the client's per-request export")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *rate <= 0 || *truthPath == "" || *in == "" {
			return fmt.Errorf("row: --rate, --truth and --in are required")
		}
		truth, err := readTruthFile(*truthPath)
		if err != nil {
			return err
		}
		var samples []Sample
		switch *client {
		case "go":
			samples, err = ReadGo(*in)
		case "aiperf":
			var f *os.File
			if f, err = os.Open(*in); err == nil {
				samples, err = ReadAIPerf(f)
				f.Close()
			}
		default:
			return fmt.Errorf("row: unknown client %q", *client)
		}
		if err != nil {
			return err
		}
		name := *label
		if name == "" {
			name = *client
		}
		b, _ := json.Marshal(Compare(name, *rate, *expected, samples, truth))
		fmt.Fprintf(stdout, "%s\n", b)
		return nil
	case "table":
		if len(args) != 2 {
			return fmt.Errorf("usage: table ROWS.jsonl")
		}
		f, err := os.Open(args[1])
		if err != nil {
			return err
		}
		defer f.Close()
		var rows []Row
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			var r Row
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return err
			}
			rows = append(rows, r)
		}
		if err := sc.Err(); err != nil {
			return err
		}
		WriteTable(stdout, rows)
		return nil
	}
	return fmt.Errorf("unknown command %q", args[0])
}

// WriteTable prints the rows as a Markdown table, then each client's
// sustainable rate (the highest tried rate that met the rule) and the
// ratio between the first two clients.
func WriteTable(w io.Writer, rows []Row) {
	fmt.Fprintln(w, "| rate (req/s) | client | n | err p50 (ms) | err p99 (ms) | lag p99 (ms) | achieved (req/s) | sustainable? |")
	fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---|")
	best, keeps, top := map[string]float64{}, map[string]float64{}, map[string]float64{}
	var order []string
	for _, r := range rows {
		top[r.Client] = max(top[r.Client], r.Rate)
		if _, ok := best[r.Client]; !ok {
			best[r.Client] = 0
			order = append(order, r.Client)
		}
		verdict := "yes"
		if !r.OK {
			verdict = "no: " + r.Why
		} else if r.Rate > best[r.Client] {
			best[r.Client] = r.Rate
		}
		if r.Keeps && r.Rate > keeps[r.Client] {
			keeps[r.Client] = r.Rate
		}
		fmt.Fprintf(w, "| %g | %s | %d | %.3f | %.3f | %.2f | %.0f | %s |\n",
			r.Rate, r.Client, r.N, r.ErrP50, r.ErrP99, r.LagP99, r.Achieved, verdict)
	}
	fmt.Fprintln(w)
	say := func(what string, m map[string]float64) {
		ge := func(c string) string { // met at the highest rate tried: a lower bound
			if m[c] == top[c] {
				return "≥ "
			}
			return ""
		}
		for _, c := range order {
			if m[c] > 0 {
				fmt.Fprintf(w, "%s, %s: %s%g req/s\n", what, c, ge(c), m[c])
			} else {
				fmt.Fprintf(w, "%s, %s: none of the rates tried\n", what, c)
			}
		}
		if len(order) >= 2 {
			a, b := m[order[0]], m[order[1]]
			switch {
			case b > 0 && b == top[order[1]]:
				fmt.Fprintf(w, "%s ratio %s / %s: not determined (%s met it at its highest rate tried: try higher rates)\n", what, order[0], order[1], order[1])
			case a > 0 && b > 0:
				fmt.Fprintf(w, "%s ratio %s / %s: %s%.1fx\n", what, order[0], order[1], ge(order[0]), a/b)
			case a > 0:
				fmt.Fprintf(w, "%s ratio %s / %s: unbounded (%s met it at no rate tried)\n", what, order[0], order[1], order[1])
			}
		}
	}
	say("sustainable rate (error p99 < 1 ms and keeps the rate)", best)
	say("capacity (keeps the rate, error not bounded)", keeps)
}
