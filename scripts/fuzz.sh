#!/usr/bin/env bash
# Fuzzing campaigns over the Jazzer @FuzzTest targets of the bundles (README "Fuzzing").
#
#   scripts/fuzz.sh list                      the targets: module Class#method
#   scripts/fuzz.sh [target] [duration]       fuzz one target, or all (default), each for duration
#                                             (Jazzer syntax: 30s, 10m, 2h; default 10m)
#   scripts/fuzz.sh ci                        every target for ${OBJRDMA_FUZZ_CI_SECONDS:-8}s: the bounded CI run,
#                                             after ./test.sh (it runs surefire alone, offline, on the compiled
#                                             classes and the modules ./test.sh installed)
#
# target: "all", a Class#method, a Class (all its targets), or a module name (objrdma-wire). Jazzer fuzzes one
# @FuzzTest per JVM, so each target is one Maven run (JAZZER_FUZZ=1, JAZZER_MAX_DURATION=duration); the script
# holds the shared build lock for the whole run. Whatever Jazzer writes stays in <module>/target/jazzer: the
# generated corpus under .cifuzz-corpus/<Class>/<method>/, crash-* inputs at the top. A crash fails the run; the
# script then lists the inputs to commit as regression inputs under
# src/test/resources/<package>/<Class>Inputs/<method>/.
# Extra Maven arguments: OBJRDMA_FUZZ_MAVEN_ARGS (e.g. "-o").
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk.sh
objrdma_select_jdk

# every target: "module-dir Class method", from the @FuzzTest annotations in the bundles' test sources
targets() {
    local f module class
    for f in $(grep -rl --include='*.java' '@FuzzTest' bundles/*/src/test/java | sort); do
        module=${f%%/src/test/java/*}
        class=$(basename "$f" .java)
        awk -v m="$module" -v c="$class" '
            /^[[:space:]]*@FuzzTest/ { armed = 1; next }
            armed && match($0, /void[[:space:]]+[A-Za-z0-9_]+[[:space:]]*\(/) {
                s = substr($0, RSTART, RLENGTH); sub(/^void[[:space:]]+/, "", s); sub(/[[:space:]]*\($/, "", s)
                print m, c, s; armed = 0
            }' "$f"
    done
}

select_targets() {
    local want=$1
    targets | while read -r module class method; do
        case "$want" in
            all|ci) ;;
            *#*) [ "$want" = "$class#$method" ] || continue ;;
            *) [ "$want" = "$class" ] || [ "$want" = "$(basename "$module")" ] || continue ;;
        esac
        if [ "$want" = ci ] && known_finding "$module" "$class" "$method"; then
            echo "fuzz: skipping $class#$method in ci: a known finding waits for its fix (${class}KnownFindings)" >&2
            continue
        fi
        echo "$module $class $method"
    done
}

# a target with inputs under <Class>KnownFindings/<method>/: found, diagnosed, its fix owned elsewhere; the
# regression run reports each as skipped, a campaign still fuzzes the target, the bounded CI run leaves it out
known_finding() {
    [ -n "$(find "$1/src/test/resources" -type d -path "*/$2KnownFindings/$3" 2>/dev/null | head -n 1)" ]
}

mode=${1:-all}
if [ "$mode" = list ]; then
    targets | while read -r module class method; do echo "$(basename "$module") $class#$method"; done
    exit 0
fi
if [ "$mode" = ci ]; then
    duration="${OBJRDMA_FUZZ_CI_SECONDS:-8}s"
else
    duration=${2:-10m}
fi
selected=$(select_targets "$mode")
if [ -z "$selected" ]; then
    echo "fuzz: no target matches '$mode' (scripts/fuzz.sh list)" >&2
    exit 2
fi
count=$(echo "$selected" | wc -l)
echo "fuzz: $count target(s), $duration each, JAVA_HOME=$JAVA_HOME"

# One hold of the shared build lock for the whole run: the targets follow each other without other builds
# in between (and without queueing once per target behind them).
if [ -z "${OBJRDMA_FUZZ_LOCKED:-}" ]; then
    echo "fuzz: waiting for /tmp/objrdma-build.lock"
    OBJRDMA_FUZZ_LOCKED=1 exec flock /tmp/objrdma-build.lock "$PWD/scripts/fuzz.sh" "$@"
fi

failed=()
start=$(date +%s)
while read -r module class method; do
    log="$module/target/jazzer/$class-$method.log"
    mkdir -p "$module/target/jazzer"
    echo "fuzz: $(basename "$module") $class#$method for $duration (log $log)"
    # shellcheck disable=SC2086 # OBJRDMA_FUZZ_MAVEN_ARGS is a word list
    if [ "$mode" = ci ]; then
        # after ./test.sh: classes compiled and the sibling modules installed, so only surefire runs
        build=(-o surefire:test -pl "$module")
    else
        build=(test -pl "$module" -am)
    fi
    # JAZZER_INSTRUMENT: coverage of every objrdma class, also those a module takes from a sibling's jar (ci mode
    # resolves the siblings from the local repository; Jazzer instruments only class directories by default)
    if ! JAZZER_FUZZ=1 JAZZER_MAX_DURATION="$duration" JAZZER_INSTRUMENT='org.objrdma.**' \
            ./mvnw -B -ntp -q ${OBJRDMA_FUZZ_MAVEN_ARGS:-} "${build[@]}" \
            -Dtest="$class#$method" -Dsurefire.failIfNoSpecifiedTests=false \
            -Dorg.slf4j.simpleLogger.defaultLogLevel=error </dev/null >"$log" 2>&1; then
        failed+=("$(basename "$module") $class#$method")
        echo "fuzz:   FAILED — tail of $log:"
        tail -n 30 "$log" | sed 's/^/fuzz:   | /'
    else
        grep -aE '^#[0-9]+.*DONE' "$log" | tail -n 1 | sed 's/^/fuzz:   /' || true
    fi
done <<<"$selected"

crashes=$(find bundles/*/target/jazzer -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) \
        -newermt "@$start" 2>/dev/null || true)
if [ -n "$crashes" ]; then
    echo "fuzz: inputs that failed (commit each under src/test/resources/<package>/<Class>Inputs/<method>/):"
    echo "$crashes" | sed 's/^/fuzz:   /'
fi
echo "fuzz: finished in $(( $(date +%s) - start )) s"
if [ ${#failed[@]} -gt 0 ]; then
    printf 'fuzz: failed: %s\n' "${failed[@]}"
    exit 1
fi
