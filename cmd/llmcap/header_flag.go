package main

import (
	"fmt"
	"strings"

	"github.com/llmcap/llmcap/plan"
)

// headerFlagUsage is --header's help.
const headerFlagUsage = "an extra request header 'Name: value' for every request (target.headers; wins over the plan's " +
	"header of that name); ${NAME} in the value takes the environment variable NAME, kept out of outputs (repeatable)"

// headerOverrides adds the plan overrides of --header 'Name: value' flags to out:
// target.headers.<name> = value (the name lower-cased, as the plan loader keys it; the
// value as given, spaces around it trimmed, ${NAME} left for the plan to expand). A
// flag without a colon, or with a name that is no header name (an RFC 9110 token, no
// dot), is an error naming the flag.
func headerOverrides(flags []string, out map[string]any) error {
	for _, f := range flags {
		name, value, ok := strings.Cut(f, ":")
		name = strings.TrimSpace(name)
		if !ok || !plan.IsHeaderName(name) {
			return fmt.Errorf("--header %q: want 'Name: value' with Name a header name "+
				"(letters, digits and !#$%%&'*+-^_`|~; no spaces or dots), e.g. --header 'X-Tenant: acme'", f)
		}
		out["target.headers."+strings.ToLower(name)] = strings.TrimSpace(value)
	}
	return nil
}
