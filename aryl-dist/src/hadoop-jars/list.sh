#!/usr/bin/env bash
# Lists the jars a nested, unparented pom resolves (Hadoop's own versions) with a nested Maven run, for aryl-dist's
# tests: pom.xml beside this script (the jars Hadoop ships) and ../hadoop-home/pom.xml (a Hadoop install that runs
# daemons). aryl-dist's pom runs it in generate-test-resources:
#
#   list.sh offline=OFFLINE MVN POM OUTPUT_FILE -Dkey=value...
#
# OFFLINE is the outer build's settings.offline (true: the nested run is offline too), MVN the outer build's Maven,
# POM the pom to resolve, OUTPUT_FILE the list (one `group:artifact:type:version:scope:/path/to.jar` a line, as the
# dependency plugin writes it); the -D properties (versions, the local repository) go to the nested run. Skipped when OUTPUT_FILE lists the
# same pom and properties: a nested Maven start costs seconds.
set -euo pipefail

if [ $# -lt 4 ]; then
  echo "usage: list.sh offline=true|false MVN POM OUTPUT_FILE -Dkey=value..." >&2
  exit 2
fi
offline=${1#offline=}
mvn=$2
pom=$3
out=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)

stamp=$( (cat "$pom" "$here/list.sh"; printf '%s\n' "$@") | sha256sum | cut -d' ' -f1)
if [ -f "$out.stamp" ] && [ -f "$out" ] && [ "$(cat "$out.stamp")" = "$stamp" ]; then
  echo "jar list of $pom up to date in $out"
  exit 0
fi

mkdir -p "$(dirname "$out")"
rm -f "$out" "$out.stamp"
plugin_version=""
for arg in "$@"; do
  case "$arg" in -Ddependency-plugin.version=*) plugin_version=${arg#-Ddependency-plugin.version=} ;; esac
done
args=(-B -ntp -q -f "$pom" "$@" "org.apache.maven.plugins:maven-dependency-plugin:$plugin_version:list"
  -DincludeScope=runtime -DoutputAbsoluteArtifactFilename=true -DoutputFile="$out" -DappendOutput=false)
if [ "$offline" = true ]; then
  args=(-o "${args[@]}")
fi
"$mvn" "${args[@]}"
echo "$stamp" > "$out.stamp"
echo "$pom: $(grep -c '\.jar' "$out") jars listed in $out"
