// Package shellword writes strings as POSIX shell words, for the commands llmcap prints
// for a user to paste (a resume, a report, a tune's launch command). A leaf: it imports
// nothing of llmcap's.
package shellword

import "strings"

// literal are the characters a POSIX shell reads literally outside quotes (braces too:
// without a comma or "..", {port} is no brace expansion).
const literal = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,%{}"

// Quote is s as one shell word: as it is when it holds only characters the shell reads
// literally, else in single quotes, an inner single quote closed, escaped and reopened;
// the empty string as a pair of single quotes.
func Quote(s string) string {
	if s != "" && strings.Trim(s, literal) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join is argv as one command line: each argument Quote'd, joined by spaces.
func Join(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = Quote(a)
	}
	return strings.Join(parts, " ")
}
