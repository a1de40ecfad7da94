package main

//go:generate go test -run ^TestCLIReference$ -count=1 -update

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/importer"
)

// The help layer. Each command keeps its FlagSet and flag definitions in
// its own cmdX function; this file only holds the words around them
// (purpose, usage line, flag groups, examples). `coursekit CMD -h` makes
// cmdX define its flags and stop in parse with a *helpRequest, so the
// help, the README's CLI section and the completion scripts all list
// exactly the flags the command parses, a flag added later included.

// cmdDoc is the text of one command's help.
type cmdDoc struct {
	name     string
	purpose  string   // one line, lower case, no full stop
	usage    []string // usage lines, without the leading "coursekit "
	details  string   // optional paragraph after the purpose
	groups   []flagGroup
	examples []string
	// metavars names a flag's argument in the help (-o FILE); other
	// flags get one from their type (DURATION, N, X) or their name.
	metavars map[string]string
	// values lists the fixed values of a flag, for the completion scripts.
	values map[string][]string
}

// flagGroup is a titled run of flags in a long help. A name ending in *
// matches every flag with that prefix. Flags in no group are listed under
// "flags" (or "other flags" after groups), so a new flag always shows.
type flagGroup struct {
	title string
	flags []string
}

// docs is the help table, in the order of the global list.
var docs = []cmdDoc{
	{
		name:    "card",
		purpose: "compute the metrics card of a trace: denominators, TTFT, event gaps and TPOT, goodput, cost per 1,000 qualified",
		usage:   []string{"card [flags] TRACE"},
		details: "Failures stay in every denominator, a missing TTFT is missing (not 0), percentiles are\n" +
			"nearest-rank unless --percentile linear, and each --slo-ttft adds a condition side by side.\n" +
			"--slo-e2e, --slo-itl-p95 and --slo-tpot join every condition, judged per attempt; without a\n" +
			"quality judge (no dataset, no rated attempt) a complete success then qualifies on latency alone.\n" +
			"The card measures the gaps between streamed events, which are ITL only when every event carries\n" +
			"one token; TPOT is the mean gap between tokens. The JSON key itl_ms (unit \"event\") and the flag\n" +
			"--slo-itl-p95 keep vLLM's name ITL for these event gaps.\n" +
			"TRACE - reads standard input (named stdin), as card, report, compare, csv and export all do.",
		examples: []string{
			"coursekit card data/unit01/trace.jsonl",
			"coursekit bench --rate 5 --duration 10s --out - | coursekit card -",
			"coursekit card data/unit01/trace.jsonl --slo-ttft 1s --slo-ttft 500ms",
			"coursekit card trace.jsonl --slo-ttft 1s --slo-e2e 5s --slo-itl-p95 50ms --slo-tpot 40ms",
			"coursekit card trace.jsonl --percentile linear --format json > card.json",
			"coursekit card trace.jsonl --lang en   # English; COURSEKIT_LANG=en sets the default",
		},
		values:   map[string][]string{"percentile": {"nearest-rank", "linear"}, "format": {"text", "markdown", "json"}},
		metavars: map[string]string{"percentile": "METHOD", "cpuprofile": "FILE", "memory": "SIZE"},
	},
	{
		name:    "compare",
		purpose: "compare runs of A and B metric by metric: B − A with a 95% interval and a verdict, and which conditions changed",
		usage:   []string{"compare [flags] A.jsonl B.jsonl", "compare [flags] A1.jsonl A2.jsonl … -- B1.jsonl B2.jsonl …"},
		details: "Laid out as benchstat's: each metric of A and B (the mean of a side's runs, each run's value from its card), B − A,\n" +
			"the relative change, a 95% interval of B − A with its method, and better, worse or ~ (the interval holds 0).\n" +
			"One run a side: percentiles by the bootstrap over attempts (an attempt's event gaps drawn together),\n" +
			"failure and qualified rates by Newcombe's hybrid score interval, goodput and tokens/s by Poisson score\n" +
			"intervals; between-run variance is not covered.\n" +
			"Several runs a side: a hierarchical bootstrap (runs, then attempts). Several runs on both sides: every\n" +
			"interval also holds Welch's t over the runs' own values (the hull; goodput and tokens/s by Welch's t alone;\n" +
			"benchstat instead tests runs by Mann-Whitney U at alpha 0.05, which needs >= 4 runs a side). A percentile\n" +
			"a short run leaves unbounded takes Welch's t over the runs alone. The headers' conditions are compared, the server (scheme://host:port of the\n" +
			"URL) among them: every one that differs is listed, with a warning when more than one does; the seed tells\n" +
			"replicates apart and is listed, never a changed condition. A run belongs to one side, but for the A/A\n" +
			"check (the same runs on both sides); a run with no attempt in its window is refused.",
		examples: []string{
			"coursekit compare slots1.jsonl slots4.jsonl",
			"coursekit compare a1.jsonl a2.jsonl a3.jsonl -- b1.jsonl b2.jsonl b3.jsonl",
			"coursekit compare a.jsonl b.jsonl --slo-ttft 500ms --format json > ab.json",
			"coursekit compare a1.jsonl a2.jsonl -- b1.jsonl b2.jsonl --chart ab.html --lang en",
		},
		values:   map[string][]string{"percentile": {"nearest-rank", "linear"}, "format": {"text", "markdown", "json"}},
		metavars: map[string]string{"percentile": "METHOD", "memory": "SIZE", "chart": "FILE"},
	},
	{
		name:     "gen",
		purpose:  "write a seeded practice trace (open-loop Poisson arrivals, retries, timeouts)",
		usage:    []string{"gen [flags]"},
		metavars: map[string]string{"o": "FILE"},
		examples: []string{
			"coursekit gen -o practice.jsonl",
			"coursekit gen --seed 7 --requests 500 --rate 50 -o practice.jsonl",
			"coursekit gen --requests 1000000 --rate 200 -o big.jsonl   # the card benchmark's trace",
		},
	},
	{
		name:     "csv",
		purpose:  "print a trace as CSV, one row per attempt (for spreadsheets and gota); export --format csv",
		usage:    []string{"csv [flags] TRACE"},
		metavars: map[string]string{"o": "FILE"},
		examples: []string{
			"coursekit csv data/unit01/trace.jsonl",
			"coursekit csv trace.jsonl -o attempts.csv",
		},
	},
	{
		name:    "export",
		purpose: "write a trace as Parquet for a warehouse (or as CSV), one row per attempt",
		usage:   []string{"export [--format parquet|csv] TRACE -o FILE"},
		details: "Parquet keeps the trace's field names, events as a list of {t_ms, tokens} structs, null for\n" +
			"what was not recorded, and the header line in the file's key-value metadata (llm-serving/header).",
		metavars: map[string]string{"o": "FILE", "format": "FORMAT"},
		values:   map[string][]string{"format": {"parquet", "csv"}},
		examples: []string{
			"coursekit export trace.jsonl -o attempts.parquet",
			"coursekit export --format csv trace.jsonl -o attempts.csv",
		},
	},
	{
		name:    "sql",
		purpose: "print the card's core as one SQL query over Parquet exports, for DuckDB or Spark",
		usage:   []string{"sql [--dialect duckdb|spark] [--slo-ttft D ...] [--slo-e2e D] [--window-cost C] PARQUET..."},
		details: "One row per --slo-ttft: attempts, failures, in-flight, outside-window, TTFT/E2E/ITL nearest-rank\n" +
			"percentiles, qualified, goodput and cost per 1,000 qualified, equal to coursekit card's numbers.",
		metavars: map[string]string{"dialect": "DIALECT"},
		values:   map[string][]string{"dialect": {"duckdb", "spark"}},
		examples: []string{
			"coursekit sql attempts.parquet --slo-ttft 1s --slo-ttft 500ms > card.sql",
			"coursekit sql --dialect spark part-*.parquet > card.sql",
		},
	},
	{
		name:     "report",
		purpose:  "write one self-contained offline HTML page with the card and the charts of a trace (and the server's request gauges when its header names a metrics sidecar)",
		usage:    []string{"report [flags] TRACE"},
		metavars: map[string]string{"o": "FILE", "memory": "SIZE"},
		examples: []string{
			"coursekit report data/unit01/trace.jsonl -o report.html",
			"coursekit bench --rate 5 --duration 10s --out - | coursekit report - -o report.html",
			"coursekit report trace.jsonl --slo-ttft 1s --slo-ttft 300ms -o report.html",
			"coursekit report trace.jsonl --lang en -o report-en.html",
			"coursekit report big.jsonl --memory 512MiB -o report.html   # any size: the per-attempt charts draw a sample and say so",
		},
	},
	{
		name:    "sim",
		purpose: "run an OpenAI-compatible streaming simulator: continuous batching, fault injection, server-side truth",
		usage:   []string{"sim [flags]"},
		details: "Serves POST /v1/completions and /v1/chat/completions (SSE), GET /v1/models, /metrics and\n" +
			"/debug/truth (what the server really did, per request) until Ctrl-C.",
		groups: []flagGroup{
			{"server", []string{"addr", "model", "seed", "truth-limit", "busy-window", "preset"}},
			{"timing and batching", []string{"max-batch", "prefill-per-token", "decode-step", "decode-per-seq", "slowdown"}},
			{"output length", []string{"max-tokens", "output-cap", "min-output", "tokens-per-event"}},
			{"faults (each a fraction of requests, 0 to 1)", []string{"fail-*"}},
			{"answers to arith questions (bench --dataset arith)", []string{"wrong-answer-*"}},
			{"profiling", []string{"cpuprofile"}},
		},
		examples: []string{
			"coursekit sim",
			"coursekit sim --max-batch 8 --decode-step 20ms --fail-503 0.05 --fail-reset 0.02",
			"coursekit sim --preset bench --addr 127.0.0.1:8001   # a server that never limits the client",
			"coursekit sim --wrong-answer-rate 0.2               # fast, but a fifth of its answers wrong",
		},
		values:   map[string][]string{"preset": {"bench"}},
		metavars: map[string]string{"addr": "HOST:PORT", "cpuprofile": "FILE", "preset": "NAME"},
	},
	{
		name:    "bench",
		purpose: "load an OpenAI-compatible server and record every attempt as a trace",
		usage: []string{
			"bench [flags] --rate R [--arrival constant|poisson|gamma] --out TRACE    (open loop)",
			"bench [flags] --concurrency N [--think-time D] --out TRACE               (closed loop)",
			"bench [flags] --replay TRACE --out TRACE                                 (open loop, replayed)",
		},
		details: "Each attempt is one trace row, failures and retries included; the card reads the file.",
		groups: []flagGroup{
			{"server and requests", []string{"url", "api", "model", "max-tokens", "prompt-tokens", "ignore-eos", "continuous-usage", "api-key-env", "no-preflight"}},
			{"prompts and quality (judged during the run)", []string{"dataset"}},
			{"open loop (arrivals on a schedule fixed in advance)", []string{"rate", "arrival", "burstiness", "replay", "max-concurrency", "seed"}},
			{"closed loop", []string{"concurrency", "think-time"}},
			{"window and timeouts", []string{"duration", "num-requests", "warmup", "timeout"}},
			{"retries", []string{"retries", "retry-backoff"}},
			{"the card's SLOs and percentiles (recorded in the header as conditions.slo and conditions.percentiles; the card's default)", []string{"slo-*", "percentiles"}},
			{"output", []string{"out", "progress", "cpuprofile", "metrics-url", "metrics-interval"}},
		},
		examples: []string{
			"coursekit bench --url http://127.0.0.1:8000 --rate 20 --duration 60s --warmup 10s --out trace.jsonl",
			"coursekit bench --concurrency 16 --duration 30s --out closed.jsonl",
			"coursekit bench --rate 5 --arrival gamma --burstiness 0.5 --retries 2 --out bursty.jsonl",
			"coursekit bench --url http://127.0.0.1:8000 --dataset arith --rate 50 --duration 5s --out arith.jsonl",
		},
		values:   map[string][]string{"api": {"completions", "chat"}, "arrival": {"constant", "poisson", "gamma"}},
		metavars: map[string]string{"out": "FILE", "replay": "TRACE", "cpuprofile": "FILE", "api-key-env": "VAR", "arrival": "KIND", "dataset": "NAME|FILE"},
	},
	{
		name:    "capacity",
		purpose: "search the open-loop rate for the highest at which joint qualification meets a target",
		usage:   []string{"capacity [flags] --dataset NAME|FILE --slo-ttft D --target F --out DIR"},
		details: "Each step is a bench run with warm-up and window, its trace kept in --out; its verdict comes from\n" +
			"the 95 % Wilson interval of qualified / attempts (failures included): meets, fails or undecided.",
		groups: []flagGroup{
			{"server and requests", []string{"url", "api", "model", "max-tokens", "prompt-tokens", "timeout", "dataset", "seed"}},
			{"qualification", []string{"slo-*", "target"}},
			{"search", []string{"start-rate", "max-rate", "growth", "resolution", "warmup", "step-duration", "step-max-duration"}},
			{"output", []string{"out", "format"}},
		},
		examples: []string{
			"coursekit capacity --url http://127.0.0.1:8000 --dataset arith --slo-ttft 1s --target 0.9 --out steps",
			"coursekit capacity --dataset arith --start-rate 5 --resolution 2 --format json --out steps > capacity.json",
		},
		values:   map[string][]string{"api": {"completions", "chat"}, "format": {"text", "json"}},
		metavars: map[string]string{"out": "DIR", "dataset": "NAME|FILE"},
	},
	{
		name:    "import",
		purpose: "convert another tool's result file to a trace and print its numbers beside the card",
		usage:   []string{"import --from TOOL [flags] FILE"},
		details: "The comparison table (stderr) names the reason for every difference: failures dropped,\n" +
			"linear percentiles, per-request ITL averages, guidellm's total TTFT, AIPerf's malformed streams\n" +
			"counted as successes, and so on.",
		examples: []string{
			"coursekit import --from vllm result.json -o vllm.jsonl",
			"coursekit import --from aiperf profile_export.jsonl --summary profile_export_aiperf.json -o aiperf.jsonl",
			"coursekit import --from guidellm benchmarks.json --run 2 -o guidellm.jsonl",
		},
		values:   map[string][]string{"from": importer.Tools},
		metavars: map[string]string{"from": "TOOL", "o": "FILE", "summary": "FILE", "dataset": "NAME|FILE"},
	},
	{
		name:     "key",
		purpose:  "make the instructor's secret key file (refuses to overwrite one)",
		usage:    []string{"key new FILE"},
		examples: []string{"coursekit key new course.key", "coursekit key new unit02.key"},
	},
	{
		name:     "assign",
		purpose:  "release the deliverable: per learner, a variant trace and a signed copy of the notebook",
		usage:    []string{"assign --roster ROSTER --key-file KEY --out DIR [flags]"},
		metavars: map[string]string{"roster": "CSV", "key-file": "KEY", "out": "DIR", "notebook": "IPYNB"},
		examples: []string{
			"coursekit assign --roster roster.csv --key-file course.key --out release",
			"coursekit assign --roster roster.csv --key-file course.key --out release --notebook my-06.ipynb",
		},
	},
	{
		name:    "grade",
		purpose: "grade submitted deliverable notebooks without running learner code (or re-run them in the course image)",
		usage: []string{
			"grade --key-file KEY --roster ROSTER --out DIR [flags] SUBMISSION.ipynb|DIR|LMS.zip...",
			"grade --gradescope ROOT [--key-file KEY] [--roster ROSTER]",
		},
		groups: []flagGroup{
			{"grading", []string{"key-file", "roster", "out", "manual", "public-trace", "max-bytes", "quiet", "no-key-check"}},
			{"re-run in the course image (--execute)", []string{"execute", "engine", "image", "release", "cell-timeout", "timeout", "jobs", "memory", "keep-executed", "engine-args"}},
			{"Gradescope", []string{"gradescope"}},
		},
		examples: []string{
			"coursekit grade --key-file course.key --roster roster.csv --out graded submissions/",
			"coursekit grade --key-file course.key --roster roster.csv --out graded --manual graded/manual-review.csv lms-download.zip",
			"coursekit grade --key-file course.key --roster roster.csv --out graded --execute --jobs 2 submissions/",
		},
		values: map[string][]string{"engine": {"podman", "docker"}},
		metavars: map[string]string{"roster": "CSV", "key-file": "KEY", "out": "DIR", "manual": "CSV", "public-trace": "TRACE",
			"gradescope": "ROOT", "release": "IPYNB", "engine-args": "ARGS", "memory": "SIZE"},
	},
	{
		name:    "collect",
		purpose: "gather every learner's deliverable from a hub's volumes or user folders into one folder for grade",
		usage: []string{
			"collect --volumes TEMPLATE --out DIR [flags]",
			"collect --dirs ROOT [--layout TEMPLATE] --out DIR [flags]",
		},
		details: "Read-only on the learners' files (symlinks never followed); writes DIR/<id>.ipynb per learner and\n" +
			"DIR/collected.csv; lists learners with no deliverable; keeps every candidate of a learner who has several.",
		examples: []string{
			"coursekit collect --volumes 'llmperf-course-{username}' --roster roster.csv --out submissions",
			"coursekit collect --dirs /home --layout '{username}/work' --out submissions",
		},
		values:   map[string][]string{"engine": {"podman", "docker"}},
		metavars: map[string]string{"volumes": "TEMPLATE", "dirs": "ROOT", "layout": "TEMPLATE", "roster": "CSV", "out": "DIR", "notebook": "NAME"},
	},
	{
		name:     "completion",
		purpose:  "print a bash or zsh completion script built from the same flag definitions",
		usage:    []string{"completion bash|zsh"},
		examples: []string{"source <(coursekit completion bash)   # in ~/.bashrc", "source <(coursekit completion zsh)    # in ~/.zshrc, after compinit"},
	},
	{
		name:     "version",
		purpose:  "print the coursekit version",
		usage:    []string{"version"},
		examples: []string{"coursekit version"},
	},
	{
		name:     "help",
		purpose:  "print the list of commands, or one command's help",
		usage:    []string{"help [COMMAND]"},
		examples: []string{"coursekit help", "coursekit help bench"},
	},
}

