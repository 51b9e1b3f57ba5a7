#!/usr/bin/env bash
# A Ceph cluster (RADOS + RGW, Debian's 16.2 packages) on this host, without systemd, for the tests and the
# figures in docs/scale-out.md (issue 28; the settings and why: the comments below).
#
#   scripts/ceph.sh start  [DIR]   bootstrap (first time) or restart what is not running; waits until every RGW
#                                  serves; prints the endpoints, the access key and the env file
#   scripts/ceph.sh stop   [DIR]   stops every daemon by its pid file (noout first), checks none is left
#   scripts/ceph.sh status [DIR]   one line per daemon, the endpoints, `ceph -s` when the monitor answers
#   scripts/ceph.sh kill NAME [DIR]  SIGKILL one daemon (osd.1, client.rgw.b, mgr.x, mon.a) — for fault tests;
#                                  `start` brings it back
#
# DIR (or $OBJRDMA_CEPH_DIR) holds everything: config, keys, daemon data, pid files, logs (DIR/log), the env
# file DIR/ceph.env (mode 0600: OBJRDMA_CEPH_ENDPOINTS, OBJRDMA_CEPH_ACCESS_KEY, OBJRDMA_CEPH_SECRET_KEY).
# Default DIR: target/ceph of the repository. Every daemon listens on 127.0.0.1 only.
#
# Environment, read when DIR is bootstrapped (kept in DIR/layout afterwards; a different request is refused):
#   OBJRDMA_CEPH_OSDS        number of OSDs, 1..9 (default 3; the pool size is min(3, OSDS))
#   OBJRDMA_CEPH_RGWS        number of RGWs, 1..9 (default 2), on consecutive ports from OBJRDMA_CEPH_RGW_PORT
#   OBJRDMA_CEPH_RGW_PORT    first RGW port (default 7480)
#   OBJRDMA_CEPH_MON_PORT    the monitor's msgr2 port (default 3300; msgr1 is this + 3489, i.e. 6789)
#   OBJRDMA_CEPH_STORE       memstore (default: in RAM, persisted on a clean stop) or bluestore (4 GiB sparse
#                            file per OSD, for the soak)
#   OBJRDMA_CEPH_MEMSTORE_MB memstore capacity per OSD in MiB (default 2048; RAM used ≈ stored bytes × pool size)
# Any time:
#   OBJRDMA_CEPH_TIMEOUT     seconds to wait for the cluster to serve (default 180)
#   OBJRDMA_CEPH_NO_INSTALL  1: never run apt-get (fail if a package is missing)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "ceph.sh: $*" >&2; exit 1; }

cmd=${1:-}
[ $# -gt 0 ] && shift
target=""
if [ "$cmd" = kill ]; then
    target=${1:-}
    [ -n "$target" ] || die "kill needs a daemon name (osd.N, client.rgw.X, mgr.x, mon.a)"
    shift
fi
dir=${1:-${OBJRDMA_CEPH_DIR:-$repo/target/ceph}}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf=$dir/ceph.conf
timeout=${OBJRDMA_CEPH_TIMEOUT:-180}
case "$timeout" in ''|*[!0-9]*) die "OBJRDMA_CEPH_TIMEOUT must be whole seconds, not '$timeout'" ;; esac

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- packages

install_packages() {
    local missing=""
    for b in ceph-mon ceph-osd ceph-mgr radosgw radosgw-admin ceph ceph-authtool monmaptool uuidgen curl; do
        command -v "$b" >/dev/null 2>&1 || missing="$missing $b"
    done
    [ -z "$missing" ] && return 0
    [ "${OBJRDMA_CEPH_NO_INSTALL:-0}" = 1 ] && die "missing:$missing (OBJRDMA_CEPH_NO_INSTALL=1, not installing)"
    local sudo_cmd=""
    [ "$(id -u)" = 0 ] || sudo_cmd=sudo
    echo "ceph.sh: installing Debian's Ceph packages (missing:$missing)"
    local pkgs="ceph-mon ceph-osd ceph-mgr radosgw ceph-common uuid-runtime curl"
    if ! DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends $pkgs \
            >"$dir/apt.log" 2>&1; then
        echo "ceph.sh: apt-get install failed, running apt-get update first"
        $sudo_cmd apt-get update -qq >>"$dir/apt.log" 2>&1 || die "apt-get update failed (see $dir/apt.log)"
        DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends $pkgs \
            >>"$dir/apt.log" 2>&1 || die "apt-get install failed (see $dir/apt.log)"
    fi
}

