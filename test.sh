#!/usr/bin/env bash
# Runs every test: builds all modules, unit tests, the features verification, the software verbs device
# tests, and the Pax Exam suite against the Karaf distribution. Extra arguments go to Maven.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/jdk.sh
objrdma_select_jdk
echo "objrdma: testing with JAVA_HOME=$JAVA_HOME"
exec ./mvnw -B -ntp install "$@"
