#!/usr/bin/env bash
# plain build only: the reduce runs under the sanitizers in 120-126; this drives Slurm.
#
# The shipped Slurm jobs (scripts/slurm) on a real single-node Slurm: munged,
# slurmctld and slurmd started here, private to this test (own key, socket,
# ports, state and spool folders), stopped by their pid files at the end.
#
# - The 8 DLRM ranks, 3 files a task, --cpus above the node's count (so
#   clamped, not pending forever): the reduce exits 0 and its merged report
#   equals one vanalyze over the 8 files, but for the tool name.
# - 64 gentrace ranks under MaxArraySize 20 (so 4 files a task), one trace
#   removed after the manifest was made (its task fails): the reduce runs
#   anyway (afterany), exits 1 naming that rank as missing, and what it
#   merged equals one vanalyze over the other 63 files.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
need_vaggregate

for prog in munged slurmctld slurmd sbatch; do
	command -v "$prog" >/dev/null ||
		skip "$prog is not installed (scripts/deps.sh test installs slurm-wlm and munge)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd runs as root here, and this is not root"

cluster=$PWD/cluster
mkdir -p "$cluster"/{state,spool,log}
cleanup() {
	local f
	for f in slurmd slurmctld; do
		[ -s "$cluster/$f.pid" ] && kill "$(cat "$cluster/$f.pid")" 2>/dev/null
	done
	[ -S "$cluster/munge.sock" ] && munged --stop --socket="$cluster/munge.sock" >/dev/null 2>&1
	sleep 0.5
	for f in slurmd slurmctld munged; do
		[ -s "$cluster/$f.pid" ] && kill -9 "$(cat "$cluster/$f.pid")" 2>/dev/null
	done
	return 0
}
trap cleanup EXIT

dd if=/dev/urandom of="$cluster/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$cluster/munge.key"
munged --force --key-file="$cluster/munge.key" --socket="$cluster/munge.sock" \
	--pid-file="$cluster/munged.pid" --log-file="$cluster/log/munged.log" \
	--seed-file="$cluster/munged.seed" || die "munged did not start"

# Two free ports, so that this test and any other Slurm on the machine
# (another build's run of this test) never meet.
read -r port1 port2 < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
host=$(hostname -s)
mem=$(awk '/MemTotal/ { print int($2 / 1024) - 512 }' /proc/meminfo)
cat >"$cluster/slurm.conf" <<CONF
ClusterName=vtracetest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$cluster/munge.sock
CredType=cred/munge
SlurmctldPort=$port1
SlurmdPort=$port2
StateSaveLocation=$cluster/state
SlurmdSpoolDir=$cluster/spool
SlurmctldPidFile=$cluster/slurmctld.pid
SlurmdPidFile=$cluster/slurmd.pid
SlurmctldLogFile=$cluster/log/slurmctld.log
SlurmdLogFile=$cluster/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=batch_sched_delay=0
MaxArraySize=20
MinJobAge=600
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$cluster/slurm.conf
slurmctld -f "$SLURM_CONF" || die "slurmctld did not start"
slurmd -f "$SLURM_CONF" || die "slurmd did not start"
for _ in $(seq 100); do
	sinfo -h -o '%T' 2>/dev/null | grep -q idle && break
	sleep 0.1
done
sinfo -h -o '%T' | grep -q idle || { tail -n 20 "$cluster"/log/*.log >&2; die "the node never became idle"; }

mkdir bin
ln -s "$VANALYZE" bin/vanalyze
ln -s "$VAGGREGATE" bin/vaggregate

# wait_jobs ID...: until none is queued or running (60 s at most).
wait_jobs() {
	local ids
	ids=$(IFS=,; echo "$*")
	for _ in $(seq 600); do
		[ -z "$(squeue -h -j "$ids" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	squeue >&2
	die "jobs $ids still queued after 60 s"
}

# exit_code JOB: the job's exit status, from the controller.
exit_code() {
	scontrol show job "$1" | sed -n 's/.*ExitCode=\([0-9]*\):.*/\1/p' | head -n 1
}

