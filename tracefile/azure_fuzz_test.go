package tracefile

import "testing"

// FuzzTraceAzure checks the Azure LLM inference CSV reader on arbitrary files and row
// windows (see checkTraceWindow for the properties).
func FuzzTraceAzure(f *testing.F) {
	for _, name := range []string{"AzureLLMInferenceTrace_code_2023.csv", "AzureLLMInferenceTrace_conv_2023.csv"} {
		f.Add(seedLines(f, name, 12), uint8(0), uint8(0))
		f.Add(seedLines(f, name, 12), uint8(2), uint8(5))
	}
	f.Add([]byte("GeneratedTokens,TIMESTAMP,ContextTokens\n3,2023-11-16 18:17:04.03,5\n1,2023-11-16 18:17:03.9,7\n"), uint8(0), uint8(0))
	f.Add([]byte("TIMESTAMP,ContextTokens,GeneratedTokens\n0001-01-01 00:00:00,1,1\n9999-12-31 23:59:59,-2,1\n"), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, in []byte, start, rows uint8) {
		checkTraceWindow(t, FormatAzure, in, int(start), int(rows))
	})
}