# ---- layout (fixed at bootstrap)

load_layout() {
    if [ -f "$dir/layout" ]; then
        # shellcheck disable=SC1091
        . "$dir/layout"
        local want
        for want in OSDS:OBJRDMA_CEPH_OSDS RGWS:OBJRDMA_CEPH_RGWS RGW_PORT:OBJRDMA_CEPH_RGW_PORT \
                MON_PORT:OBJRDMA_CEPH_MON_PORT STORE:OBJRDMA_CEPH_STORE; do
            local have_var=${want%%:*} env_var=${want#*:}
            if [ -n "${!env_var:-}" ] && [ "${!env_var}" != "${!have_var}" ]; then
                die "$dir was bootstrapped with $have_var=${!have_var}, not $env_var=${!env_var}: stop it and remove $dir first"
            fi
        done
    else
        OSDS=${OBJRDMA_CEPH_OSDS:-3}
        RGWS=${OBJRDMA_CEPH_RGWS:-2}
        RGW_PORT=${OBJRDMA_CEPH_RGW_PORT:-7480}
        MON_PORT=${OBJRDMA_CEPH_MON_PORT:-3300}
        STORE=${OBJRDMA_CEPH_STORE:-memstore}
        MEMSTORE_MB=${OBJRDMA_CEPH_MEMSTORE_MB:-2048}
        case "$OSDS" in [1-9]) ;; *) die "OBJRDMA_CEPH_OSDS must be 1..9, not '$OSDS'" ;; esac
        case "$RGWS" in [1-9]) ;; *) die "OBJRDMA_CEPH_RGWS must be 1..9, not '$RGWS'" ;; esac
        case "$STORE" in memstore|bluestore) ;; *) die "OBJRDMA_CEPH_STORE must be memstore or bluestore, not '$STORE'" ;; esac
        for n in "$RGW_PORT" "$MON_PORT" "$MEMSTORE_MB"; do
            case "$n" in ''|*[!0-9]*) die "ports and sizes must be whole numbers, not '$n'" ;; esac
        done
        [ "$RGW_PORT" -ge 1024 ] && [ $((RGW_PORT + RGWS)) -le 65535 ] || die "OBJRDMA_CEPH_RGW_PORT out of range: $RGW_PORT"
        [ "$MON_PORT" -ge 1024 ] && [ $((MON_PORT + 3489)) -le 65535 ] || die "OBJRDMA_CEPH_MON_PORT out of range: $MON_PORT"
    fi
    MON_V1_PORT=$((MON_PORT + 3489))
    POOL_SIZE=$(( OSDS < 3 ? OSDS : 3 ))
    RGW_NAMES=""
    local i
    for ((i = 0; i < RGWS; i++)); do RGW_NAMES="$RGW_NAMES $(printf "\\x$(printf %x $((97 + i)))")"; done
}

rgw_port() { # name (a, b, ...) -> port
    local idx=$(( $(printf '%d' "'$1") - 97 ))
    echo $((RGW_PORT + idx))
}

endpoints() {
    local out="" n
    for n in $RGW_NAMES; do out="$out${out:+,}http://127.0.0.1:$(rgw_port "$n")"; done
    echo "$out"
}

daemons() { # every daemon name, in start order
    echo mon.a mgr.x
    local i n
    for ((i = 0; i < OSDS; i++)); do echo "osd.$i"; done
    for n in $RGW_NAMES; do echo "client.rgw.$n"; done
}

