# ---------------------------------------------------------------------------------------------------------
# objrdma: Karaf 4.4.10 on JDK 24+ -- the objrdma-karaf-jdk25-agent (see jdk25-agent/README.md).
# Paste this block into the distribution's bin/setenv (POSIX sh, sourced by bin/karaf and the other scripts).
#
# - Only bin/karaf gets the agent: bin/start and bin/instance start the JVM through bin/karaf; bin/client,
#   bin/shell, bin/status and bin/stop do not need it.
# - setenv is sourced before bin/inc computes KARAF_HOME, so the home falls back to bin/.. exactly as
#   bin/inc would resolve it.
# - KARAF_NO_JDK25_AGENT=<anything non-empty>  start without the agent (the agent also checks it itself).
# - KARAF_JDK25_AGENT_ARGS=verbose            list rewritten classes on stderr + summary at shutdown.
# - Added only once, even if setenv is sourced again by a child bin/karaf; skipped if the jar is missing
#   (a -javaagent jar that does not exist would stop the JVM from starting).
# - The agent does nothing on JDK < 24, so the block is safe whatever JAVA_HOME points to.
# - Like everything in EXTRA_JAVA_OPTS, a KARAF_HOME containing spaces is not supported.
# ---------------------------------------------------------------------------------------------------------
if [ "${PROGNAME:-$(basename "$0")}" = "karaf" ] && [ -z "${KARAF_NO_JDK25_AGENT}" ]; then
    OBJRDMA_JDK25_AGENT_JAR="${KARAF_HOME:-${DIRNAME}/..}/lib/agent/objrdma-karaf-jdk25-agent.jar"
    if [ -f "${OBJRDMA_JDK25_AGENT_JAR}" ]; then
        case "${EXTRA_JAVA_OPTS}" in
            *objrdma-karaf-jdk25-agent.jar*) ;;
            *) EXTRA_JAVA_OPTS="${EXTRA_JAVA_OPTS} -javaagent:${OBJRDMA_JDK25_AGENT_JAR}${KARAF_JDK25_AGENT_ARGS:+=${KARAF_JDK25_AGENT_ARGS}}" ;;
        esac
    fi
    unset OBJRDMA_JDK25_AGENT_JAR
fi
# ---------------------------------------------------------------------------------------------------------

# Pax Exam (bin/setenv is not used there: Exam forks java itself, with the Karaf home as working directory,
# so the path is relative to the Karaf home). Add to the @Configuration options:
#
#   new org.ops4j.pax.exam.options.extra.VMOption("-javaagent:lib/agent/objrdma-karaf-jdk25-agent.jar")
#
# or, to see which classes get rewritten:
#
#   new org.ops4j.pax.exam.options.extra.VMOption("-javaagent:lib/agent/objrdma-karaf-jdk25-agent.jar=verbose")