// docFor returns the help text of a command; a command missing from the
// table still gets a usage line and its flags.
func docFor(name string) cmdDoc {
	for _, d := range docs {
		if d.name == name {
			return d
		}
	}
	return cmdDoc{name: name, usage: []string{name + " [flags]"}}
}

// helpRequest is what parse returns for -h, -help and --help: run prints
// the command's help on stdout and exits 0.
type helpRequest struct{ fs *flag.FlagSet }

func (h *helpRequest) Error() string { return "help requested" }

// flagError is a flag parse error (unknown flag, bad value): run prints it
// on stderr and exits 2. After an unknown flag it prints the command's help,
// which lists the flags there are; after a bad or missing value (walk 35l:
// "--percentiles 50,101" drowned in 60 lines of help) only "Run 'coursekit
// help CMD' for usage.", as for a usage error found after parsing.
type flagError struct {
	fs  *flag.FlagSet
	err error
}

// unknownFlag reports whether e is a flag the command does not define.
func (e *flagError) unknownFlag() bool {
	return strings.HasPrefix(e.err.Error(), "flag provided but not defined")
}

func (e *flagError) Error() string {
	return e.fs.Name() + ": " + twoDashes(durationHint(e.fs, e.err.Error()))
}

// badValue is the flag package's message for a value its own parser
// refused: the value, the flag and "parse error".
var badValue = regexp.MustCompile(`^invalid value (".*") for flag -+([^\s:]+): parse error$`)

