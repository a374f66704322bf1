#!/usr/bin/env bash
# Builds the Spark job and Spark's class path (pom.xml beside this script) with a nested Maven run, for SparkOnYarnIT.
# hadoop-it's pom runs it in generate-test-resources:
#
#   build.sh offline=OFFLINE MVN OUTPUT_DIR -Dkey=value...
#
# OFFLINE is the outer build's settings.offline (true: the nested run is offline too), MVN the outer build's Maven,
# OUTPUT_DIR where the jar and jars/ go; the -D properties (versions, the local repository) go to the nested run.
# Skipped when OUTPUT_DIR holds a build of the same pom, sources and properties: a nested Maven start costs seconds.
set -euo pipefail

if [ $# -lt 3 ]; then
  echo "usage: build.sh offline=true|false MVN OUTPUT_DIR -Dkey=value..." >&2
  exit 2
fi
offline=${1#offline=}
mvn=$2
out=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)

stamp=$( (cat "$here/pom.xml" "$here/build.sh"; find "$here/src" -type f | sort | xargs cat; printf '%s\n' "$@") \
  | sha256sum | cut -d' ' -f1)
if [ -f "$out/build.stamp" ] && [ "$(cat "$out/build.stamp")" = "$stamp" ]; then
  echo "Spark job up to date in $out"
  exit 0
fi

# A fresh directory: jars of an earlier Spark version left beside the new ones would join the class path.
rm -rf "$out"
mkdir -p "$out"
args=(-B -ntp -q -f "$here/pom.xml" "-Dspark-job.dir=$out" "$@" package)
if [ "$offline" = true ]; then
  args=(-o "${args[@]}")
fi
echo "Building the Spark job and Spark's class path into $out"
"$mvn" "${args[@]}"
echo "$stamp" > "$out/build.stamp"
echo "Spark class path: $(ls "$out/jars" | wc -l) jars, $(du -sh "$out/jars" | cut -f1)"
