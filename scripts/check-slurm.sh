#!/usr/bin/env bash
# make check-slurm: runs examples/slurm/convert-corpus.sbatch on a real, throwaway one-node Slurm
# cluster and checks that the sharded batch is the one-process batch.
#
#   AUDIOPIPE=.build/release/audiopipe bash scripts/check-slurm.sh    (NFILES=300 by default)
#
# Installs slurm-wlm, munge and sox with apt-get when missing. Everything else lives in one
# temporary directory: a slurm.conf (SLURM_CONF points to it; ports chosen free, so a Slurm or
# MUNGE already on the machine is neither used nor disturbed), a MUNGE key and socket, state,
# spool, logs, the corpus and the outputs. It starts its own munged, slurmctld and slurmd in the
# foreground as background children, submits the array job (4 tasks, --shard auto), runs the same
# corpus as one process, and checks: identical output trees (file lists and bytes), every input
# in exactly one shard's report, no shard empty, all ok. On exit it stops exactly the processes it
# started (by pid; then any job step left, by a variable only its daemons and job carry) and
# removes the directory. Never touches systemd, /etc/slurm or /etc/munge.
set -euo pipefail
AUDIOPIPE=${AUDIOPIPE:-.build/release/audiopipe} # relative: to here, else to the repository
if [ "${AUDIOPIPE#/}" = "$AUDIOPIPE" ] && [ -x "$AUDIOPIPE" ]; then AUDIOPIPE=$PWD/$AUDIOPIPE; fi
cd "$(dirname "$0")/.."
ROOT=$PWD
SBATCH_FILE=$ROOT/examples/slurm/convert-corpus.sbatch
NFILES=${NFILES:-300}
SHARDS=4
if [ ! -x "$AUDIOPIPE" ]; then
  echo "check-slurm: $AUDIOPIPE: no such executable (make release, or set AUDIOPIPE)" >&2
  exit 1
fi
AUDIOPIPE=$(cd "$(dirname "$AUDIOPIPE")" && pwd)/$(basename "$AUDIOPIPE")
start=$SECONDS
# Run inside a Slurm job or with a user's defaults, the clients would take these over our options.
while read -r v; do unset "$v"; done < <(
  compgen -e | grep -E '^(SLURM|SBATCH|SQUEUE|SINFO|SCONTROL|SALLOC|SRUN)_' || true)

# --- Tools --------------------------------------------------------------------------------------
bash scripts/install-deps.sh slurm-wlm munge -- \
  --commands slurmctld slurmd munged sbatch sinfo squeue scontrol scancel
bash scripts/install-deps.sh sox -- --commands sox
for c in python3 diff; do
  command -v "$c" >/dev/null || { echo "check-slurm: $c is needed" >&2; exit 1; }
done
SLURMCTLD=$(command -v slurmctld)
SLURMD=$(command -v slurmd)
MUNGED=$(command -v munged)

# --- Scratch directory and cleanup --------------------------------------------------------------
T=$(mktemp -d "${TMPDIR:-/tmp}/audiopipe-check-slurm.XXXXXX")
T=$(cd "$T" && pwd -P) # the spelling audiopipe will report (no //, no symlink)
chmod 755 "$T" # munged wants its socket's directories searchable by all
pids=()        # the daemons, in start order
jobid=""
ctld_pid=""
ok=0
# Slurm's clients retry an unreachable controller for minutes: bound every call.
sq() { timeout 10 squeue "$@"; }

