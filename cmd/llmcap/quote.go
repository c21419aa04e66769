package main

import "strings"

// shellQuote is s as one POSIX shell word: unchanged when it holds only characters a
// shell takes literally, else in single quotes (inner single quotes escaped the POSIX way).
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
