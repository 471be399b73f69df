#!/usr/bin/env bash
# gentrace --plant stalls the host at the start of a step (a DataLoader fetch,
# CPU preprocessing, a handle creation, an allocation, a graph instantiation,
# a compilation, a gloo collective, or many .item() syncs); its truth lists
# each device gap as the generator scheduled it.  vanalyze must find every
# planted gap whole, with the planted cause and host activity, agree with
# tests/oracle_idle.py, and lead its findings with the planted cause.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze
gen=$VT_BUILD/gentrace
[ -x "$gen" ] || die "$gen is not built"

# every kind at once, two ranks, stalls in different steps and two in one step
"$gen" --ranks 2 --steps 7 --blocks 4 --seed 11 --warmup 1.5 \
	--plant dataloader@1=20 --plant hostprep@2=15 --plant gloo@2=5 --plant sync@3=40 \
	--plant capture@4=8 --plant init@4=3 --plant memory@5=4 --plant compile@6=6 \
	-o all >/dev/null || die "gentrace failed"
for r in 0 1; do
	va all$r --json all$r.json all-rank$r.trace.json.gz
	expect_rc all$r 0
	pycheck idle all-rank$r.trace.json.gz all$r.json ||
		die "rank $r: the idle attribution differs from the oracle"
	python3 - all-truth.json all$r.json $r <<'PY' || die "rank $r: planted gaps not found"
import json, sys
truth = json.load(open(sys.argv[1]))["ranks"][int(sys.argv[3])]["planted"]
rk = json.load(open(sys.argv[2]))["ranks"][0]
idle = rk["idle"]
whole = {c: v + idle["outside"]["by_cause"][c] for c, v in idle["by_cause"].items()}
top = {(g["start_ns"], g["dur_ns"]): g for g in idle["top"]}
fails, want = [], {}
for p in truth:
    want[p["cause"]] = want.get(p["cause"], 0) + p["dur_ns"]
    if p["kind"] == "sync":
        continue		# tens of microseconds each: too short for the top ten
    g = top.get((p["start_ns"], p["dur_ns"]))
    if not g:
        fails.append("%s gap at %d (%d ns) not among the longest" % (p["kind"], p["start_ns"], p["dur_ns"]))
    # (its step: the one holding its start, which is the step before the
    # stall's when the device last ran there)
    elif (g["cause"], g["host"]) != (p["cause"], p["host"]) or g["step"] not in (p["step"] - 1, p["step"]):
        fails.append("%s gap: %s %s step %s" % (p["kind"], g["cause"], g["host"], g["step"]))
if len(truth) != 7 + 40:
    fails.append("the truth lists %d gaps, not 47" % len(truth))
for c, ns in want.items():	# the planted time, and at most 1 ms of the rank's own gaps
    if not ns <= whole[c] <= ns + 1000000:
        fails.append("%s: %d ns attributed, %d planted" % (c, whole[c], ns))
print("\n".join(fails) or "ok: %d planted gaps found (%s)" % (len(truth), ", ".join(sorted(want))))
sys.exit(1 if fails else 0)
PY
done

# The same trace with its correlations beyond 32 bits and negative (held
# wide in launch.h's records, sorted by value, not by word): one-to-one, so
# every gap finds the same launch, and the idle figures are the same.
python3 - all-rank0.trace.json.gz <<'PY' || die "cannot write the wide-correlation trace"
import gzip, json, sys
t = json.load(gzip.open(sys.argv[1], "rt"))
n = 0
for e in t["traceEvents"]:
    a = e.get("args")
    if isinstance(a, dict) and isinstance(a.get("correlation"), int):
        c = a["correlation"]
        a["correlation"] = -(c + 2**40) if c % 2 else c + 2**33
        n += 1
assert n > 1000, n
json.dump(t, open("wide.json", "w"))
PY
va wide --json wide.json.out wide.json
expect_rc wide 0
pycheck idle wide.json wide.json.out || die "wide correlations: the idle attribution differs from the oracle"
check wide.json.out "r['ranks'][0]['idle'] == json.load(open('all0.json'))['ranks'][0]['idle']" \
	"wide correlations: the idle figures changed"

# each kind alone leads the findings, its time at stake the planted stall
for kind in dataloader:data-loading hostprep:host-compute init:init memory:memory-mgmt \
	capture:capture compile:compile gloo:collective-wait sync:sync; do
	k=${kind%%:*}
	amount=60
	[ "$k" = sync ] && amount=2000
	"$gen" --steps 6 --blocks 4 --plant "$k@2=$amount" -o "one-$k" >/dev/null ||
		die "gentrace --plant $k failed"
	va "one-$k" --json "one-$k.json" "one-$k-rank0.trace.json.gz"
	check "one-$k.json" "r['suggestions'][0]['id'] == 'idle-${kind#*:}'" "--plant $k: first finding" \
		"r['suggestions'][0]['impact_ns'] >= (40000000 if '$k' == 'sync' else 60000000)" \
		"--plant $k: the stall at stake"
done
"$gen" --plant nosuch@1=5 -o bad >/dev/null 2>bad.err && die "gentrace took an unknown --plant kind"
grep -q "unknown --plant kind" bad.err || die "gentrace's --plant error: $(cat bad.err)"
