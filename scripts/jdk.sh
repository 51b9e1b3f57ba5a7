# Sourced by run.sh, test.sh and .ci/run: picks a JDK >= 25 and exports JAVA_HOME, or stops with a clear error.
# Order: $JAVA_HOME, then /usr/lib/jvm/*, then the java on PATH. objrdma needs 25 for the final FFM API
# (java.lang.foreign) and the class-file API the Karaf agent uses.

objrdma_java_feature() { # prints the feature release of the java binary $1, or nothing
    "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -1
}

objrdma_select_jdk() {
    candidates=""
    [ -n "${JAVA_HOME:-}" ] && candidates="$JAVA_HOME"
    for d in /usr/lib/jvm/*; do [ -d "$d" ] && candidates="$candidates $d"; done
    if command -v java >/dev/null 2>&1; then
        candidates="$candidates $(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
    fi
    for home in $candidates; do
        if [ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ]; then
            v=$(objrdma_java_feature "$home/bin/java")
            if [ -n "$v" ] && [ "$v" -ge 25 ]; then
                export JAVA_HOME="$home"
                export PATH="$JAVA_HOME/bin:$PATH"
                return 0
            fi
        fi
    done
    echo "objrdma: no JDK >= 25 found (looked at \$JAVA_HOME, /usr/lib/jvm/*, java on PATH)." >&2
    echo "objrdma: install one (e.g. Temurin 25) and set JAVA_HOME to it." >&2
    return 1
}
