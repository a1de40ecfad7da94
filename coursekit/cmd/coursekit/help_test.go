package main

import (
	"context"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var updateREADME = flag.Bool("update", false, "rewrite docs/cli.md's generated CLI block (make cli-doc)")

// dispatchedCommands reads main.go's dispatch switch: the first name of
// every case is a command (the others are aliases like --version).
func dispatchedCommands(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		fd, ok := n.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "dispatch" {
			return true
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			cc, ok := n.(*ast.CaseClause)
			if ok && len(cc.List) > 0 {
				if lit, ok := cc.List[0].(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(lit.Value)
					names = append(names, s)
				}
			}
			return true
		})
		return false
	})
	if len(names) < 10 {
		t.Fatalf("found only %v in dispatch", names)
	}
	return names
}

// Every command dispatch knows has a purpose, a usage line and examples in
// the help table, and the table names no command dispatch does not know.
func TestEveryCommandHasHelp(t *testing.T) {
	cmds := dispatchedCommands(t)
	for _, c := range cmds {
		d := docFor(c)
		if d.purpose == "" || len(d.usage) == 0 || len(d.examples) < 1 {
			t.Errorf("command %q has no entry in the help table (help.go docs): purpose, usage and examples", c)
		}
		if c != "version" && c != "help" && c != "completion" && len(d.examples) < 2 {
			t.Errorf("%s: %d examples, want 2 or 3", c, len(d.examples))
		}
	}
	for _, d := range docs {
		if !slices.Contains(cmds, d.name) {
			t.Errorf("help table lists %q, which dispatch does not run", d.name)
		}
	}
}

// -h, -help, --help and `help CMD` print the same help on stdout with exit
// 0; it names every flag the command parses, with its non-zero default.
func TestHelpForEveryCommand(t *testing.T) {
	for _, d := range docs {
		fs := flagSetOf(d.name)
		if fs == nil {
			t.Errorf("%s -h did not stop in parse with a help request", d.name)
			continue
		}
		want := commandHelp(d.name, fs)
		for _, args := range [][]string{{d.name, "-h"}, {d.name, "--help"}, {d.name, "-help"}, {"help", d.name}} {
			code, out, errs := runCLI(t, args...)
			if code != 0 || errs != "" || out != want {
				t.Errorf("%v: exit %d, stderr %q, stdout matches help: %v", args, code, errs, out == want)
			}
		}
		if !strings.HasPrefix(want, "usage: coursekit "+d.name) || !strings.Contains(want, d.purpose[1:]) {
			t.Errorf("%s: help does not start with the usage line and purpose:\n%s", d.name, want)
		}
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(want, "\n  "+flagName(f)) {
				t.Errorf("%s: help lacks flag %s", d.name, flagName(f))
			}
			if dt := defaultText(f); dt != "" && !strings.Contains(strings.Join(strings.Fields(want), " "), "(default "+dt+")") {
				t.Errorf("%s: help lacks the default of %s (%s)", d.name, flagName(f), dt)
			}
		})
		if !strings.Contains(want, "\nexamples:\n") {
			t.Errorf("%s: no examples", d.name)
		}
	}
}

// Each flag's help says what it means and what happens when it is not
// given: a non-zero default is printed, a zero one is explained.
func TestEveryFlagSaysItsDefault(t *testing.T) {
	for _, d := range docs {
		fs := flagSetOf(d.name)
		if fs == nil {
			continue
		}
		fs.VisitAll(func(f *flag.Flag) {
			if len(strings.Fields(f.Usage)) < 3 {
				t.Errorf("%s %s: usage %q does not say what the flag means", d.name, flagName(f), f.Usage)
			}
			if !saysDefault(f) {
				t.Errorf("%s %s: the default is the zero value and the usage %q does not say what that means (write e.g. \"(default: ...)\" or \"(0: off)\")", d.name, flagName(f), f.Usage)
			}
		})
	}
}

// The examples use flags the command really has.
func TestHelpExamplesParse(t *testing.T) {
	for _, d := range docs {
		for _, ex := range d.examples {
			words := strings.Fields(ex)
			if len(words) < 2 || words[0] != "coursekit" || words[1] != d.name {
				continue
			}
			var args []string
			for _, w := range words[2:] {
				if w == "#" || w == ">" || w == "|" {
					break
				}
				args = append(args, strings.Trim(w, `"`))
			}
			var h *helpRequest
			if err := dispatch(context.Background(), []string{d.name, "-h"}, nil, nil); !asHelp(err, &h) {
				t.Fatalf("%s: no flags", d.name)
			}
			if _, err := parse(h.fs, args); err != nil {
				t.Errorf("example %q: %v", ex, err)
			}
		}
	}
}

func asHelp(err error, h **helpRequest) bool {
	r, ok := err.(*helpRequest)
	*h = r
	return ok
}