show_logs() {
  local f
  for f in "$T"/log/*.out "$T"/log/munged.log "$T"/job/*.log; do
    [ -f "$f" ] || continue
    echo "---- ${f#"$T"/} (last 40 lines)" >&2
    tail -n 40 "$f" >&2
  done
}

# What our cluster started and may have left (slurmstepd, job scripts, audiopipe): processes that
# inherited CHECK_SLURM_TAG (only our daemons and sbatch are given it), and slurmstepds holding a
# file in $T. With "jobs": not the daemons themselves nor their children (slurmscriptd).
TAG=$T
ours() {
  local f p c st
  {
    grep -lzxF "CHECK_SLURM_TAG=$TAG" /proc/[0-9]*/environ 2>/dev/null | while read -r f; do
      p=${f#/proc/} && echo "${p%/environ}"
    done
    for p in /proc/[0-9]*; do
      c="" && { IFS= read -r -d '' c 2>/dev/null <"$p/cmdline" || true; }
      [ "${c#slurmstepd}" != "$c" ] || continue
      if readlink "$p"/fd/* 2>/dev/null | grep -q "^$T/"; then echo "${p#/proc/}"; fi
    done
  } | sort -un | while read -r p; do
    if [ "${1:-}" = jobs ]; then
      st="" && { read -r st 2>/dev/null <"/proc/$p/stat" || true; }
      st=${st##*) } && st=${st#* } && st=${st%% *} # the parent's pid
      case " ${pids[*]} " in *" $p "* | *" $st "*) continue ;; esac
    fi
    echo "$p"
  done
}

stop() { # stop PIDS...: TERM, up to 5 s, then KILL
  local p i alive
  [ $# -gt 0 ] || return 0
  kill "$@" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    alive=0
    for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for p in "$@"; do
    if kill -0 "$p" 2>/dev/null; then
      echo "check-slurm: pid $p did not stop; killing it" >&2
      kill -9 "$p" 2>/dev/null || true
    fi
  done
}

cleanup() {
  local rc=$? i p left
  trap - EXIT INT TERM
  if [ $ok = 0 ]; then
    echo "check-slurm: FAILED (exit $rc)" >&2
    show_logs
    [ $rc = 0 ] && rc=1
  fi
  if [ -n "$ctld_pid" ] && kill -0 "$ctld_pid" 2>/dev/null; then
    # A job still running (the check failed or was interrupted): cancel it while slurmctld is up.
    if [ -n "$jobid" ] && [ -n "$(timeout 5 squeue -h -j "$jobid" 2>/dev/null)" ]; then
      timeout 5 scancel "$jobid" 2>/dev/null || true
      for ((i = 0; i < 50; i++)); do
        [ -z "$(timeout 5 squeue -h -j "$jobid" 2>/dev/null)" ] && break
        sleep 0.1
      done
    fi
    # Job steps finishing (slurmstepd lingers a moment after its job): let them end first.
    for ((i = 0; i < 50; i++)); do
      [ -z "$(ours jobs)" ] && break
      sleep 0.1
    done
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop "${pids[$i]}"; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  left=$(ours | tr '\n' ' ')
  if [ -n "$left" ]; then
    echo "check-slurm: stopping leftover job processes: $left" >&2
    # shellcheck disable=SC2086
    stop $left
  fi
  rm -rf "$T"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$T"/{log,state,spool,run,job,munge}
chmod 755 "$T/munge"

# --- MUNGE --------------------------------------------------------------------------------------
if command -v mungekey >/dev/null; then
  mungekey --create --keyfile="$T/munge/munge.key"
else
  dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
fi
chmod 600 "$T/munge/munge.key"
MUNGE_SOCKET=$T/munge/munge.socket
CHECK_SLURM_TAG=$TAG "$MUNGED" --foreground --force --socket="$MUNGE_SOCKET" --key-file="$T/munge/munge.key" \
  --pid-file="$T/run/munged.pid" --seed-file="$T/munge/munged.seed" --log-file="$T/log/munged.log" \
  >>"$T/log/munged.log" 2>&1 &
pids+=($!)
for ((i = 0; i < 100; i++)); do [ -S "$MUNGE_SOCKET" ] && break; sleep 0.1; done
[ -S "$MUNGE_SOCKET" ] || { echo "check-slurm: munged did not start" >&2; exit 1; }

# --- slurm.conf ---------------------------------------------------------------------------------
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
CTLD_PORT=$(free_port)
SLURMD_PORT=$(free_port)
while [ "$SLURMD_PORT" = "$CTLD_PORT" ]; do SLURMD_PORT=$(free_port); done
HOST=$(hostname -s)
CPUS=$(nproc)
MEM_MB=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
REAL_MEM=$((MEM_MB > 2048 ? 1024 : MEM_MB / 2))
export SLURM_CONF=$T/slurm.conf
cat >"$SLURM_CONF" <<EOF
# Throwaway one-node cluster of scripts/check-slurm.sh
ClusterName=audiopipe-check
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/run/slurmctld.pid
SlurmdPidFile=$T/run/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$T/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
MinJobAge=300
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$REAL_MEM State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
: >"$T/plugstack.conf"

# --- slurmctld, slurmd --------------------------------------------------------------------------
CHECK_SLURM_TAG=$TAG "$SLURMCTLD" -D -i >>"$T/log/slurmctld.out" 2>&1 &
ctld_pid=$!
pids+=($!)
CHECK_SLURM_TAG=$TAG "$SLURMD" -D -N "$HOST" >>"$T/log/slurmd.out" 2>&1 &
pids+=($!)
state=""
for ((i = 0; i < 300; i++)); do
  state=$(timeout 5 sinfo -h -N -n "$HOST" -o %t 2>/dev/null || true)
  [ "$state" = idle ] && break
  for p in "${pids[@]}"; do
    kill -0 "$p" 2>/dev/null || { echo "check-slurm: a daemon (pid $p) exited" >&2; exit 1; }
  done
  sleep 0.1
done
if [ "$state" != idle ]; then
  echo "check-slurm: node $HOST not idle after 30 s (state: '${state:-no answer}')" >&2
  exit 1
fi
t_cluster=$SECONDS

# --- Corpus: NFILES short 48 kHz stereo files, most in (nested) subdirectories ------------------
IN=$T/corpus
python3 - "$IN" "$NFILES" >"$T/corpus.list" <<'EOF'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
dirs = ["", "speaker a", "b", "b/session-01", "b/session-02", "c/x/y"]
for d in dirs:
    os.makedirs(os.path.join(root, d), exist_ok=True)
for i in range(n):
    name = f"clip {i:04d}.flac" if i % 10 == 3 else f"clip-{i:04d}.wav"  # some FLAC, some spaces
    dur = 0.2 + (i * 37 % 31) / 100  # 0.20 .. 0.50 s
    print(f"{os.path.join(root, dirs[i % len(dirs)], name)}\t{dur:.2f}\t{110 + i * 7}")
EOF
# shellcheck disable=SC2016
tr '\n' '\0' <"$T/corpus.list" | xargs -0 -n 1 -P "$CPUS" bash -c '
  IFS=$(printf "\t") read -r f dur freq <<<"$1"
  sox -n -r 48000 -c 2 -b 16 "$f" synth "$dur" sine "$freq" sine "$((freq * 3 / 2))" gain -3' _
made=$(find "$IN" -type f | wc -l)
[ "$made" = "$NFILES" ] || { echo "check-slurm: made $made of $NFILES corpus files" >&2; exit 1; }
t_corpus=$SECONDS

# --- The array job ------------------------------------------------------------------------------
OUT=$T/out-slurm
t0=$SECONDS
# One CPU a task (the example asks for 2), so the tasks also run side by side on a small machine.
jobid=$(CHECK_SLURM_TAG=$TAG INPUT=$IN OUTPUT=$OUT AUDIOPIPE=$AUDIOPIPE timeout 60 sbatch --parsable \
  --export=ALL --array=0-$((SHARDS - 1)) --cpus-per-task=1 --chdir="$T/job" "$SBATCH_FILE")
jobid=${jobid%%;*}
echo "check-slurm: submitted array job $jobid ($SHARDS tasks, $NFILES files)"
errors=0
while :; do
  if ! queued=$(sq -h -j "$jobid" 2>&1); then
    errors=$((errors + 1))
    [ $errors -lt 5 ] || { echo "check-slurm: squeue fails: $queued" >&2; exit 1; }
  elif [ -z "$queued" ]; then
    break
  fi
  for p in "${pids[@]}"; do
    kill -0 "$p" 2>/dev/null || { echo "check-slurm: a daemon (pid $p) exited" >&2; exit 1; }
  done
  if [ $((SECONDS - t0)) -gt 300 ]; then
    echo "check-slurm: job $jobid not done after 300 s" >&2
    sq -j "$jobid" >&2 || true
    exit 1
  fi
  sleep 0.2
done
t_slurm=$((SECONDS - t0))
# Every task COMPLETED with exit 0 (scontrol keeps finished jobs for MinJobAge seconds).
info=$(timeout 10 scontrol -o show job "$jobid")
tasks=$(grep -c "ArrayJobId=$jobid " <<<"$info" || true)
bad=$(grep "ArrayJobId=$jobid " <<<"$info" | grep -v 'JobState=COMPLETED .*ExitCode=0:0' || true)
if [ "$tasks" != "$SHARDS" ] || [ -n "$bad" ]; then
  echo "check-slurm: expected $SHARDS tasks COMPLETED with ExitCode=0:0, got $tasks:" >&2
  awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(JobId|ArrayTaskId|JobState|Reason|ExitCode)=/) printf "%s ", $i
         print "" }' <<<"$info" >&2
  exit 1
fi
for ((k = 0; k < SHARDS; k++)); do
  log=$T/job/audiopipe-convert-${jobid}_$k.log
  [ -s "$log" ] || { echo "check-slurm: no log $log (the sbatch --output pattern)" >&2; exit 1; }
done

# --- The same corpus in one process -------------------------------------------------------------
ONE=$T/out-one
mkdir -p "$ONE"
t0=$SECONDS
"$AUDIOPIPE" convert "$IN" --recursive -o "$ONE" -r 16000 -c 1 --report "$ONE/results.jsonl" -q --no-progress
t_one=$((SECONDS - t0))

# --- Checks -------------------------------------------------------------------------------------
list() { (cd "$1" && find . \( -type f -o -type l \) ! -name 'results*.jsonl' | LC_ALL=C sort); }
if ! diff <(list "$ONE") <(list "$OUT") >"$T/lists.diff"; then
  echo "check-slurm: the output trees hold different files (< one process, > Slurm):" >&2
  head -n 20 "$T/lists.diff" >&2
  exit 1
fi
outputs=$(list "$OUT" | wc -l)
[ "$outputs" = "$NFILES" ] || { echo "check-slurm: $outputs outputs for $NFILES inputs" >&2; exit 1; }
if ! diff -r -x 'results*.jsonl' "$ONE" "$OUT" >&2; then
  echo "check-slurm: the sharded outputs differ from the one-process outputs" >&2
  exit 1
fi
reports=()
for ((k = 0; k < SHARDS; k++)); do reports+=("$OUT/results-$k.jsonl"); done
python3 scripts/merge-reports.py "${reports[@]}" >"$T/merged.jsonl"
per_shard=$(python3 - "$IN" "$T/corpus.list" "$T/merged.jsonl" "$ONE/results.jsonl" "${reports[@]}" <<'EOF'
import json, os, sys
root, corpus, merged, one, reports = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
fail = []
inputs = {line.split("\t")[0] for line in open(corpus)}
def lines(path):
    return [json.loads(l) for l in open(path)]
def fnv1a(s):  # the shard hash audiopipe documents (Shard.swift): FNV-1a 64 of the relative path
    h = 0xcbf29ce484222325
    for b in s.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h
m = lines(merged)
seen = [r["input"] for r in m]
if len(seen) != len(set(seen)) or set(seen) != inputs or len(m) != len(inputs):
    fail.append(f"merged report: {len(m)} lines, {len(set(seen))} inputs; corpus {len(inputs)}; "
                f"missing {sorted(inputs - set(seen))[:3]}, unknown {sorted(set(seen) - inputs)[:3]}")
fail += [f"{r['input']}: {r['status']} {r.get('error')}" for r in m if r["status"] != "ok"][:5]
shards = []
for k, path in enumerate(reports):
    rs = lines(path)
    mine = [r["input"] for r in rs]
    if len(mine) != len(set(mine)):
        fail.append(f"{os.path.basename(path)}: an input appears twice")
    if not mine:
        fail.append(f"{os.path.basename(path)}: empty shard")
    wrong = [i for i in mine if fnv1a(os.path.relpath(i, root)) % len(reports) != k]
    if wrong:
        fail.append(f"{os.path.basename(path)} (task {k} = shard {k + 1}/{len(reports)}) holds another "
                    f"shard's {len(wrong)} inputs, such as {wrong[0]}")
    shards.append(set(mine))
for a in range(len(shards)):
    for b in range(a + 1, len(shards)):
        if shards[a] & shards[b]:
            fail.append(f"shards {a} and {b} share {len(shards[a] & shards[b])} inputs")
if sum(map(len, shards)) != len(inputs):
    fail.append(f"the shards hold {sum(map(len, shards))} inputs, the corpus {len(inputs)}")
single = lines(one)
if {r["input"] for r in single} != inputs or any(r["status"] != "ok" for r in single):
    fail.append("the one-process report does not list every input as ok")
if fail:
    print("check-slurm: " + "\ncheck-slurm: ".join(fail), file=sys.stderr)
    sys.exit(1)
print("+".join(str(len(s)) for s in shards))
EOF
)
ok=1
echo "check-slurm: ok: $NFILES files, $SHARDS shards ($per_shard files), outputs identical to one process;" \
  "cluster up in $((t_cluster - start)) s, corpus $((t_corpus - t_cluster)) s, array job $t_slurm s," \
  "one process $t_one s, total $((SECONDS - start)) s"