// durationHint words a refused duration flag as card's --slo-ttft does
// ("abc" is not a duration (write 1s or 500ms)), for every duration flag of
// every command: the flag package says only "parse error" (issue 35).
func durationHint(fs *flag.FlagSet, msg string) string {
	m := badValue.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	f := fs.Lookup(m[2])
	if f == nil {
		return msg
	}
	if g, ok := f.Value.(flag.Getter); !ok {
		return msg
	} else if _, isDur := g.Get().(time.Duration); !isDur {
		return msg
	}
	return strings.TrimSuffix(msg, "parse error") + m[1] + " is not a duration (write 1s or 500ms)"
}

// flagNamed is where the flag package names a flag in its errors, with one
// dash: "flag provided but not defined: -x", "invalid value … for flag -x",
// "invalid boolean value … for -x", "flag needs an argument: -x".
var flagNamed = regexp.MustCompile(`(not defined: |for flag |for |needs an argument: )-([^-\s:][^\s:]*)`)

// twoDashes is a flag package error naming its flag as the help, README and
// docs write it, --rate (the package accepts both; a one-letter flag stays
// -o, as the help writes it).
func twoDashes(msg string) string {
	return flagNamed.ReplaceAllStringFunc(msg, func(m string) string {
		sub := flagNamed.FindStringSubmatch(m)
		if len(sub[2]) == 1 {
			return m
		}
		return sub[1] + "--" + sub[2]
	})
}

