package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// cmdCompletion prints a shell completion script. It is built from the
// help table and from each command's own FlagSet (flagSetOf), so a flag a
// command defines is completed without further work.
func cmdCompletion(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("completion", flag.ContinueOnError)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("completion: want one shell, bash or zsh")
	}
	switch pos[0] {
	case "bash":
		fmt.Fprint(stdout, "# bash completion for coursekit: source <(coursekit completion bash)\n")
		fmt.Fprint(stdout, bashCompletion())
	case "zsh":
		// zsh runs the same function through its bash-completion layer.
		fmt.Fprint(stdout, "# zsh completion for coursekit: source <(coursekit completion zsh), after compinit\n")
		fmt.Fprint(stdout, "autoload -U +X bashcompinit && bashcompinit\n")
		fmt.Fprint(stdout, bashCompletion())
	default:
		return usagef("completion: unknown shell %q (want bash or zsh)", pos[0])
	}
	return nil
}

// bashCompletion is a bash function: commands at the first word, a
// command's flags after a dash, fixed values after a flag that has them,
// and file names otherwise (complete -o default).
func bashCompletion() string {
	var names []string
	for _, d := range docs {
		names = append(names, d.name)
	}
	var b strings.Builder
	b.WriteString("_coursekit() {\n")
	b.WriteString("  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} flags='' values=''\n")
	b.WriteString("  COMPREPLY=()\n")
	fmt.Fprintf(&b, "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n    return 0\n  fi\n", strings.Join(names, " "))
	b.WriteString("  case ${COMP_WORDS[1]} in\n")
	fmt.Fprintf(&b, "    help) [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return 0 ;;\n", strings.Join(names, " "))
	b.WriteString("    completion) [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W 'bash zsh' -- \"$cur\")); return 0 ;;\n")
	for _, d := range docs {
		if d.name == "help" || d.name == "completion" {
			continue
		}
		fs := flagSetOf(d.name)
		if fs == nil {
			continue
		}
		var flags []string
		valueCases := map[string]string{}
		fs.VisitAll(func(f *flag.Flag) {
			flags = append(flags, flagName(f))
			if v, ok := d.values[f.Name]; ok {
				valueCases[f.Name] = strings.Join(v, " ")
			}
		})
		fmt.Fprintf(&b, "    %s)\n      flags='%s'\n", d.name, strings.Join(flags, " "))
		if len(valueCases) > 0 {
			keys := make([]string, 0, len(valueCases))
			for k := range valueCases {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteString("      case $prev in\n")
			for _, k := range keys {
				// Both spellings parse: -name and --name.
				fmt.Fprintf(&b, "        -%s|--%s) values='%s' ;;\n", k, k, valueCases[k])
			}
			b.WriteString("      esac\n")
		}
		b.WriteString("      ;;\n")
	}
	b.WriteString("  esac\n")
	b.WriteString("  if [ -n \"$values\" ]; then\n    COMPREPLY=($(compgen -W \"$values\" -- \"$cur\"))\n  elif [[ $cur == -* ]]; then\n    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n  fi\n  return 0\n}\n")
	b.WriteString("complete -o default -F _coursekit coursekit\n")
	return b.String()
}
