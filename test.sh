#!/usr/bin/env bash
# Set-up, then every test of the workspace (real ocamlopt, real binaries).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
cargo test --workspace "$@"
