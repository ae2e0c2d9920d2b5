#!/usr/bin/env bash
# Set-up, then every test of the workspace (real ocamlopt, real binaries).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
# A second, older compiler unpacked from Debian's archive for the two-compiler tests.
MLCOST_OLD_OCAMLOPT="$(scripts/fetch-old-ocaml.sh)"
export MLCOST_OLD_OCAMLOPT
cargo test --workspace "$@"
