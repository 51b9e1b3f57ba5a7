#!/usr/bin/env bash
# Session-core benchmarks (JMH, in process, not part of ./test.sh): prepare→ready→final cycles per second on
# 1 and 2 threads and one reaper pass over 100 000 sessions, each printed as a ratio to a reference measured
# in the same run; then the heap bytes of one idle prepared session with 100 000 live.
# "./bench.sh quick" runs one short iteration of each (a smoke run, numbers not meaningful).
# MVN_ARGS (e.g. -o) goes to Maven.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$root/scripts/jdk.sh"
objrdma_select_jdk

out="$here/target/bench"
mkdir -p "$out"
mvn_cmd="$root/mvnw"
[ -x "$mvn_cmd" ] || mvn_cmd=mvn
"$mvn_cmd" -q -B ${MVN_ARGS:-} -f "$here/pom.xml" test-compile dependency:build-classpath \
    -Dmdep.outputFile="$out/classpath.txt" -Dmdep.includeScope=test
cp="$here/target/test-classes:$here/target/classes:$(cat "$out/classpath.txt")"
java -Xmx2g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$cp" \
    org.objrdma.session.internal.bench.BenchMain "$@" 2>&1 | tee "$out/bench.txt"
