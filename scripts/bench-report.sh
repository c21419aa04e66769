#!/usr/bin/env bash
# bench-report.sh: wall time and peak RSS of `llmcap analyze` and `llmcap report` on a
# big run directory, built here from a run on the embedded simulator.
#
#   scripts/bench-report.sh [N] [WORK]
#
# N (default 1000000) is the number of records of the big run: the source run's records
# repeated with unique request ids ("<id>-x<k>"). WORK (default /tmp/llmcap-bench-report)
# holds the binary, the source run (WORK/src, made once with configs/demo.yaml on the
# simulator unless SRC=DIR names an existing run directory, which is only read) and the
# big run (WORK/big-N). A failed command stops the script with the end of its log.
# Each timed command runs under `flock /tmp/bench.lock` when flock exists, so that
# benchmarks on a shared machine run one at a time. Needs go, awk, GNU time (/usr/bin/time)
# and unzip.
set -euo pipefail
N=${1:-1000000}
WORK=${2:-/tmp/llmcap-bench-report}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$WORK"
BIN=$WORK/llmcap
(cd "$ROOT" && go build -o "$BIN" ./cmd/llmcap)

# fail LOG MESSAGE: says what failed and the end of its log, then exits 1.
fail() {
	echo "bench-report: $2; the end of $1:" >&2
	tail -n 20 "$1" >&2
	exit 1
}

if [[ -n ${SRC:-} ]]; then # a run directory of the user's: read, never removed or written
	[[ -s $SRC/records.jsonl ]] || {
		echo "bench-report: SRC=$SRC has no records.jsonl (want a run directory)" >&2
		exit 2
	}
else
	SRC=$WORK/src
	if [[ ! -s $SRC/records.jsonl ]]; then
		echo "source run: llmcap run -c configs/demo.yaml -o $SRC (simulator, a few minutes)"
		rm -rf "$SRC"
		(cd "$ROOT" && "$BIN" run -c configs/demo.yaml -o "$SRC" >"$WORK/src.log" 2>&1) ||
			fail "$WORK/src.log" "the source run failed"
	fi
fi

BIG=$WORK/big-$N
if [[ ! -s $BIG/records.jsonl || $(wc -l <"$BIG/records.jsonl") -ne $N ]]; then
	echo "building $BIG: $N records from $SRC/records.jsonl"
	rm -rf "$BIG"
	mkdir -p "$BIG"
	for f in run.json steps.jsonl server-metrics.jsonl; do
		[[ -e $SRC/$f ]] && cp "$SRC/$f" "$BIG/$f"
	done
	awk -v n="$N" '
		{ line[NR] = $0 }
		END {
			for (k = 0; out < n; k++)
				for (i = 1; i <= NR && out < n; i++) {
					l = line[i]
					if (k > 0) sub(/"request_id":"[^"]*/, "&-x" k, l)
					print l
					out++
				}
		}' "$SRC/records.jsonl" >"$BIG/records.jsonl"
fi
echo "run directory $BIG: $(wc -l <"$BIG/records.jsonl") records, $(du -h "$BIG/records.jsonl" | cut -f1) of records.jsonl"

lock=()
command -v flock >/dev/null && lock=(flock /tmp/bench.lock)
timed() { # timed NAME CMD...: prints "NAME: wall s, peak RSS"
	local name=$1
	shift
	"${lock[@]}" /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" "$@" >"$WORK/$name.log" 2>&1 ||
		fail "$WORK/$name.log" "llmcap $name failed"
	read -r wall user sys rss <"$WORK/time.txt"
	awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" \
		'BEGIN { printf "%-8s %6.2f s wall  %6.2f s CPU  %7.0f MiB peak RSS\n", n, w, u + s, r / 1024 }'
}
rm -f "$BIG/analysis.json"
timed analyze "$BIN" analyze "$BIG"
rm -rf "$BIG"/report.* "$BIG"/charts "$BIG"/records.csv
timed report "$BIN" report "$BIG"

x=$BIG/report.xlsx
note=$(unzip -p "$x" 'xl/worksheets/*.xml' | grep -o 'Sample of [0-9]* of [0-9]* requests: every [0-9a-z]* request' || true)
echo "report.xlsx $(du -h "$x" | cut -f1); Requests sheet: ${note:-every request}"
echo "records.csv $(du -h "$BIG/records.csv" | cut -f1), $(($(wc -l <"$BIG/records.csv") - 1)) rows"
