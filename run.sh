#!/usr/bin/env bash
# Builds objrdma if needed and starts the Karaf distribution in the foreground with its console.
#   ./run.sh           interactive Karaf console (logout or Ctrl-D stops it)
#   ./run.sh server    no console; stop with Ctrl-C or bin/stop
# The distribution is unpacked under target/run/; its data/ (logs, caches) survives restarts until the
# distribution is rebuilt.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/jdk.sh
objrdma_select_jdk

version=$(sed -n 's:^  <version>\(.*\)</version>:\1:p' pom.xml | head -1)
dist="karaf-distribution/target/objrdma-karaf-distribution-${version}.tar.gz"

needs_build() {
    [ ! -f "$dist" ] && return 0
    # rebuild when any tracked source is newer than the distribution
    [ -n "$(find pom.xml bundles features karaf-distribution/src karaf-distribution/pom.xml jdk25-agent \
        -newer "$dist" -type f ! -path '*/target/*' -print -quit 2>/dev/null)" ]
}

if needs_build; then
    # The whole reactor: the distribution also takes the JDK 25 agent, which is no Maven dependency of it.
    # maven.test.skip also skips building the software verbs test device, so running needs no gcc.
    echo "objrdma: building (tests skipped; ./test.sh runs them)"
    ./mvnw -B -ntp -q install -Dmaven.test.skip=true
fi

home="target/run/objrdma-karaf-distribution-${version}"
if [ ! -d "$home" ] || [ "$dist" -nt "$home" ]; then
    rm -rf "$home"
    mkdir -p target/run
    tar xzf "$dist" -C target/run
    touch "$home"
fi
echo "objrdma: starting Karaf in $home (JDK $(objrdma_java_feature "$JAVA_HOME/bin/java"))"
cd "$home"
exec bin/karaf "$@"
