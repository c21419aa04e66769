package plan

import (
	"strings"
	"testing"
)

const okCapture = "capture: {enabled: true, mode: session, session_name: s1"

// TestCaptureValidation: capture.trace must be nsys trace API names and each
// capture.steps entry must name a step of the ladder; the message names the field, the
// bad value and what is allowed.
func TestCaptureValidation(t *testing.T) {
	cases := []struct{ name, capture, want string }{
		{"unknown trace API", okCapture + ", trace: bogus}",
			`capture.trace: "bogus" is not allowed: unknown nsys trace API "bogus": a comma-separated list (no spaces) of cuda, nvtx, osrt,`},
		{"one unknown of several", okCapture + ", trace: 'cuda,nvtx,osrt,cublass'}",
			`unknown nsys trace API "cublass"`},
		{"space after comma", okCapture + ", trace: 'cuda, osrt'}",
			`unknown nsys trace API " osrt"`},
		{"none combined", okCapture + ", trace: 'none,osrt'}",
			`"none" traces no API and cannot be combined`},
		{"concurrency not in the ladder", okCapture + ", steps: [{segment: short, concurrency: 7}]}",
			`capture.steps[0].concurrency: 7 is not allowed: names no step of segment "short": the ladder's loads are concurrency 1, 2`},
		{"rate not in the ladder", okCapture + ", steps: [{segment: short, concurrency: 2}, {segment: short, rate: 3}]}",
			`capture.steps[1].rate: 3 is not allowed: names no step of segment "short": the ladder's loads are concurrency 1, 2`},
		{"concurrency and rate", okCapture + ", steps: [{segment: short, concurrency: 2, rate: 1}]}",
			`capture.steps[0]: concurrency 2 and rate 1 is not allowed: set concurrency or rate, not both`},
		{"mix without a mix ladder", okCapture + ", steps: [{segment: mix}]}",
			`capture.steps[0].segment: "mix" is not allowed: no step of the ladder runs this segment`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg := loadErr(t, okSegments+okLadder+tc.capture+"\n")
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error\n%s\nwant it to contain\n%s", msg, tc.want)
			}
		})
	}
	for _, ok := range []string{
		okCapture + ", trace: 'cuda,nvtx,osrt,cublas', steps: [{segment: short, concurrency: 2}]}",
		okCapture + ", trace: none, steps: [{segment: short}]}",
		okCapture + ", trace: osrt, knee: true}",
	} {
		if msg := loadErr(t, okSegments+okLadder+ok+"\n"); msg != "" {
			t.Errorf("%s: %s", ok, msg)
		}
	}
	// Disabled captures are not checked.
	if msg := loadErr(t, okSegments+okLadder+"capture: {trace: bogus, steps: [{segment: short, concurrency: 7}]}\n"); msg != "" {
		t.Errorf("disabled capture rejected: %s", msg)
	}
}

// TestCaptureMark marks the steps `llmcap plan` lists as captured.
func TestCaptureMark(t *testing.T) {
	p, err := Load(writePlan(t, okSegments+"ladder: {concurrency: [1, 2, 4], duration: 5s}\n"+okCapture+
		", steps: [{segment: short, concurrency: 2}]}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range p.Steps() {
		got = append(got, p.CaptureMark(s))
	}
	if strings.Join(got, ",") != ",capture," {
		t.Errorf("marks %q, want only concurrency 2 captured", got)
	}
	p.Capture.Knee = true
	got = got[:0]
	for _, s := range p.Steps() {
		got = append(got, p.CaptureMark(s))
	}
	if strings.Join(got, ",") != "knee,capture,knee" {
		t.Errorf("marks with knee %q", got)
	}
	p.Capture.Enabled = false
	if m := p.CaptureMark(p.Steps()[1]); m != "" {
		t.Errorf("disabled capture marks %q", m)
	}
}
