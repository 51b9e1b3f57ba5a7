#!/usr/bin/env bash
# TCP transport throughput against the wire: 64 MiB WRITE and READ over loopback (JMH, TcpTransportBenchmark)
# next to an iperf3 single TCP stream over the same loopback, measured in the same run (iperf3 before and after
# the JMH run; their mean is the reference). Prints GB/s and the ratio to iperf3. Not part of ./test.sh.
# Extra arguments go to JMH (e.g. -p frameSize=1048576, -wi 1 -i 3).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$root/scripts/jdk.sh"
objrdma_select_jdk

need=""
command -v iperf3 >/dev/null 2>&1 || need="$need iperf3"
command -v jq >/dev/null 2>&1 || need="$need jq"
if [ -n "$need" ]; then
    echo "bench: installing$need"
    if [ "$(id -u)" = 0 ]; then sudo_cmd=""; else sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq $need
fi

cd "$here"
out="$here/target/bench"
mkdir -p "$out"
mvn_cmd="$root/mvnw"
[ -x "$mvn_cmd" ] || mvn_cmd=mvn
"$mvn_cmd" -q -B -f "$here/pom.xml" test-compile dependency:build-classpath \
    -Dmdep.outputFile="$out/classpath.txt" -Dmdep.includeScope=test
cp="$here/target/test-classes:$here/target/classes:$(cat "$out/classpath.txt")"

iperf_gbps() { # one 5 s single-stream loopback run; prints GB/s (10^9 bytes/s)
    local port=$(( 20000 + RANDOM % 20000 ))
    iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
    local server=$!
    sleep 0.5
    iperf3 -c 127.0.0.1 -p "$port" -t 5 -J > "$out/iperf3-$1.json"
    wait "$server" || true
    jq '.end.sum_received.bits_per_second / 8 / 1e9' "$out/iperf3-$1.json"
}

rm -f "$out/jmh.json"
echo "bench: iperf3 single stream, loopback (before)"
before=$(iperf_gbps before)
echo "bench: JMH TcpTransportBenchmark (64 MiB WRITE and READ)"
# JMH allows one run per machine (/tmp/jmh.lock): wait for another project's benchmark instead of sharing the CPUs
for attempt in $(seq 1 60); do
    java -cp "$cp" org.openjdk.jmh.Main 'TcpTransportBenchmark' -rf json -rff "$out/jmh.json" "$@" 2>&1 \
        | tee "$out/jmh.log" || true
    if grep -q 'Unable to acquire the JMH lock' "$out/jmh.log"; then
        echo "bench: another JMH run holds the lock, waiting (attempt $attempt)"
        sleep 20
    else
        break
    fi
done
grep -q '"primaryMetric"' "$out/jmh.json" 2>/dev/null || { echo "bench: JMH produced no result, see $out/jmh.log" >&2; exit 1; }
echo "bench: iperf3 single stream, loopback (after)"
after=$(iperf_gbps after)

jq -r --argjson before "$before" --argjson after "$after" '
  (($before + $after) / 2) as $ref
  | "iperf3 single stream: \($before * 1000 | round / 1000) GB/s before, \($after * 1000 | round / 1000) GB/s after, reference \($ref * 1000 | round / 1000) GB/s",
    (.[] | (.params.size | tonumber) as $size
         | ($size / (.primaryMetric.score / 1000) / 1e9) as $gbps
         | "\(.benchmark | split(".") | last) \($size / 1048576) MiB frame \(.params.frameSize | tonumber / 1048576) MiB: \(.primaryMetric.score * 1000 | round / 1000) ms/op = \($gbps * 1000 | round / 1000) GB/s, ratio to iperf3 \($gbps / $ref * 1000 | round / 1000)")
' "$out/jmh.json" | tee "$out/summary.txt"