// flagSetOf returns the flags of a command, defined by the command itself
// (it is run with -h and stops in parse). Commands without flags give nil.
func flagSetOf(name string) *flag.FlagSet {
	var h *helpRequest
	if errors.As(dispatch(context.Background(), []string{name, "-h"}, io.Discard, io.Discard), &h) {
		return h.fs
	}
	return nil
}

// globalHelp is the list of commands (`coursekit help`).
func globalHelp() string {
	var b strings.Builder
	fmt.Fprintf(&b, "coursekit %s: honest metrics for LLM-serving traces (trace format llm-serving/v1)\n\n", coursekit.Version)
	b.WriteString("usage: coursekit COMMAND [arguments]\n\ncommands:\n")
	for _, d := range docs {
		fmt.Fprintf(&b, "  %-11s %s\n", d.name, d.purpose)
	}
	b.WriteString("\nRun 'coursekit help COMMAND' or 'coursekit COMMAND -h' for its flags and examples.\n")
	b.WriteString("card, compare, gen, csv, report, bench and import read or write one trace format (JSON Lines: a header, then one attempt per line).\n")
	b.WriteString("\nexit codes: 0 ok; 2 bad input (FILE:LINE: what is wrong) or bad flags; 1 anything else\n")
	return b.String()
}

// commandHelp is one command's help: purpose, usage, flags, examples.
func commandHelp(name string, fs *flag.FlagSet) string {
	d := docFor(name)
	var b strings.Builder
	for i, u := range d.usage {
		if i == 0 {
			b.WriteString("usage: coursekit " + u + "\n")
		} else {
			b.WriteString("       coursekit " + u + "\n")
		}
	}
	if d.purpose != "" {
		b.WriteString("\n" + strings.ToUpper(d.purpose[:1]) + d.purpose[1:] + ".\n")
	}
	if d.details != "" {
		b.WriteString(d.details + "\n")
	}
	for _, g := range groupFlags(d, fs) {
		b.WriteString("\n" + g.title + ":\n")
		for _, f := range g.list {
			writeFlag(&b, d, f)
		}
	}
	if len(d.examples) > 0 {
		b.WriteString("\nexamples:\n")
		for _, e := range d.examples {
			b.WriteString("  " + e + "\n")
		}
	}
	return b.String()
}

