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

. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/lib.sh"

SLURM_SBIN=${SLURM_SBIN:-/usr/sbin}
SLURM_DIR=""
SLURMCTLD_PID=""
SLURMD_PID=""   # slurm_multi_up: one pid per node
# prefix of client commands (sinfo, squeue, scancel, sbatch, ...): empty for
# the one-node cluster; slurm_multi_up runs them in the controller's host
SLURM_CLIENT=""
SLURM_NETNS=""  # set by slurm_multi_up: the namespaces go at exit too
# seconds to wait for the node to become idle
SLURM_UP_TIMEOUT=${SLURM_UP_TIMEOUT:-30}

slurm_skip() {
    t_skip "$@"
}

slurm_log_tail() {
    local f
    for f in "$SLURM_DIR"/slurmctld.log "$SLURM_DIR"/slurmd*.log; do
        [ -f "$f" ] || continue
        echo "--- last lines of $f:"
        tail -n 15 "$f"
    done
}

# A TCP port nothing listens on now (tests/lib.sh). A daemon that still
# loses the race fails to bind; slurm_cluster_up then retries.
slurm_free_port() {
    t_free_port
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
        $SLURM_CLIENT timeout 10 scancel --full --quiet --user="$(id -un)" 2>/dev/null
        # give the step daemons a moment to end the tasks the way Slurm does
        for i in $(seq 1 30); do
            [ -z "$($SLURM_CLIENT timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    for i in $SLURMD_PID; do
        slurm_stop_pid "$i"
    done
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
    [ -z "$SLURM_NETNS" ] || mh_cleanup
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

# slurm_multi_up N: a cluster of N compute nodes on one machine, each node a
# network namespace (tests/multihost/netns.sh) with its own slurmd, and the
# controller in one more namespace ("login host", SLURM_LOGIN = its name):
#   SLURM_NODES[i]  the Slurm node names, rtmsl<pid>n1..nN, NodeAddr the
#                   namespace's veth address; they differ from the
#                   namespace names and the machine's hostname, so a job
#                   finds its node by Slurm's name (SLURMD_NODENAME) only
#   SLURM_NODE_NS[i] the namespace of node i
#   SLURM_CLIENT    "ip netns exec <login>": prefix for sbatch, salloc, sinfo
# Debian's Slurm 22.05 is built with --enable-multiple-slurmd (`scontrol show
# config` says MULTIPLE_SLURMD = Yes), so several slurmd could also share the
# machine's network stack with a Port= per node; namespaces are used instead
# so each node has an address of its own and the job's traffic between nodes
# crosses a link, as between real hosts (and as in tests/multihost). Spool,
# pid and log files are per node (%n in slurm.conf). Exits 77 when Slurm or
# the namespaces cannot be used here.
slurm_multi_up() {
    local n=$1 i node_line cpu_part state start idle=0
    command -v nsenter >/dev/null 2>&1 || slurm_skip "nsenter (util-linux) is needed"
    for i in slurmctld slurmd; do
        [ -x "$SLURM_SBIN/$i" ] || slurm_skip "$SLURM_SBIN/$i is not installed (scripts/deps.sh installs Slurm)"
    done
    for i in srun sbatch salloc sinfo squeue scancel; do
        command -v "$i" >/dev/null 2>&1 || slurm_skip "$i is not installed (package slurm-client)"
    done
    [ "$(id -u)" -eq 0 ] || slurm_skip "slurmd must run as root to start jobs; running as $(id -un)"
    node_line=$("$SLURM_SBIN/slurmd" -C 2>/dev/null | grep '^NodeName=')
    [ -n "$node_line" ] || slurm_skip "slurmd -C does not describe this machine"
    # every node claims the machine's CPUs and memory (they share them)
    cpu_part=$(printf '%s\n' "$node_line" | sed 's/^NodeName=[^ ]* //')

    . "$top_srcdir/tests/multihost/netns.sh"
    SLURM_NETNS=1
    mh_setup $((n + 1))
    SLURM_LOGIN=${MH_HOSTS[0]}
    SLURM_CLIENT="ip netns exec $SLURM_LOGIN"
    SLURM_NODES=()
    SLURM_NODE_NS=()
    for ((i = 1; i <= n; i++)); do
        SLURM_NODES+=("rtmsl$$n$i")
        SLURM_NODE_NS+=("${MH_HOSTS[i]}")
    done

    SLURM_DIR=$(mktemp -d /tmp/rtm-slurm.XXXXXX)
    chmod 755 "$SLURM_DIR"
    trap slurm_cluster_down EXIT
    trap 'exit 143' TERM INT
    mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/tmp"
    for i in "${SLURM_NODES[@]}"; do
        mkdir -p "$SLURM_DIR/spool/$i"
    done
    export SLURM_CONF=$SLURM_DIR/slurm.conf
    unset SLURM_JOB_ID SLURM_JOBID SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE

    # The namespaces are new: the standard ports are free in each.
    # SlurmctldHost must be this machine's hostname (slurmctld checks),
    # reached at the login namespace's address.
    slurm_write_conf "$(hostname -s)" "NodeName=rtmslunused $cpu_part" 6817 6818
    sed -i -e "s|^SlurmctldHost=.*|SlurmctldHost=$(hostname -s)(10.213.0.1)|" \
        -e "s|^SlurmdSpoolDir=.*|SlurmdSpoolDir=$SLURM_DIR/spool/%n|" \
        -e "s|^SlurmdPidFile=.*|SlurmdPidFile=$SLURM_DIR/slurmd.%n.pid|" \
        -e "s|^SlurmdLogFile=.*|SlurmdLogFile=$SLURM_DIR/slurmd.%n.log|" \
        -e '/^NodeName=rtmslunused/d' -e '/^PartitionName=/d' "$SLURM_CONF"
    for ((i = 0; i < n; i++)); do
        echo "NodeName=${SLURM_NODES[i]} NodeAddr=10.213.0.$((i + 2)) $cpu_part State=UNKNOWN"
    done >>"$SLURM_CONF"
    echo "PartitionName=rtm Nodes=$(IFS=,; echo "${SLURM_NODES[*]}") Default=YES MaxTime=10 State=UP OverSubscribe=FORCE:4" \
        >>"$SLURM_CONF"

    start=$(date +%s.%N)
    nsenter --net="/run/netns/$SLURM_LOGIN" "$SLURM_SBIN/slurmctld" -D -c -f "$SLURM_CONF" </dev/null >>"$SLURM_DIR/slurmctld.out" 2>&1 &
    SLURMCTLD_PID=$!
    SLURMD_PID=""
    for ((i = 0; i < n; i++)); do
        # nsenter, not ip netns exec: that mounts a sysfs of the namespace
        # over /sys, hiding /sys/fs/cgroup, and slurmd 22.05 then fails
        # ("Unable to initialize cgroup plugin") even with proctrack/linuxproc
        nsenter --net="/run/netns/${SLURM_NODE_NS[i]}" "$SLURM_SBIN/slurmd" -D -f "$SLURM_CONF" -N "${SLURM_NODES[i]}" \
            </dev/null >>"$SLURM_DIR/slurmd.${SLURM_NODES[i]}.out" 2>&1 &
        SLURMD_PID="$SLURMD_PID $!"
    done
    for i in $(seq 1 $((SLURM_UP_TIMEOUT * 5))); do
        kill -0 "$SLURMCTLD_PID" 2>/dev/null || break
        # shellcheck disable=SC2086
        kill -0 $SLURMD_PID 2>/dev/null || break
        idle=$($SLURM_CLIENT timeout 5 sinfo -h -N -o '%N %T' 2>/dev/null | grep -c ' idle')
        [ "$idle" = "$n" ] && break
        sleep 0.2
    done
    if [ "$idle" = "$n" ]; then
        echo "slurm: $n-node cluster (${SLURM_NODES[*]} in namespaces ${SLURM_NODE_NS[*]}, controller in $SLURM_LOGIN) up in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
        return 0
    fi
    echo "slurm: the $n-node cluster did not come up ($idle of $n nodes idle):"
    $SLURM_CLIENT timeout 5 sinfo -N 2>&1
    slurm_log_tail
    cat "$SLURM_DIR"/*.out 2>/dev/null | tail -n 10
    slurm_skip "Slurm cannot start $n nodes in network namespaces here; see the logs above"
}
