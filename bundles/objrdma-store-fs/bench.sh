#!/usr/bin/env bash
# Runs the file store's plain measured benchmark (FsStoreBench): put and ranged get of 64 MiB against a bare
# FileChannel doing the same I/O in the same run (ratio printed), and 4 KiB puts/s with fsync on and off.
# Not part of ./test.sh. Run it holding the build lock (flock /tmp/objrdma-build.lock bench.sh) so no build
# competes with it.
# Usage: bundles/objrdma-store-fs/bench.sh [root-dir [rounds [seconds-of-4KiB-puts]]]
#        (default target/bench-root, 5 rounds, 3 s). Extra Maven flags (e.g. -o) go in BENCH_MAVEN_FLAGS.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$root/scripts/jdk.sh"
objrdma_select_jdk
"$root/mvnw" -B -q -f "$root/pom.xml" -pl bundles/objrdma-store-fs -am test-compile dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$here/target/bench.classpath" ${BENCH_MAVEN_FLAGS:-}
cp="$here/target/test-classes:$here/target/classes:$(cat "$here/target/bench.classpath")"
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx512m -cp "$cp" \
    org.objrdma.store.fs.internal.FsStoreBench "${@:-$here/target/bench-root}"