type listedGroup struct {
	title string
	list  []*flag.Flag
}

// groupFlags sorts the command's flags into its groups, in the group's
// order; the flags no group names come last (or alone, as "flags").
func groupFlags(d cmdDoc, fs *flag.FlagSet) []listedGroup {
	if fs == nil {
		return nil
	}
	var all []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) { all = append(all, f) })
	if len(all) == 0 {
		return nil
	}
	used := map[string]bool{}
	var out []listedGroup
	for _, g := range d.groups {
		lg := listedGroup{title: g.title}
		for _, pat := range g.flags {
			for _, f := range all {
				if used[f.Name] || !matchFlag(pat, f.Name) {
					continue
				}
				used[f.Name] = true
				lg.list = append(lg.list, f)
			}
		}
		if len(lg.list) > 0 {
			out = append(out, lg)
		}
	}
	rest := listedGroup{title: "flags"}
	if len(out) > 0 {
		rest.title = "other flags"
	}
	for _, f := range all {
		if !used[f.Name] {
			rest.list = append(rest.list, f)
		}
	}
	if len(rest.list) > 0 {
		out = append(out, rest)
	}
	return out
}

func matchFlag(pat, name string) bool {
	if p, ok := strings.CutSuffix(pat, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return pat == name
}

// flagName is -x for one-letter flags and --name otherwise (both parse).
func flagName(f *flag.Flag) string {
	if len(f.Name) == 1 {
		return "-" + f.Name
	}
	return "--" + f.Name
}

// metavar names a flag's argument: a `backquoted` word of its usage, else
// the help table's name, else one from its type; "" for a boolean.
func metavar(d cmdDoc, f *flag.Flag) (string, string) {
	name, usage := flag.UnquoteUsage(f)
	if strings.Contains(f.Usage, "`") {
		return name, usage
	}
	if mv, ok := d.metavars[f.Name]; ok {
		return mv, usage
	}
	if isBool(f) {
		return "", usage
	}
	if m, ok := f.Value.(interface{ Metavar() string }); ok {
		return m.Metavar(), usage
	}
	switch f.Value.(type) {
	case rateFlag:
		return "FRACTION", usage
	}
	switch name {
	case "duration":
		return "DURATION", usage
	case "int", "uint":
		return "N", usage
	case "float":
		return "X", usage
	case "string":
		return strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_")), usage
	}
	return strings.ToUpper(name), usage
}

func isBool(f *flag.Flag) bool {
	bf, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && bf.IsBoolFlag()
}

// defaultText is what "(default ...)" shows; "" when the default is the
// zero value (the usage string then says what no value means).
func defaultText(f *flag.Flag) string {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return ""
	}
	if g, ok := f.Value.(flag.Getter); ok {
		if _, isString := g.Get().(string); isString {
			return fmt.Sprintf("%q", f.DefValue)
		}
	}
	return f.DefValue
}

