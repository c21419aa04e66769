package sim

import "math"

// Greedy text (a request at temperature 0): the output's words are a function of the
// prompt text (promptHasher.textHash, whitespace-insensitive) and the request's seed,
// so the same prompt and seed always get the same text, as a deterministic server
// gives. A prompt is nondeterministic when a hash of its text falls in
// plan.Simulator.NondeterministicFraction: its output then diverges at a token chosen
// by the prompt (in the first half of the output) with a word sure to differ, and
// follows a per-call sequence after it, so no two calls give the same text.

// goldenGamma is SplitMix64's increment (2^64 / φ).
const goldenGamma = 0x9e3779b97f4a7c15

// Salts of the hashes of the prompt text: whether it is nondeterministic, and where
// its output diverges.
const (
	saltNondeterministic = 0x6e6f6e2d64657465 // "non-dete"
	saltDivergeAt        = 0x6469766572676521 // "diverge!"
)

// mix64 is SplitMix64's finaliser: a bijective mix of x's bits.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// nondeterministic reports whether a prompt of text hash h is one of the given
// fraction (0..1) whose greedy output is not reproducible.
func nondeterministic(h uint64, fraction float64) bool {
	return fraction > 0 && unit(mix64(h^saltNondeterministic)) < fraction
}

// greedyText makes t's words a function of req's prompt text and seed, diverging per
// call for a nondeterministic prompt (see above).
func (s *Server) greedyText(t *templates, req *Request) {
	t.greedy = true
	t.seed = mix64(req.textHash ^ mix64(req.seed+goldenGamma))
	t.divergeAt = math.MaxInt
	if nondeterministic(req.textHash, s.cfg.NondeterministicFraction) {
		t.divergeAt = int(mix64(req.textHash^saltDivergeAt) % uint64(max(req.OutputTokens/2, 1)))
		t.alt = mix64(req.textHash ^ s.calls.Add(1)*goldenGamma)
	}
}
