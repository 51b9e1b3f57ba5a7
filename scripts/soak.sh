#!/usr/bin/env bash
# The soak (README "Reliability"): a long mixed load with heap, threads and fds sampled and checked flat, then
# the client-kill loops of the Pax Exam suite at their soak size.
#
#   scripts/soak.sh [minutes]          default 30
#
# Run it after ./test.sh (it runs surefire and failsafe offline on what ./test.sh built and installed). Holds the
# shared build lock for the whole run. Environment:
#   OBJRDMA_SOAK_SAMPLE_SECONDS  sampling period of heap / threads / fds (default 30)
#   OBJRDMA_SOAK_KILLS           client kills per loop in the Pax Exam kill tests (default 1000; 0 skips step 2)
#   OBJRDMA_SOAK_ITESTS          failsafe -Dit.test selection for step 2 (default: the whole Pax Exam suite)
#
# Step 1: SessionLoadTest#soak — rounds of 2 000 concurrent GET sessions from 100 principals against the session
#         manager's limits on the real TCP transport and staging pool, each round checked (held or LIMIT, bytes
#         delivered, one terminal notification per session, nothing left), for the given minutes; then
#         SoakCheck's flat rule over the samples (first quarter ignored; threads +3, fds +4 over the first half's
#         highest; heap least-squares growth over the span ≤ max(32 MiB, 20 % of its mean)).
# Step 2: the itests with -Dobjrdma.it.kills=$OBJRDMA_SOAK_KILLS (the kill loops read that property).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk.sh
objrdma_select_jdk

minutes=${1:-30}
case "$minutes" in
    ''|*[!0-9]*) echo "soak: minutes must be a whole number, not '$minutes'" >&2; exit 2 ;;
esac
sample=${OBJRDMA_SOAK_SAMPLE_SECONDS:-30}
kills=${OBJRDMA_SOAK_KILLS:-1000}

if [ -z "${OBJRDMA_SOAK_LOCKED:-}" ]; then
    echo "soak: waiting for /tmp/objrdma-build.lock"
    OBJRDMA_SOAK_LOCKED=1 exec flock /tmp/objrdma-build.lock "$PWD/scripts/soak.sh" "$@"
fi

mkdir -p target
start=$(date +%s)
log=target/soak-load.log
echo "soak: step 1, ${minutes} min of load, samples every ${sample} s (log $log)"
if ! ./mvnw -B -ntp -o test -pl bundles/objrdma-session -Dtest='SessionLoadTest#soak' \
        -Dsurefire.failIfNoSpecifiedTests=false -Dobjrdma.soak.seconds=$(( minutes * 60 )) \
        -Dobjrdma.soak.sample.seconds="$sample" >"$log" 2>&1; then
    echo "soak: step 1 FAILED — tail of $log:"
    tail -n 40 "$log" | sed 's/^/soak:   | /'
    exit 1
fi
grep -aE '^soak' "$log" | sed 's/^/soak:   /'
if [ ! -s "$log" ] || ! grep -aq '^soak verdict' "$log"; then
    echo "soak: step 1 printed no verdict (was the soak test selected?)" >&2
    exit 1
fi

if [ "$kills" != 0 ]; then
    log=target/soak-kills.log
    echo "soak: step 2, the Pax Exam suite with objrdma.it.kills=$kills (log $log)"
    # shellcheck disable=SC2086
    if ! ./mvnw -B -ntp -o verify -pl itests -Dobjrdma.it.kills="$kills" \
            ${OBJRDMA_SOAK_ITESTS:+-Dit.test=$OBJRDMA_SOAK_ITESTS -Dfailsafe.failIfNoSpecifiedTests=false} \
            >"$log" 2>&1; then
        echo "soak: step 2 FAILED — tail of $log:"
        tail -n 40 "$log" | sed 's/^/soak:   | /'
        exit 1
    fi
    grep -aE 'Tests run:' "$log" | tail -n 1 | sed 's/^/soak:   /'
fi
echo "soak: finished in $(( $(date +%s) - start )) s"