write_conf() {
    local store_conf
    if [ "$STORE" = memstore ]; then
        # memstore keeps objects in the OSD's heap; without osd_fast_shutdown=false a stopped OSD never writes
        # them out and after a restart every PG is "unknown"
        store_conf="osd_objectstore = memstore
memstore_device_bytes = $((MEMSTORE_MB * 1024 * 1024))
osd_fast_shutdown = false"
    else
        # bluestore_block_path stays unset: pointing it at \$osd_data/block makes a symlink to itself (ELOOP)
        store_conf="osd_objectstore = bluestore
bluestore_block_create = true
bluestore_block_size = 4294967296
osd_memory_target = 1073741824"
    fi
    cat >"$conf.tmp" <<EOF
# written by scripts/ceph.sh; the cluster lives in $dir
[global]
fsid = $FSID
mon_host = [v2:127.0.0.1:$MON_PORT,v1:127.0.0.1:$MON_V1_PORT]
public_addr = 127.0.0.1
cluster_addr = 127.0.0.1
ms_bind_ipv6 = false
auth_cluster_required = cephx
auth_service_required = cephx
auth_client_required = cephx
auth_allow_insecure_global_id_reclaim = false
keyring = $dir/keys/\$name.keyring
run_dir = $dir/run
pid_file = $dir/run/\$name.pid
admin_socket = $dir/run/\$name.asok
log_file = $dir/log/\$name.log
crash_dir = $dir/crash
mon_data = $dir/data/\$name
mgr_data = $dir/data/\$name
osd_data = $dir/data/\$name
rgw_data = $dir/data/\$name
# RGW creates 6-8 pools at start and more on first use: with the default PG counts that fails (ERANGE)
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
mon_max_pg_per_osd = 1000
# one host: replicas go to different OSDs, not hosts
osd_crush_chooseleaf_type = 0
osd_pool_default_size = $POOL_SIZE
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
# on one host every failure report comes from the same host; counted per OSD a hung OSD is marked down
mon_osd_reporter_subtree_level = osd
# memstore reports itself rotational: recovery would sleep 0.1 s per op
osd_recovery_sleep = 0
osd_recovery_sleep_hdd = 0
osd_recovery_max_active = 8
# the default warns below 30 % free disk, a shared disk is often there
mon_data_avail_warn = 5
# RGW frees a deleted or overwritten object's data only by its garbage collector, by default 2 h later: the
# figures run (64 MiB objects written and deleted on two paths) filled the 2 GiB memstores with such data, the OSDs
# went full and every PUT hung. 2 minutes keeps reads that are still streaming an old object safe and frees it soon
rgw_gc_obj_min_wait = 120
rgw_gc_processor_period = 60
$store_conf
EOF
    local n
    for n in $RGW_NAMES; do
        cat >>"$conf.tmp" <<EOF

[client.rgw.$n]
rgw_frontends = beast endpoint=127.0.0.1:$(rgw_port "$n")
EOF
    done
    mv "$conf.tmp" "$conf"
}

ceph_cli() { timeout 30 ceph -c "$conf" --connect-timeout 10 "$@"; }

# ---- processes

pid_of() { # daemon name -> pid if running (and really ours), else nothing
    local f=$dir/run/$1.pid pid
    [ -f "$f" ] || return 0
    pid=$(cat "$f" 2>/dev/null || true)
    case "$pid" in ''|*[!0-9]*) return 0 ;; esac
    [ -r "/proc/$pid/cmdline" ] || return 0
    if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$conf"; then echo "$pid"; fi
}

start_daemon() {
    local name=$1
    [ -n "$(pid_of "$name")" ] && return 0
    rm -f "$dir/run/$name.pid"
    case "$name" in
        mon.*) ceph-mon -c "$conf" -i "${name#mon.}" ;;
        mgr.*) ceph-mgr -c "$conf" -i "${name#mgr.}" ;;
        osd.*) ceph-osd -c "$conf" -i "${name#osd.}" 2>>"$dir/log/$name.stderr" ;;
        client.rgw.*) radosgw -c "$conf" -n "$name" ;;
    esac
    local deadline=$((SECONDS + 20))
    while [ -z "$(pid_of "$name")" ]; do
        [ $SECONDS -lt $deadline ] || die "$name did not write its pid file within 20 s (log: $dir/log/$name.log)"
        sleep 0.2
    done
}

stop_daemon() { # name, grace seconds
    local name=$1 grace=$2 pid
    pid=$(pid_of "$name")
    [ -n "$pid" ] || { rm -f "$dir/run/$name.pid"; return 0; }
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + grace))
    while [ -d "/proc/$pid" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
    if [ -d "/proc/$pid" ]; then
        echo "ceph.sh: $name (pid $pid) did not stop within $grace s, killing it" >&2
        kill -KILL "$pid" 2>/dev/null || true
        while [ -d "/proc/$pid" ]; do sleep 0.1; done
    fi
    rm -f "$dir/run/$name.pid"
}

rgw_serves() { # port -> 0 when the RGW answers an anonymous ListBuckets
    local code
    code=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "http://127.0.0.1:$1/" 2>/dev/null || true)
    [ "$code" = 200 ]
}

