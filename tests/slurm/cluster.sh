# A one-node Slurm cluster for one test file (sourced, not run).
#
# slurm_cluster_up writes a slurm.conf into a fresh temp dir (state, spool,
# logs, pid files all under it), starts slurmctld and slurmd on ports
# nobody listens on, exports SLURM_CONF and waits until the node is idle.
# An EXIT trap stops both daemons by PID, cancels what is left of any job,
# kills step daemons of this cluster only, and removes the temp dir.
# When Slurm cannot run here (not installed, not root, a daemon that does
# not come up) the test exits 77 with the reason: never a pass.
#
# No munge: AuthType=auth/none and CredType=cred/none (Slurm 22.05).
# ProctrackType=proctrack/linuxproc and TaskPlugin=task/none: no cgroups.

: "${top_builddir:?run through make check (top_builddir unset)}"
: "${top_srcdir:?run through make check (top_srcdir unset)}"
: "${RTRUN:=$top_builddir/rtrun}"

# libpmix leaks a few strings of its own; never suppress our own leaks.
if [ -f "$top_srcdir/tests/lsan.supp" ] && ! printf '%s' "${LSAN_OPTIONS:-}" | grep -q lsan.supp; then
    export LSAN_OPTIONS="suppressions=$top_srcdir/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fi

SLURM_SBIN=${SLURM_SBIN:-/usr/sbin}
SLURM_DIR=""
SLURMCTLD_PID=""
SLURMD_PID=""
# seconds to wait for the node to become idle
SLURM_UP_TIMEOUT=${SLURM_UP_TIMEOUT:-30}

slurm_skip() {
    echo "SKIP: $*"
    exit 77
}

slurm_log_tail() {
    local f
    for f in "$SLURM_DIR"/slurmctld.log "$SLURM_DIR"/slurmd.log; do
        [ -f "$f" ] || continue
        echo "--- last lines of $f:"
        tail -n 15 "$f"
    done
}

# A TCP port in 20000-59999 that nothing listens on now. A daemon that
# still loses the race fails to bind; slurm_cluster_up then retries.
slurm_free_port() {
    local p used
    used=$(ss -Htln 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }')
    while :; do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        if ! printf '%s\n' $used $SLURM_PORTS_TAKEN | grep -qx "$p"; then
            SLURM_PORTS_TAKEN="$SLURM_PORTS_TAKEN $p"
            echo "$p"
            return 0
        fi
    done
}

