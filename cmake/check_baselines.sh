#!/usr/bin/env bash
# Fails when a bench baseline whose Debian package is installed was not compiled in.
#   bash cmake/check_baselines.sh BUILD_DIR
# (BUILD_DIR/bench/baselines.txt is written at configure time by QuireBenchBaselines.cmake.)
set -euo pipefail
summary="$1/bench/baselines.txt"
if [ ! -f "$summary" ]; then
  echo "check_baselines: $summary missing (was the bench configured?)" >&2
  exit 1
fi
status=0
for pair in onednn:libdnnl-dev openblas:libopenblas-dev; do
  name=${pair%%:*}
  package=${pair#*:}
  line=$(grep "^$name: " "$summary" || true)
  echo "baseline $line"
  if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" &&
     ! grep -q "^$name: enabled" <<<"$line"; then
    echo "check_baselines: $package is installed but the $name baseline is not compiled in" >&2
    status=1
  fi
done
exit $status