wait_rgw() {
    local n=$1 port deadline=$((SECONDS + timeout))
    port=$(rgw_port "$n")
    until rgw_serves "$port"; do
        if [ $SECONDS -ge $deadline ]; then
            die "client.rgw.$n does not serve on 127.0.0.1:$port after $timeout s (log: $dir/log/client.rgw.$n.log; status: scripts/ceph.sh status $dir)"
        fi
        [ -n "$(pid_of "client.rgw.$n")" ] || die "client.rgw.$n exited (log: $dir/log/client.rgw.$n.log)"
        sleep 0.5
    done
}

# ---- bootstrap

bootstrap() {
    echo "ceph.sh: bootstrapping a new cluster in $dir ($OSDS OSD(s), $STORE; $RGWS RGW(s))"
    rm -rf "$dir/keys" "$dir/data" "$dir/run" "$dir/crash" "$dir/monmap"
    mkdir -p "$dir/keys" "$dir/data" "$dir/run" "$dir/log" "$dir/crash"
    FSID=$(uuidgen)
    write_conf
    local k=$dir/keys
    ceph-authtool --create-keyring "$k/mon.a.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
    ceph-authtool --create-keyring "$k/client.admin.keyring" --gen-key -n client.admin \
        --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' --cap mds 'allow *' >/dev/null
    ceph-authtool "$k/mon.a.keyring" --import-keyring "$k/client.admin.keyring" >/dev/null
    monmaptool --create --enable-all-features --set-min-mon-release 16 --fsid "$FSID" \
        --addv a "[v2:127.0.0.1:$MON_PORT,v1:127.0.0.1:$MON_V1_PORT]" "$dir/monmap" >/dev/null
    mkdir -p "$dir/data/mon.a"
    ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$k/mon.a.keyring"
    start_daemon mon.a
    ceph_cli auth get-or-create mgr.x mon 'allow profile mgr' osd 'allow *' mds 'allow *' -o "$k/mgr.x.keyring"
    mkdir -p "$dir/data/mgr.x"
    start_daemon mgr.x
    local i uuid secret id
    for ((i = 0; i < OSDS; i++)); do
        uuid=$(uuidgen)
        secret=$(ceph-authtool --gen-print-key)
        # ceph-volume needs LVM and udev; an OSD is made by hand: id from the monitor, key, mkfs
        id=$(echo "{\"cephx_secret\": \"$secret\"}" | ceph_cli osd new "$uuid" -i -)
        [ "$id" = "$i" ] || die "the monitor gave OSD id '$id', expected $i"
        mkdir -p "$dir/data/osd.$id"
        ceph-authtool --create-keyring "$k/osd.$id.keyring" --name "osd.$id" --add-key "$secret" >/dev/null
        ceph-osd -c "$conf" -i "$id" --mkfs --osd-uuid "$uuid" >>"$dir/log/osd.$id.mkfs.log" 2>&1 \
            || die "mkfs of osd.$id failed (log: $dir/log/osd.$id.mkfs.log)"
        start_daemon "osd.$id"
    done
    local n
    for n in $RGW_NAMES; do
        ceph_cli auth get-or-create "client.rgw.$n" mon 'allow rw' osd 'allow rwx' -o "$k/client.rgw.$n.keyring"
        mkdir -p "$dir/data/client.rgw.$n"
    done
    {
        echo "OSDS=$OSDS"; echo "RGWS=$RGWS"; echo "RGW_PORT=$RGW_PORT"; echo "MON_PORT=$MON_PORT"
        echo "STORE=$STORE"; echo "MEMSTORE_MB=$MEMSTORE_MB"; echo "FSID=$FSID"
    } >"$dir/layout"
}

