#!/usr/bin/env bash
# Set-up, then every test of the workspace (real ocamlopt, real binaries).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
# Headless Chromium checks that the HTML report renders without console errors.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1 \
    || echo "test.sh: could not install chromium; the browser check will not run (it fails on CI)" >&2
fi
# A second, older compiler unpacked from Debian's archive for the two-compiler tests, which are
# #[ignore]d unless it is there. On CI (CI=true) not getting it is a failure.
ignored=()
if MLCOST_OLD_OCAMLOPT="$(scripts/fetch-old-ocaml.sh)"; then
  export MLCOST_OLD_OCAMLOPT
  ignored=(--include-ignored)
elif [ "${CI:-}" = true ]; then
  echo "test.sh: no second OCaml release for the two-compiler tests" >&2
  exit 1
else
  echo "test.sh: no second OCaml release: the two-compiler tests stay ignored" >&2
fi
# One test at a time: tests that build OCaml programs would otherwise run beside tests that
# time them, and on a 2-core machine that alone moves a measurement by 25%.
cargo test --workspace --no-fail-fast "$@" -- --test-threads=1 ${ignored[@]+"${ignored[@]}"}