// An unknown flag prints the error and the same help on stderr (it lists
// the flags there are), with exit 2 and nothing on stdout. The error names
// the flag as the help and the docs write it, --slo-ttft (the flag package
// says -slo-ttft); a one-letter flag stays -o.
func TestBadFlagPrintsHelpOnStderr(t *testing.T) {
	for _, d := range docs {
		fs := flagSetOf(d.name)
		if fs == nil {
			continue
		}
		code, out, errs := runCLI(t, d.name, "--no-such-flag")
		want := "coursekit " + d.name + ": flag provided but not defined: --no-such-flag\n\n" + commandHelp(d.name, fs)
		if code != 2 || out != "" || errs != want {
			t.Errorf("%s --no-such-flag: exit %d, stdout %q, stderr:\n%s", d.name, code, out, errs)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"card", unitTrace, "-slo-ttft"}, "coursekit card: flag needs an argument: --slo-ttft\n"},
		{[]string{"gen", "-rate=abc"}, `coursekit gen: invalid value "abc" for flag --rate: `},
		{[]string{"bench", "--ignore-eos=maybe"}, `coursekit bench: invalid boolean value "maybe" for --ignore-eos: `},
		{[]string{"report", unitTrace, "-o"}, "coursekit report: flag needs an argument: -o\n"},
	} {
		if code, _, errs := runCLI(t, c.args...); code != 2 || !strings.HasPrefix(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want it to start %q", c.args, code, errs, c.want)
		}
	}
}