make_user() {
    local env=$dir/ceph.env
    if [ -f "$env" ]; then
        return 0
    fi
    local access secret
    access=OBJ$(head -c 4096 /dev/urandom | tr -dc 'A-Z0-9' | head -c 17)
    secret=$(head -c 4096 /dev/urandom | tr -dc 'A-Za-z0-9' | head -c 40)
    [ ${#access} -eq 20 ] && [ ${#secret} -eq 40 ] || die "could not generate a credential"
    timeout 60 radosgw-admin -c "$conf" user create --uid objrdma --display-name "objrdma tests" \
        --access-key "$access" --secret-key "$secret" >/dev/null \
        || die "radosgw-admin user create failed (log: $dir/log/client.admin.log)"
    (umask 077; {
        echo "OBJRDMA_CEPH_ENDPOINTS=$(endpoints)"
        echo "OBJRDMA_CEPH_ACCESS_KEY=$access"
        echo "OBJRDMA_CEPH_SECRET_KEY=$secret"
        echo "OBJRDMA_CEPH_DIR=$dir"
    } >"$env.tmp")
    mv "$env.tmp" "$env"
}

# ---- commands

do_start() {
    local t0
    t0=$(now)
    install_packages
    load_layout
    mkdir -p "$dir/run" "$dir/log" "$dir/crash"
    if [ ! -f "$dir/layout" ] || [ ! -f "$dir/data/mon.a/store.db/CURRENT" ]; then
        bootstrap
    else
        write_conf
        local d
        for d in mon.a mgr.x; do start_daemon "$d"; done
        local i
        for ((i = 0; i < OSDS; i++)); do start_daemon "osd.$i"; done
    fi
    # stop sets noout so that a stopped cluster does not start recovery; a restart lifts it
    ceph_cli osd unset noout >/dev/null 2>&1 || true
    local n
    for n in $RGW_NAMES; do
        start_daemon "client.rgw.$n"
        wait_rgw "$n"  # the first RGW creates realm, zone and pools; the others find them
    done
    make_user
    echo "ceph.sh: serving after $(elapsed "$t0") s"
    print_endpoints
}

print_endpoints() {
    # shellcheck disable=SC1091
    . "$dir/ceph.env"
    echo "endpoints:  $OBJRDMA_CEPH_ENDPOINTS"
    echo "access key: $OBJRDMA_CEPH_ACCESS_KEY"
    echo "secret key: in $dir/ceph.env (mode 0600), variable OBJRDMA_CEPH_SECRET_KEY"
}

do_stop() {
    local t0
    t0=$(now)
    if [ ! -f "$dir/layout" ]; then
        echo "ceph.sh: no cluster in $dir"
        return 0
    fi
    load_layout
    [ -f "$conf" ] || write_conf
    local n i
    for n in $RGW_NAMES; do stop_daemon "client.rgw.$n" 30; done
    if [ -n "$(pid_of mon.a)" ]; then
        ceph_cli osd set noout >/dev/null 2>&1 || true
    fi
    # memstore writes its objects out on a clean stop: give the OSDs time for that before killing
    for ((i = 0; i < OSDS; i++)); do
        pid=$(pid_of "osd.$i"); [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
    done
    for ((i = 0; i < OSDS; i++)); do stop_daemon "osd.$i" 60; done
    stop_daemon mgr.x 30
    stop_daemon mon.a 30
    local left
    left=$(ps -eo pid=,args= | grep -F -- "$conf" | grep -v grep || true)
    [ -z "$left" ] || die "still running after stop: $left"
    echo "ceph.sh: stopped in $(elapsed "$t0") s, nothing of $dir is running"
}

do_status() {
    if [ ! -f "$dir/layout" ]; then
        echo "ceph.sh: no cluster in $dir"
        return 3
    fi
    load_layout
    local d pid running=0 total=0 rss
    for d in $(daemons); do
        total=$((total + 1))
        pid=$(pid_of "$d")
        if [ -n "$pid" ]; then
            running=$((running + 1))
            rss=$(awk '/VmRSS/ { printf "%d MiB", $2 / 1024 }' "/proc/$pid/status" 2>/dev/null || true)
            echo "$d running (pid $pid, $rss)"
        else
            echo "$d stopped"
        fi
    done
    [ -f "$dir/ceph.env" ] && print_endpoints
    if [ -n "$(pid_of mon.a)" ]; then ceph_cli -s 2>/dev/null || true; fi
    [ "$running" = "$total" ] || return 3
}

do_kill() {
    load_layout
    daemons | grep -qxF -- "$target" || die "no daemon '$target' in this cluster ($(daemons | tr '\n' ' '))"
    local pid
    pid=$(pid_of "$target")
    [ -n "$pid" ] || die "$target is not running"
    kill -KILL "$pid"
    while [ -d "/proc/$pid" ]; do sleep 0.05; done
    echo "ceph.sh: killed $target (pid $pid)"
}

case "$cmd" in
    start) do_start ;;
    stop) do_stop ;;
    status) do_status ;;
    kill) do_kill ;;
    *) echo "usage: scripts/ceph.sh start|stop|status [DIR] | kill DAEMON [DIR]" >&2; exit 2 ;;
esac
