#!/usr/bin/env bash
# One command, one table: every objrdma benchmark next to a reference measured in the same run (iperf3, raw
# sockets, MemorySegment.copy, Commons Pool, FileChannel, gaul/s3proxy, plain HTTP, raw transport), with its
# aim. First the real-path rows: the built distribution started by ./run.sh server (in a copy under
# benchmarks/target/bench), bin/objrdma bench as the client in its own JVM, plain HTTP / cuObject / hipobj-rc-v2
# through that gateway and gaul/s3proxy in its own JVM, with the server's CPU seconds per GiB; then the component
# rows. Prints the table and writes benchmarks/target/bench/table.{txt,md,csv,png}. See benchmarks/README.md.
#   ./bench.sh            full run (see benchmarks/README.md for run times)
#   ./bench.sh --quick    each benchmark once, briefly (about 3 minutes): exits 1 if a row produced no number
#   ./bench.sh --only 'real path'   only the sections whose name matches
# Run it alone on the machine (on a shared one: flock /tmp/objrdma-build.lock ./bench.sh); it builds only the
# modules whose benchmarks it runs (test-compile in the reactor, nothing installed). BENCH_OFFLINE=1 adds -o.
# OBJRDMA_S3_ENDPOINT / OBJRDMA_S3_ACCESS_KEY / OBJRDMA_S3_SECRET_KEY (and OBJRDMA_SERVER_PID for its CPU) point
# the real-path rows at a running distribution instead of starting one; BENCH_FSYNC=true turns the started one's
# fs store fsync on (default off: the s3proxy reference never forces its files).
set -euo pipefail
root="$(cd "$(dirname "$0")" && pwd)"
cd "$root"
. scripts/jdk.sh
objrdma_select_jdk
command -v iperf3 >/dev/null 2>&1 || { echo "bench: iperf3 missing (Debian package iperf3)" >&2; exit 1; }

modules="bundles/objrdma-transport-tcp bundles/objrdma-verbs bundles/objrdma-staging bundles/objrdma-session \
bundles/objrdma-store-fs bundles/objrdma-cuobj bundles/objrdma-s3"
out="$root/benchmarks/target/bench"
mkdir -p "$out"
offline=""
[ "${BENCH_OFFLINE:-}" = 1 ] && offline="-o"
echo "bench: compiling the benchmarks (log: $out/build.log)"
if ! ./mvnw -B -ntp -q $offline -Pbench -pl "benchmarks,${modules// /,}" -am test-compile dependency:build-classpath \
        -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test > "$out/build.log" 2>&1; then
    tail -40 "$out/build.log" >&2
    exit 1
fi
# The real-path rows run the built distribution (./run.sh server in a copy, bin/objrdma as the client): built as
# run.sh builds it, when it is missing or a source is newer.
version=$(sed -n 's:^  <version>\(.*\)</version>:\1:p' pom.xml | head -1)
dist="karaf-distribution/target/objrdma-karaf-distribution-${version}.tar.gz"
if [ ! -f "$dist" ] || [ -n "$(find pom.xml bundles features karaf-distribution/src karaf-distribution/pom.xml \
        jdk25-agent -newer "$dist" -type f ! -path '*/target/*' -print -quit 2>/dev/null)" ]; then
    echo "bench: building the distribution for the real-path rows (log: $out/dist-build.log)"
    if ! ./mvnw -B -ntp -q $offline install -Dmaven.test.skip=true > "$out/dist-build.log" 2>&1; then
        tail -40 "$out/dist-build.log" >&2
        exit 1
    fi
fi
# one class path: the table's module first (its versions win), then each benchmarked module's tests, classes, deps;
# JMH finds every module's META-INF/BenchmarkList on it and forks with it
cp="benchmarks/target/classes:$(cat benchmarks/target/bench.classpath)"
for m in $modules; do
    cp="$cp:$m/target/test-classes:$m/target/classes:$(cat "$m/target/bench.classpath")"
done
cp="$(printf '%s' "$cp" | tr ':' '\n' | awk 'NF && !seen[$0]++' | sed "s|^\([^/]\)|$root/\1|" | paste -sd: -)"

exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx2g -Djava.awt.headless=true \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$cp" org.objrdma.benchmarks.table.BenchTable \
    --out "$out" --root "$root" --softverbs "$root/bundles/objrdma-verbs/target/softverbs/libibverbs.so.1" "$@"