// A bad or missing flag value, in every command, prints the one error line
// and where the usage is, as a usage error found after parsing does, not
// the whole help (walk 35l: card --percentiles 50,101 printed 60 lines of
// help around its one line of error).
func TestBadFlagValuePrintsOneLine(t *testing.T) {
	checked := 0
	for _, d := range docs {
		fs := flagSetOf(d.name)
		if fs == nil {
			continue
		}
		pointer := "Run 'coursekit help " + d.name + "' for usage.\n"
		var needsArg, badValue string
		fs.VisitAll(func(f *flag.Flag) {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				return
			}
			if needsArg == "" && len(f.Name) > 1 {
				needsArg = f.Name
			}
			if badValue == "" && flagSetOf(d.name).Set(f.Name, "abc") != nil {
				badValue = f.Name
			}
		})
		if needsArg != "" {
			checked++
			code, out, errs := runCLI(t, d.name, "--"+needsArg)
			if want := "coursekit " + d.name + ": flag needs an argument: --" + needsArg + "\n" + pointer; code != 2 || out != "" || errs != want {
				t.Errorf("%s --%s: exit %d, stdout %q, stderr:\n%s\nwant:\n%s", d.name, needsArg, code, out, errs, want)
			}
		}
		if badValue != "" {
			checked++
			code, out, errs := runCLI(t, d.name, "--"+badValue, "abc")
			prefix := "coursekit " + d.name + `: invalid value "abc" for flag --` + badValue + ": "
			if code != 2 || out != "" || !strings.HasPrefix(errs, prefix) || !strings.HasSuffix(errs, pointer) || strings.Count(errs, "\n") != 2 {
				t.Errorf("%s --%s abc: exit %d, stdout %q, stderr:\n%s", d.name, badValue, code, out, errs)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d bad values checked: the commands' flags were not found", checked)
	}
	code, _, errs := runCLI(t, "card", unitTrace, "--percentiles", "50,101")
	if want := "coursekit card: invalid value \"50,101\" for flag --percentiles: "; code != 2 || !strings.HasPrefix(errs, want) || strings.Contains(errs, "usage: coursekit card") {
		t.Errorf("card --percentiles 50,101: exit %d, stderr:\n%s", code, errs)
	}
}

// `coursekit help` lists every command on stdout; no arguments prints the
// same list on stderr with exit 2.
func TestGlobalHelp(t *testing.T) {
	code, out, errs := runCLI(t, "help")
	if code != 0 || errs != "" {
		t.Fatalf("help: exit %d, %s", code, errs)
	}
	for _, d := range docs {
		if !strings.Contains(out, "\n  "+d.name+" ") || !strings.Contains(out, d.purpose) {
			t.Errorf("global help lacks %s: %s", d.name, d.purpose)
		}
	}
	for _, alias := range []string{"-h", "--help"} {
		if c, o, _ := runCLI(t, alias); c != 0 || o != out {
			t.Errorf("%s: exit %d, same list %v", alias, c, o == out)
		}
	}
	if c, o, e := runCLI(t); c != 2 || o != "" || e != out {
		t.Errorf("no arguments: exit %d, stdout %q, stderr is the list: %v", c, o, e == out)
	}
	if c, _, e := runCLI(t, "help", "frobnicate"); c != 2 || !strings.Contains(e, `unknown command "frobnicate"`) {
		t.Errorf("help frobnicate: exit %d, %s", c, e)
	}
	// A validation error after parsing points at the command's help.
	if c, _, e := runCLI(t, "card"); c != 2 || !strings.Contains(e, "Run 'coursekit help card' for usage.") {
		t.Errorf("card without TRACE: exit %d, %s", c, e)
	}
}

// readmeCLI is docs/cli.md's generated block: the command list, then each
// command's help, folded.
func readmeCLI() string {
	var b strings.Builder
	b.WriteString("```\n$ coursekit help\n" + globalHelp() + "```\n")
	for _, d := range docs {
		if d.name == "help" {
			continue
		}
		b.WriteString("\n<details><summary><code>coursekit " + d.name + " -h</code>: " + d.purpose + "</summary>\n\n```\n")
		b.WriteString(commandHelp(d.name, flagSetOf(d.name)))
		b.WriteString("```\n</details>\n")
	}
	return b.String()
}

const (
	readmeBegin = "<!-- BEGIN coursekit help: generated from the CLI's own help; make readme-cli rewrites it, a test checks it -->\n"
	readmeEnd   = "<!-- END coursekit help -->\n"
)

// The CLI reference (docs/cli.md) is the CLI's own help text, byte for
// byte. `make cli-doc` (go test -run TestCLIReference -update) rewrites it.
func TestCLIReference(t *testing.T) {
	path := filepath.Join("..", "..", "..", "docs", "cli.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, readmeBegin), strings.Index(s, readmeEnd)
	if i < 0 || j < i {
		t.Fatalf("docs/cli.md lacks the markers %q ... %q", readmeBegin, readmeEnd)
	}
	got := s[i+len(readmeBegin) : j]
	want := readmeCLI()
	if got == want {
		return
	}
	if *updateREADME {
		if err := os.WriteFile(path, []byte(s[:i+len(readmeBegin)]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/cli.md's CLI block is out of date with the CLI's help: run make cli-doc")
}

// The bash completion completes commands, a command's flags and a flag's
// fixed values, in bash and (through bashcompinit) in zsh.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh"} {
		t.Run(shell, func(t *testing.T) {
			path, err := exec.LookPath(shell)
			if err != nil {
				t.Fatalf("%s is not installed (bash docker/host-setup.sh test installs it): %v", shell, err)
			}
			code, script, errs := runCLI(t, "completion", shell)
			if code != 0 {
				t.Fatalf("completion %s: %d %s", shell, code, errs)
			}
			file := filepath.Join(t.TempDir(), "c."+shell)
			os.WriteFile(file, []byte(script), 0o644)
			// complete returns the candidates for the last word. zsh's
			// compgen emulation offers the whole set and leaves matching to
			// zsh's matcher, so for zsh the prefix filter is applied here.
			complete := func(words ...string) []string {
				t.Helper()
				quoted := make([]string, len(words))
				for i, w := range words {
					quoted[i] = "'" + w + "'"
				}
				call := "COMP_WORDS=(" + strings.Join(quoted, " ") + "); COMP_CWORD=" + strconv.Itoa(len(words)-1) +
					"; _coursekit; printf '%s\\n' \"${COMPREPLY[@]}\""
				var cmd *exec.Cmd
				if shell == "bash" {
					cmd = exec.Command(path, "--norc", "-c", "source "+file+"; "+call)
				} else {
					cmd = exec.Command(path, "-f", "-c", "autoload -U compinit; compinit -u -d "+filepath.Join(t.TempDir(), "zcompdump")+
						"; source "+file+"; [[ $_comps[coursekit] == '_bash_complete -o default -F _coursekit' ]] || { print -r -- \"registered: $_comps[coursekit]\"; exit 1; }"+
						"; setopt ksharrays; "+call)
				}
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s %v: %v\n%s", shell, words, err, out)
				}
				var got []string
				for _, c := range strings.Fields(string(out)) {
					if strings.HasPrefix(c, words[len(words)-1]) {
						got = append(got, c)
					}
				}
				return got
			}
			if got := complete("coursekit", "be"); !slices.Equal(got, []string{"bench"}) {
				t.Errorf("command: %v", got)
			}
			if got := complete("coursekit", "card", "--per"); !slices.Equal(got, []string{"--percentile", "--percentiles"}) {
				t.Errorf("card flag: %v", got)
			}
			if got := complete("coursekit", "card", "--format", ""); !slices.Equal(got, []string{"text", "markdown", "json"}) {
				t.Errorf("card --format values: %v", got)
			}
			if got := complete("coursekit", "import", "--from", "gu"); !slices.Equal(got, []string{"guidellm"}) {
				t.Errorf("import --from values: %v", got)
			}
			got := complete("coursekit", "sim", "--fail-")
			fs := flagSetOf("sim")
			var want []string
			fs.VisitAll(func(f *flag.Flag) {
				if strings.HasPrefix(f.Name, "fail-") {
					want = append(want, "--"+f.Name)
				}
			})
			slices.Sort(got)
			if len(want) < 5 || !slices.Equal(got, want) {
				t.Errorf("sim fault flags: %v, want %v", got, want)
			}
			if got := complete("coursekit", "help", "gr"); !slices.Equal(got, []string{"grade"}) {
				t.Errorf("help COMMAND: %v", got)
			}
		})
	}
}
