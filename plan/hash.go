package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Hash is the SHA-256 (hex, 64 characters) of the plan's redacted JSON form
// (Redacted): equal for two loads of one plan file with the same overrides, different
// when any field differs. The shards of a sharded sweep record it (rundir.ShardInfo)
// so that llmcap merge refuses shards of different plans. A plan that does not encode
// (impossible for a loaded plan) hashes as "".
func (p *Plan) Hash() string {
	b, err := json.Marshal(p.Redacted())
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
