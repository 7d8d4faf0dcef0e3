# Sourced by setup-and-demo and run-tests: installs the Debian packages the
# build and the tests need, only those missing, as root or through sudo.

# Build: toolchain, autotools, OpenPMIx, hwloc and libsodium (required; the
# job secret's MAC), RDMA (detected).
# Tests: procps (pgrep/ps in the fault tests); ibverbs-utils, perftest and
# iproute2 (stock verbs tools and network namespaces the softib tests run).
RTMDEPS_BUILD_PACKAGES="autoconf automake libtool pkg-config make gcc libc6-dev
  libpmix-dev libhwloc-dev libsodium-dev libibverbs-dev librdmacm-dev
  procps ibverbs-utils perftest iproute2"
# Schedulers and external PMIx servers (tests/slurm, tests/extpmix): a
# one-node Slurm cluster the tests start themselves (slurmctld, slurmd, the
# client commands, and the mpi/pmix plugin, which loads libpmix.so from
# libpmix-dev), and Open MPI's mpirun as a foreign PMIx server.
RTMDEPS_SCHED_PACKAGES="slurmctld slurmd slurm-client slurm-wlm-basic-plugins openmpi-bin"
RTMDEPS_BUILD_PACKAGES="$RTMDEPS_BUILD_PACKAGES $RTMDEPS_SCHED_PACKAGES"
# Attack tests (tests/security/tcp_*): the stranger is a python3 script;
# strace records the handshake tcp_replay.sh replays.
RTMDEPS_BUILD_PACKAGES="$RTMDEPS_BUILD_PACKAGES python3 strace"
# Fuzz targets (tests/fuzz): clang and its libFuzzer/sanitizer runtimes
# (configure detects them; without them the fuzz tests skip).
RTMDEPS_BUILD_PACKAGES="$RTMDEPS_BUILD_PACKAGES clang libclang-rt-14-dev"
# Multi-host tests: an sshd the ssh smoke test starts in a network namespace
# with its own config and keys (tests/multihost/ssh.sh).
RTMDEPS_BUILD_PACKAGES="$RTMDEPS_BUILD_PACKAGES openssh-server openssh-client"
# gfortran: mpi_dtmisc.sh checks the Fortran datatypes' sizes against a
# gfortran program (and the Fortran bindings, issue 16, need it).
RTMDEPS_BUILD_PACKAGES="$RTMDEPS_BUILD_PACKAGES gfortran"

# Other verbs stacks softib runs unmodified (tests/softib/ucx_perftest.sh,
# peer_*.sh, bench/compare-verbs.sh): UCX's tools, Open MPI and MPICH with
# their compiler wrappers.
RTMDEPS_SOFTIB_PEER_PACKAGES="ucx-utils libucx0 openmpi-bin libopenmpi-dev mpich libmpich-dev"
RTMDEPS_BUILD_PACKAGES="$RTMDEPS_BUILD_PACKAGES $RTMDEPS_SOFTIB_PEER_PACKAGES"

# Daemons some of those packages would start on install (and enable): the
# tests start their own Slurm with their own config, never the system's.
RTMDEPS_NO_START_SERVICES="slurmctld slurmd munge ssh"

rtm_missing_packages() {
    local p missing=""
    for p in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
            missing="$missing $p"
        fi
    done
    echo $missing
}

# rtm_install_packages PKG...: apt-get install what is missing; fails with a
# message saying what to run when we are neither root nor able to sudo.
rtm_install_packages() {
    local missing sudo=""
    missing=$(rtm_missing_packages "$@")
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            echo "error: missing packages: $missing; run as root: apt-get install $missing" >&2
            return 1
        fi
    fi
    echo "Installing missing Debian packages: $missing"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null >/dev/null ||
        echo "warning: apt-get update failed; trying the install anyway" >&2
    # No service starts on install: invoke-rc.d and deb-systemd-invoke ask
    # policy-rc.d, and exit status 101 means "action forbidden". Ours is
    # put in place only when the machine has none, and removed afterwards.
    local policy=/usr/sbin/policy-rc.d own_policy="" rc before
    # services already enabled or running before this install are the
    # machine owner's (an sshd one is logged in through): never touched
    before=$(rtm_running_services)
    if [ ! -e "$policy" ]; then
        own_policy=yes
        printf '#!/bin/sh\n# rtmsg scripts/deps.sh: no daemon starts during the install\nexit 101\n' |
            $sudo tee "$policy" >/dev/null && $sudo chmod 755 "$policy"
    fi
    # shellcheck disable=SC2086
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        $missing </dev/null
    rc=$?
    [ -n "$own_policy" ] && $sudo rm -f "$policy"
    rtm_no_system_services "$before"
    return $rc
}

# The services of RTMDEPS_NO_START_SERVICES that are enabled or active now.
rtm_running_services() {
    local s
    [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1 || return 0
    for s in $RTMDEPS_NO_START_SERVICES; do
        if systemctl is-enabled --quiet "$s.service" 2>/dev/null ||
            systemctl is-active --quiet "$s.service" 2>/dev/null; then
            echo "$s"
        fi
    done
}

# Where systemd runs, the packages' units are enabled on install: disable
# them and stop any that runs (policy-rc.d kept them from starting now, but
# not from starting at the next boot) -- except those named in $1, which
# ran before the install.
rtm_no_system_services() {
    local s sudo="" keep=" ${1//$'\n'/ } "
    [ -d /run/systemd/system ] || return 0
    command -v systemctl >/dev/null 2>&1 || return 0
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    for s in $RTMDEPS_NO_START_SERVICES; do
        case $keep in *" $s "*) continue ;; esac
        systemctl list-unit-files "$s.service" 2>/dev/null | grep -q "^$s.service" || continue
        if systemctl is-enabled --quiet "$s.service" 2>/dev/null ||
            systemctl is-active --quiet "$s.service" 2>/dev/null; then
            $sudo systemctl disable --now --quiet "$s.service" 2>/dev/null ||
                echo "warning: could not stop and disable $s.service" >&2
        fi
    done
    return 0
}
