#!/usr/bin/env bash
# S3 GET/PUT of 4 KiB (ops/s, 8 clients) and 64 MiB (MB/s) over plain HTTP with the AWS SDK: the objrdma gateway
# against gaul/s3proxy 4.1.0 (filesystem backend) started in the same JVM, same run; prints a table with the
# ratios and the aims, and the raw fs store's Java API in-process (gateway overhead). Not part of ./test.sh (the module builds only with -Pbench). Run it holding the build lock:
#   flock /tmp/objrdma-build.lock benchmarks/bench.sh
# The gateway comes from a running distribution (./run.sh prints endpoint and credential):
#   OBJRDMA_S3_ENDPOINT=http://127.0.0.1:8181 OBJRDMA_S3_ACCESS_KEY=... OBJRDMA_S3_SECRET_KEY=... benchmarks/bench.sh
# Without OBJRDMA_S3_ENDPOINT a second s3proxy stands in for the gateway (ratios ~1.0: proves the harness).
# Knobs: BENCH_REPS (5), BENCH_WARMUPS (3), BENCH_RAW_FSYNC (true), BENCH_THREADS (8), BENCH_SMALL_OPS (2000), BENCH_LARGE_OBJECTS (3).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
. "$root/scripts/jdk.sh"
objrdma_select_jdk
out="$here/target/bench"
mkdir -p "$out"
"$root/mvnw" -q -B -ntp -f "$root/pom.xml" -Pbench -pl benchmarks -am compile dependency:build-classpath \
    -Dmdep.outputFile="$out/classpath.txt" -Dmdep.includeScope=runtime
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx2g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    -cp "$here/target/classes:$(cat "$out/classpath.txt")" org.objrdma.benchmarks.S3Bench "$@" | tee "$out/summary.txt"
