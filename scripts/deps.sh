# Sourced by setup-and-demo and run-tests: installs the Debian packages the
# build and the tests need, only those missing, as root or through sudo.

# Build: toolchain, autotools, OpenPMIx and hwloc (required), RDMA (detected).
# Tests: procps (pgrep/ps in the fault tests); ibverbs-utils, perftest and
# iproute2 (stock verbs tools and network namespaces the softib tests run).
RTM_BUILD_PACKAGES="autoconf automake libtool pkg-config make gcc libc6-dev
  libpmix-dev libhwloc-dev libibverbs-dev librdmacm-dev
  procps ibverbs-utils perftest iproute2"

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
    # shellcheck disable=SC2086
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        $missing </dev/null
}
