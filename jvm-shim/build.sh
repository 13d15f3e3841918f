#!/usr/bin/env bash
# Builds the JVM shim with plain javac + jar (no Maven) against the jars of the installed pyspark,
# into paimon_sql/spark/jars/paimon-sql-shim.jar (git-ignored; package data of a built wheel).
#
# Usage: jvm-shim/build.sh [python]   (default: <repo>/.venv/bin/python, else $PYTHON, else python3)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
py="${1:-${PYTHON:-}}"
if [ -z "$py" ]; then
  if [ -x "$root/.venv/bin/python" ]; then py="$root/.venv/bin/python"; else py=python3; fi
fi
for tool in javac jar; do
  command -v "$tool" >/dev/null || { echo "jvm-shim/build.sh: '$tool' not found (a JDK >= 17 is needed)" >&2; exit 1; }
done
spark_jars="$("$py" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')"
[ -d "$spark_jars" ] || { echo "jvm-shim/build.sh: no jars folder in the pyspark of $py" >&2; exit 1; }
out="$root/paimon_sql/spark/jars/paimon-sql-shim.jar"
classes="$(mktemp -d "${TMPDIR:-/tmp}/paimon-sql-shim.XXXXXX")"
trap 'rm -rf "$classes"' EXIT
mapfile -t sources < <(find "$here/src/main/java" -name '*.java' | sort)
javac --release 17 -encoding UTF-8 -Xlint:all,-options,-serial,-processing,-path -Werror \
  -cp "$spark_jars/*" -d "$classes" "${sources[@]}"
mkdir -p "$(dirname "$out")"
jar --create --file "$out.tmp" -C "$classes" .
mv -f "$out.tmp" "$out"
echo "built $out"