// writeFlag prints one flag in the style of `go help` and vegeta: the
// name and argument, then the meaning and default, indented and wrapped.
func writeFlag(b *strings.Builder, d cmdDoc, f *flag.Flag) {
	mv, usage := metavar(d, f)
	b.WriteString("  " + flagName(f))
	if mv != "" {
		b.WriteString(" " + mv)
	}
	b.WriteString("\n")
	if d := defaultText(f); d != "" {
		usage += " (default " + d + ")"
	}
	for _, line := range wrap(usage, 72) {
		b.WriteString("        " + line + "\n")
	}
}

// wrap breaks s into lines of at most width runes, at spaces.
func wrap(s string, width int) []string {
	var lines []string
	var cur []string
	n := 0
	for _, w := range strings.Fields(s) {
		l := len([]rune(w))
		if n > 0 && n+1+l > width {
			lines = append(lines, strings.Join(cur, " "))
			cur, n = nil, 0
		}
		if n > 0 {
			n++
		}
		cur = append(cur, w)
		n += l
	}
	if len(cur) > 0 {
		lines = append(lines, strings.Join(cur, " "))
	}
	return lines
}

// saysDefault reports whether a flag's help states its default: shown
// automatically when it is not the zero value, else said in the usage.
func saysDefault(f *flag.Flag) bool {
	if isBool(f) || defaultText(f) != "" {
		return true
	}
	u := strings.ToLower(f.Usage)
	for _, w := range []string{"default", "(0:", "0: ", "0 means", "none", "off", "optional", "required"} {
		if strings.Contains(u, w) {
			return true
		}
	}
	return false
}
