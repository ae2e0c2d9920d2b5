#!/usr/bin/env bash
# Set-up, then mlcost's main job: the default suite (gen → build → measure → count → fit →
# validate → report). Ends with the path of the HTML report. Extra arguments go to
# `mlcost suite` (e.g. --quick for a few-minute demo).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
exec cargo run --release --quiet -- suite "$@"
