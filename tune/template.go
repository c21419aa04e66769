package tune

import (
	"strings"

	"github.com/llmcap/llmcap/shellword"
)

// render replaces every {name} placeholder in s with vals[name] ("{{" is a literal
// "{"); a placeholder with no value stays as written (Validate refuses those).
func render(s string, vals map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '{' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(s) && s[i+1] == '{' {
			b.WriteByte('{')
			i++
			continue
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		if v, ok := vals[s[i+1:i+j]]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[i : i+j+1])
		}
		i += j
	}
	return b.String()
}

// renderAll renders each string of list.
func renderAll(list []string, vals map[string]string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = render(s, vals)
	}
	return out
}

// CommandLine is the launch command as one shell line: the extra environment entries
// (each KEY=VALUE quoted as needed) then the argv.
func CommandLine(env, argv []string) string {
	if len(env) == 0 {
		return shellword.Join(argv)
	}
	return shellword.Join(env) + " " + shellword.Join(argv)
}
