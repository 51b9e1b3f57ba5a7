#!/usr/bin/env bash
# Runs the staging-pool JMH benchmark (borrow + release latency, p50/p99, with 1 and 16 threads by default,
# next to a bare Commons Pool and a lock-free deque measured in the same run). Not part of ./test.sh.
# Usage: bundles/objrdma-staging/bench.sh [thread counts...]     e.g.  bench.sh 1 4 16
# Extra Maven flags (e.g. -o for offline) go in BENCH_MAVEN_FLAGS.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$root/scripts/jdk.sh"
objrdma_select_jdk
mvn_cmd="$root/mvnw"
"$mvn_cmd" -B -q -f "$here/pom.xml" test-compile dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$here/target/bench.classpath" ${BENCH_MAVEN_FLAGS:-}
cp="$here/target/test-classes:$here/target/classes:$(cat "$here/target/bench.classpath")"
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$cp" \
    org.objrdma.staging.internal.StagingBenchmarkMain "$@"
