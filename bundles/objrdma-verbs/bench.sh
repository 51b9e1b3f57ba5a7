#!/usr/bin/env bash
# Verbs transport data path on the software device (JMH, VerbsWriteBenchmark): post+poll of a 64 B and of a
# 1 MiB RDMA WRITE, next to MemorySegment.copy of the same bytes measured in the same run, with the ratio.
# Not part of ./test.sh. Extra arguments go to JMH (e.g. -wi 1 -i 3, or -p size=64).
#
# bench.sh xp [ITERS]: the software device across processes (CrossProcessBench): the verbs transport's 64 MiB
# WRITE and READ from this JVM into a second JVM, next to perftest's ib_write_bw / ib_read_bw between two
# processes on the same device and MemorySegment.copy (memcpy), all in one run, with the ratios (aim >= 0.9).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$root/scripts/jdk.sh"
objrdma_select_jdk

cd "$here"
out="$here/target/bench"
mkdir -p "$out"
mvn_cmd="$root/mvnw"
[ -x "$mvn_cmd" ] || mvn_cmd=mvn
# test-compile also builds the software device (target/softverbs) and runs the JMH annotation processor
"$mvn_cmd" -q -B -f "$here/pom.xml" test-compile dependency:build-classpath \
    -Dmdep.outputFile="$out/classpath.txt" -Dmdep.includeScope=test
cp="$here/target/test-classes:$here/target/classes:$(cat "$out/classpath.txt")"

if [ "${1:-}" = xp ]; then
    shift
    for tool in ib_write_bw ib_read_bw; do
        command -v "$tool" >/dev/null || { echo "bench.sh: $tool missing (Debian package perftest)" >&2; exit 1; }
    done
    java --enable-native-access=ALL-UNNAMED -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
        -Dobjrdma.softverbs.library="$here/target/softverbs/libibverbs.so.1" \
        -cp "$cp" org.objrdma.verbs.bench.CrossProcessBench "$@" | tee "$out/summary-xp.txt"
    exit 0
fi

java --enable-native-access=ALL-UNNAMED \
    -Dobjrdma.softverbs.library="$here/target/softverbs/libibverbs.so.1" \
    -cp "$cp" org.objrdma.verbs.bench.VerbsBenchmarkMain -rf json -rff "$out/jmh.json" "$@" | tee "$out/summary.txt"