# same_report A B: equal but for the tool name (as test 120 checks).
same_report() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for key in ("schema", "inputs", "ranks", "cross_rank", "stragglers", "suggestions"):
    if a.get(key) != b.get(key):
        sys.exit("%s differs between %s and %s" % (key, sys.argv[1], sys.argv[2]))
print("same: %d ranks" % len(a["ranks"]))
PY
}

# --- 1: the 8 DLRM ranks, a clean run, from a directory that also holds
# a file that is no trace.
mkdir dlrm
cp "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker*.json.gz dlrm/
echo '{"frames": 81}' >dlrm/run-meta.json
run_as dlrm "$VT_ROOT/scripts/slurm/vtrace-slurm" --full --bin bin --cpus 64 --files-per-task 3 \
	--throttle 2 dlrm run1
expect_rc dlrm 0
expect_line dlrm.err 'note: --cpus 64 is more than any node has' "the CPU clamp note"
expect_line dlrm.err 'run-meta.json: not a trace, left out' "the manifest's note"
read -r map red < <(tail -n 1 dlrm.out)
wait_jobs "$map" "$red"
[ "$(exit_code "$red")" = 0 ] || { cat run1/logs/*; die "the DLRM reduce job failed"; }
grep -q "" run1/manifest-"$map".txt || die "no manifest kept"
[ "$(wc -l <run1/manifest-"$map".txt)" -eq 8 ] || die "manifest: $(wc -l <run1/manifest-"$map".txt) lines, expected 8"
mapfile -t files <run1/manifest-"$map".txt
va whole -j 2 --json whole.json "${files[@]}"
same_report whole.json "run1/merged/$map/report.json" || die "map/reduce on Slurm differs from one vanalyze"
ls run1/logs/map-"$map"_*.out >/dev/null || die "no map logs in the run folder"
echo "pass: DLRM, clean run, identical to one vanalyze"

# --- 2: 64 ranks, one task fails.
mkdir g
"$VT_BUILD/gentrace" --ranks 64 --steps 2 --blocks 2 -o g/run --truth g-truth.json >/dev/null ||
	die "gentrace failed"
"$VT_ROOT/scripts/slurm/vtrace-manifest" g >manifest.txt
[ "$(wc -l <manifest.txt)" -eq 64 ] || die "vtrace-manifest found $(wc -l <manifest.txt) traces, expected 64"
lost=$(grep -- '-rank37\.' manifest.txt)
rm -- "$lost"
run_as big "$VT_ROOT/scripts/slurm/vtrace-slurm" --full --bin bin --cpus 1 --throttle 8 manifest.txt run2
expect_rc big 0
expect_line big.out '64 traces, 16 map tasks of 4 file\(s\)' "64 files under MaxArraySize 20"
read -r map red < <(tail -n 1 big.out)
wait_jobs "$map" "$red"
[ "$(exit_code "$red")" = 1 ] || { cat run2/logs/reduce-*; die "the reduce should fail: a rank is missing"; }
expect_line run2/logs/reduce-"$red".out '1 of 64 ranks missing \(world_size 64\): rank 37$' \
	"the reduce's log"
failed_tasks=$(grep -l 'files failed' run2/logs/map-"$map"_*.out | wc -l)
[ "$failed_tasks" -eq 1 ] || die "$failed_tasks map tasks say a file failed, expected 1"
grep -v -- "$lost" manifest.txt >kept.txt
mapfile -t files <kept.txt
va rest -j 2 --json rest.json "${files[@]}"
same_report rest.json "run2/merged/$map/report.json" || die "the 63 merged ranks differ from one vanalyze"
echo "pass: 64 ranks, 16 tasks, rank 37 named missing, the rest identical"
