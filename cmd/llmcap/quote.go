package main

import "github.com/llmcap/llmcap/shellword"

// shellQuote is s as one POSIX shell word (shellword.Quote).
func shellQuote(s string) string { return shellword.Quote(s) }
