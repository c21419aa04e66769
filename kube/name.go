package kube

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// namePrefix starts every default name: a DNS-1035 label must start with a letter.
const namePrefix = "llmcap"

var notLabel = regexp.MustCompile(`[^a-z0-9]+`)

// DefaultName is the objects' name for a plan named planName: "llmcap-" and the name
// lower-cased, each run of characters other than a-z and 0-9 made one '-', cut to
// MaxNameLen characters ("Chat_70B.v2" → "llmcap-chat-70b-v2"); a name that already
// starts with "llmcap" gets no second prefix, and one with nothing left is "llmcap".
func DefaultName(planName string) string {
	s := strings.Trim(notLabel.ReplaceAllString(strings.ToLower(planName), "-"), "-")
	if !strings.HasPrefix(s, namePrefix) {
		s = strings.TrimSuffix(namePrefix+"-"+s, "-")
	}
	if len(s) > MaxNameLen {
		s = strings.TrimRight(s[:MaxNameLen], "-")
	}
	return s
}

// checkName refuses a name that is not a DNS-1035 label of at most MaxNameLen
// characters; from names where it came from (--name, or the plan's name field).
func checkName(name, from string) error {
	msgs := validation.IsDNS1035Label(name)
	if len(name) > MaxNameLen {
		msgs = append(msgs, fmt.Sprintf("must be at most %d characters (the merge Job is NAME-merge, a shard pod's hostname NAME-INDEX)", MaxNameLen))
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s %q: %s", from, name, strings.Join(msgs, "; "))
}