# The pids of slurmstepd processes of this cluster: they hold sockets in
# its spool dir open or were started with its config.
slurm_our_stepds() {
    local p
    for p in $(pgrep -x slurmstepd 2>/dev/null); do
        if ls -l "/proc/$p/fd" 2>/dev/null | grep -q -- "$SLURM_DIR" ||
            { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qx "SLURM_CONF=$SLURM_DIR/slurm.conf"; then
            echo "$p"
        fi
    done
}

slurm_stop_pid() {
    local pid=$1 i
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for i in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 0
}

slurm_cluster_down() {
    local i left
    [ -n "$SLURM_DIR" ] || return 0
    if [ -n "$SLURMCTLD_PID" ] && kill -0 "$SLURMCTLD_PID" 2>/dev/null; then
        timeout 10 scancel --full --quiet --user="$(id -un)" 2>/dev/null
        # give the step daemons a moment to end the tasks the way Slurm does
        for i in $(seq 1 30); do
            [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    slurm_stop_pid "$SLURMD_PID"
    slurm_stop_pid "$SLURMCTLD_PID"
    left=$(slurm_our_stepds)
    if [ -n "$left" ]; then
        echo "note: killing step daemons left by the cluster: $(echo $left)"
        kill -KILL $left 2>/dev/null
    fi
    SLURMD_PID=""
    SLURMCTLD_PID=""
    rm -rf "$SLURM_DIR"
    SLURM_DIR=""
}

slurm_write_conf() {
    local host=$1 node_line=$2 ctld_port=$3 d_port=$4
    cat >"$SLURM_DIR/slurm.conf" <<EOF
# written by tests/slurm/cluster.sh for one test run
ClusterName=rtmtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool
TmpFS=$SLURM_DIR/tmp
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$SLURM_DIR/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=2
KillWait=2
$node_line NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=rtm Nodes=$host Default=YES MaxTime=10 State=UP OverSubscribe=FORCE:4
EOF
    : >"$SLURM_DIR/plugstack.conf"
}

# slurm_cluster_up: as described at the top; exits 77 when Slurm cannot run.
slurm_cluster_up() {
    local host node_line attempt i state start
    for i in slurmctld slurmd; do
        [ -x "$SLURM_SBIN/$i" ] || slurm_skip "$SLURM_SBIN/$i is not installed (scripts/deps.sh installs Slurm)"
    done
    for i in srun sbatch salloc sinfo squeue scancel; do
        command -v "$i" >/dev/null 2>&1 || slurm_skip "$i is not installed (package slurm-client)"
    done
    [ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix.so ] || ls /usr/lib/*/slurm-wlm/mpi_pmix.so >/dev/null 2>&1 ||
        slurm_skip "Slurm's mpi/pmix plugin is missing (package slurm-wlm-basic-plugins)"
    [ "$(id -u)" -eq 0 ] || slurm_skip "slurmd must run as root to start jobs; running as $(id -un)"
    command -v ss >/dev/null 2>&1 || slurm_skip "ss (iproute2) is needed to find free ports"

    host=$(hostname -s)
    # What slurmd finds on this machine: CPUs, sockets, cores, memory.
    node_line=$("$SLURM_SBIN/slurmd" -C 2>/dev/null | grep '^NodeName=')
    [ -n "$node_line" ] || slurm_skip "slurmd -C does not describe this machine"
    host=$(printf '%s\n' "$node_line" | sed 's/^NodeName=\([^ ]*\).*/\1/')

    SLURM_DIR=$(mktemp -d /tmp/rtm-slurm.XXXXXX)
    chmod 755 "$SLURM_DIR"
    trap slurm_cluster_down EXIT
    trap 'exit 143' TERM INT
    mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/spool" "$SLURM_DIR/tmp"
    export SLURM_CONF=$SLURM_DIR/slurm.conf
    # Nothing of the caller's own allocation leaks into this cluster.
    unset SLURM_JOB_ID SLURM_JOBID SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE

    start=$(date +%s.%N)
    for attempt in 1 2 3; do
        SLURM_PORTS_TAKEN=""
        slurm_write_conf "$host" "$node_line" "$(slurm_free_port)" "$(slurm_free_port)"
        "$SLURM_SBIN/slurmctld" -D -c -f "$SLURM_CONF" </dev/null >>"$SLURM_DIR/slurmctld.out" 2>&1 &
        SLURMCTLD_PID=$!
        "$SLURM_SBIN/slurmd" -D -f "$SLURM_CONF" -N "$host" </dev/null >>"$SLURM_DIR/slurmd.out" 2>&1 &
        SLURMD_PID=$!
        state=""
        for i in $(seq 1 $((SLURM_UP_TIMEOUT * 5))); do
            kill -0 "$SLURMCTLD_PID" 2>/dev/null || break
            kill -0 "$SLURMD_PID" 2>/dev/null || break
            state=$(timeout 5 sinfo -h -n "$host" -o %T 2>/dev/null)
            case $state in idle*) break ;; esac
            sleep 0.2
        done
        case $state in idle*)
            echo "slurm: one-node cluster ($host) up in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s, SLURM_CONF=$SLURM_CONF"
            return 0 ;;
        esac
        # A lost race for a port shows as a bind error: try other ports.
        if grep -qiE 'address already in use|bind' "$SLURM_DIR"/slurmctld.log "$SLURM_DIR"/slurmd.log \
            "$SLURM_DIR"/*.out 2>/dev/null; then
            slurm_stop_pid "$SLURMD_PID"
            slurm_stop_pid "$SLURMCTLD_PID"
            rm -rf "$SLURM_DIR"/state/* "$SLURM_DIR"/spool/* "$SLURM_DIR"/*.log "$SLURM_DIR"/*.out
            continue
        fi
        break
    done
    echo "slurm: the cluster did not come up (node state \"$state\")"
    slurm_log_tail
    cat "$SLURM_DIR"/*.out 2>/dev/null | tail -n 10
    slurm_skip "Slurm cannot start on this machine; see the logs above"
}
