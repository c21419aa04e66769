package plan

import (
	"reflect"
	"strings"
	"testing"
)

// shortFormPlan is a plan whose distributions and warm-up are the %s placeholders.
func shortFormPlan(prompt, output, think, simOut, warmup string) string {
	return "target: {simulator: {output_tokens: " + simOut + "}}\n" +
		"segments:\n  - name: a\n    weight: 1\n    prompt_tokens: " + prompt +
		"\n    output_tokens: " + output + "\n    multi_turn: {turns: 2, think_time_s: " + think + "}\n" +
		"ladder: {concurrency: [1], duration: 5s, warmup: " + warmup + "}\n"
}

// TestShortFormsLoadAsLongForms: a distribution written as a bare number, "mean±sd" or
// "mean+-sd" (a seconds one for think_time_s), and a warm-up written as a request count
// or a duration load to the same plan as their mapping forms, the ones --isl and
// --warmup give.
func TestShortFormsLoadAsLongForms(t *testing.T) {
	for _, c := range []struct{ name, short, long string }{
		{"bare numbers",
			shortFormPlan("512", "128", "5", "64", "10"),
			shortFormPlan("{dist: fixed, value: 512}", "{dist: fixed, value: 128}", "{dist: fixed, value: 5}",
				"{dist: fixed, value: 64}", "{requests: 10}")},
		{"mean±sd and a duration",
			shortFormPlan(`"512±64"`, `"128+-16"`, `"5±2.5"`, `"64 ± 8"`, "5s"),
			shortFormPlan("{dist: normal, mean: 512, stddev: 64, min: 1}", "{dist: normal, mean: 128, stddev: 16, min: 1}",
				"{dist: normal, mean: 5, stddev: 2.5}", "{dist: normal, mean: 64, stddev: 8, min: 1}", "{duration: 5s}")},
		{"quoted count, sd 0 and a flag-style spec",
			shortFormPlan(`"512±0"`, `"uniform:min=16,max=48"`, `"0.5"`, "64", `"10"`),
			shortFormPlan("{dist: fixed, value: 512}", "{dist: uniform, min: 16, max: 48}", "{dist: fixed, value: 0.5}",
				"{dist: fixed, value: 64}", "{requests: 10}")},
		{"zero warm-up", shortFormPlan("8", "8", "1", "8", "0"), shortFormPlan("8", "8", "1", "8", "{requests: 0, duration: 0}")},
	} {
		short, err := Load(writePlan(t, c.short), nil)
		if err != nil {
			t.Fatalf("%s: short form: %v", c.name, err)
		}
		long, err := Load(writePlan(t, c.long), nil)
		if err != nil {
			t.Fatalf("%s: long form: %v", c.name, err)
		}
		short.resolvePaths(".")
		if !reflect.DeepEqual(short, long) {
			t.Errorf("%s: short form\n%+v\n%+v\nlong form\n%+v\n%+v", c.name, short.Segments, short.Ladder.Warmup, long.Segments, long.Ladder.Warmup)
		}
	}
	p, err := Load(writePlan(t, shortFormPlan(`"512±64"`, "128", "5", "64", "5s")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Segments[0].PromptTokens, (Dist{Kind: DistNormal, Mean: 512, StdDev: 64, Min: 1}); got != want {
		t.Errorf("512±64 = %+v, want %+v", got, want)
	}
	if got := p.Ladder.Warmup; got.Duration.String() != "5s" || got.Requests != 0 {
		t.Errorf("warmup: 5s = %+v", got)
	}
}

// TestBadShortFormsNameTheField: a short form that does not parse is an error at its
// field's path, showing the value and the forms allowed.
func TestBadShortFormsNameTheField(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"bad mean±sd", shortFormPlan(`"512±x"`, "8", "1", "8", "0"), `segments[0].prompt_tokens: "512±x"`},
		{"word for tokens", shortFormPlan("8", "lots", "1", "8", "0"), `segments[0].output_tokens: "lots"`},
		{"bad think time", shortFormPlan("8", "8", `"soon"`, "8", "0"), `segments[0].multi_turn.think_time_s: "soon"`},
		{"bad simulator output", shortFormPlan("8", "8", "1", `"-3±1"`, "0"), `target.simulator.output_tokens: "-3±1"`},
		{"negative warm-up", shortFormPlan("8", "8", "1", "8", "-5"), `ladder.warmup: "-5"`},
		{"fractional warm-up", shortFormPlan("8", "8", "1", "8", "2.5"), `ladder.warmup: "2.5"`},
		{"word warm-up", shortFormPlan("8", "8", "1", "8", "later"), `ladder.warmup: "later"`},
	} {
		msg := loadErr(t, c.yaml)
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: error lacks %q:\n%s", c.name, c.want, msg)
		}
	}
	if msg := loadErr(t, shortFormPlan("8", "8", "1", "8", "later")); !strings.Contains(msg, WarmupForm) {
		t.Errorf("warm-up error does not say the forms:\n%s", msg)
	}
}
