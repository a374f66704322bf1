# Sourced by the scripts in bin/: the java and the class path of an Aryl command run from this distribution on a host
# with Hadoop installed. POSIX sh; needs neither Maven nor the sources.
#
#   aryl_setup NAME     sets aryl_home, java and aryl_cp, or prints one line naming what is missing and exits 2
#
# Hadoop: $HADOOP_HOME/bin/hadoop when HADOOP_HOME is set, else the `hadoop` on the PATH. Its `hadoop classpath`
# (which starts with the configuration directory, HADOOP_CONF_DIR or $HADOOP_HOME/etc/hadoop) follows the
# distribution's jars in share/aryl/tools. Java: $JAVA_HOME/bin/java when JAVA_HOME is set, else the `java` on the
# PATH. ARYL_OPTS: extra JVM options (e.g. -Xmx1g), split at spaces.

aryl_home=$(cd "$(dirname "$0")/.." && pwd -P)

aryl_setup() {
  if [ -n "${HADOOP_HOME:-}" ] && [ -x "$HADOOP_HOME/bin/hadoop" ]; then
    hadoop="$HADOOP_HOME/bin/hadoop"
  elif command -v hadoop >/dev/null 2>&1; then
    hadoop=$(command -v hadoop)
  else
    echo "$1: no Hadoop found: neither 'hadoop' on the PATH nor \$HADOOP_HOME/bin/hadoop (HADOOP_HOME=${HADOOP_HOME:-unset})" >&2
    exit 2
  fi
  if ! hadoop_cp=$("$hadoop" classpath); then
    echo "$1: '$hadoop classpath' failed; check the Hadoop install and HADOOP_CONF_DIR" >&2
    exit 2
  fi
  if [ -n "${JAVA_HOME:-}" ]; then
    java="$JAVA_HOME/bin/java"
  elif command -v java >/dev/null 2>&1; then
    java=$(command -v java)
  else
    echo "$1: no java found: neither \$JAVA_HOME/bin/java (JAVA_HOME unset) nor 'java' on the PATH" >&2
    exit 2
  fi
  aryl_cp="$aryl_home/share/aryl/tools/*:$hadoop_cp"
}
