#!/usr/bin/env bash
# Set-up, then mlcost's main job. Extra arguments go to `mlcost bench`.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
cargo build --release --quiet
exec target/release/mlcost bench examples/*.ml --size 2000 --size 8000 --size 16000 "$@"
