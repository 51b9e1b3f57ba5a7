#!/usr/bin/env bash
# cuObject facade overhead over the TCP transport (not part of ./test.sh):
#  1. ChannelMemoryReport: heap, threads and off-heap memory of the default 128 channels;
#  2. JMH CuObjSyncBenchmark: synchronous handleGetObject / handlePutObject of 4 KiB and 64 MiB next to raw
#     WRITE / READ of the same size on the same transports and memory, in the same run;
#  3. JMH CuObjAsyncBenchmark: 4 threads x 16 outstanding asynchronous requests (4 KiB and 1 MiB) next to raw
#     WRITEs / READs with the same concurrency.
# Prints ops/s, GB/s and the ratio facade / raw (the target is >= 0.9). Extra arguments go to JMH
# (e.g. -wi 1 -i 3 for a quick run). MVN_ARGS=-o ./bench.sh builds offline.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$root/scripts/jdk.sh"
objrdma_select_jdk

if ! command -v jq >/dev/null 2>&1; then
    echo "bench: installing jq"
    if [ "$(id -u)" = 0 ]; then sudo_cmd=""; else sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq jq
fi

out="$here/target/bench"
mkdir -p "$out"
mvn_cmd="$root/mvnw"
[ -x "$mvn_cmd" ] || mvn_cmd=mvn
"$mvn_cmd" -q -B ${MVN_ARGS:-} -f "$here/pom.xml" test-compile dependency:build-classpath \
    -Dmdep.outputFile="$out/classpath.txt" -Dmdep.includeScope=test
cp="$here/target/test-classes:$here/target/classes:$(cat "$out/classpath.txt")"

echo "bench: memory of the default 128 channels"
java --enable-native-access=ALL-UNNAMED -Xmx512m -cp "$cp" org.objrdma.cuobj.bench.ChannelMemoryReport \
    2>/dev/null | tee "$out/memory.txt"

rm -f "$out/jmh.json"
echo "bench: JMH CuObjSyncBenchmark and CuObjAsyncBenchmark"
# JMH allows one run per machine (/tmp/jmh.lock): wait for another project's benchmark instead of sharing the CPUs
for attempt in $(seq 1 60); do
    java -cp "$cp" org.openjdk.jmh.Main 'org.objrdma.cuobj.bench.CuObj(Sync|Async)Benchmark' \
        -rf json -rff "$out/jmh.json" "$@" 2>&1 | tee "$out/jmh.log" || true
    if grep -q 'Unable to acquire the JMH lock' "$out/jmh.log"; then
        echo "bench: another JMH run holds the lock, waiting (attempt $attempt)"
        sleep 20
    else
        break
    fi
done
grep -q '"primaryMetric"' "$out/jmh.json" 2>/dev/null || { echo "bench: JMH produced no result, see $out/jmh.log" >&2; exit 1; }

jq -r '
  def name: .benchmark | split(".") | last;
  def size: .params.size | tonumber;
  def gbps: (.primaryMetric.score * size / 1e9);
  def fmt(x): (x * 1000 | round / 1000);
  (map({key: "\(name)@\(size)", value: .primaryMetric.score}) | from_entries) as $s
  | (.[] | "\(name) \(size) B: \(fmt(.primaryMetric.score)) ops/s = \(fmt(gbps)) GB/s"),
    "ratios facade / raw (same run):",
    ( [["facadeGet","rawWrite"],["facadePut","rawRead"],["facadeGetAsync","rawWriteAsync"],["facadePutAsync","rawReadAsync"]][]
      as $p | (.[] | select(name == $p[0])) as $f
      | ($s["\($p[1])@\($f | size)"]) as $raw
      | select($raw != null)
      | "  \($p[0]) / \($p[1]) \($f | size) B: \(fmt($f.primaryMetric.score / $raw))" )
' "$out/jmh.json" | tee "$out/summary.txt"
