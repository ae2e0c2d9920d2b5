#!/usr/bin/env bash
# Installs what mlcost needs and is missing: OCaml's native compiler (Debian's ocaml-nox, which
# brings gcc and binutils), then builds the workspace. Safe to run again: it only acts on what
# is absent.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "setup: $*" >&2; }

if ! command -v cargo >/dev/null 2>&1; then
  say "cargo is not installed: install a Rust toolchain (https://rustup.rs) and run this again."
  exit 1
fi

need_apt=()
command -v ocamlopt >/dev/null 2>&1 || need_apt+=(ocaml-nox)
{ command -v nm >/dev/null 2>&1 && command -v size >/dev/null 2>&1; } || need_apt+=(binutils)
# valgrind counts instructions per run, the deterministic metric beside time.
command -v valgrind >/dev/null 2>&1 || need_apt+=(valgrind)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing ${need_apt[*]} with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    say "missing: ${need_apt[*]}. Install them (Debian/Ubuntu: sudo apt-get install -y ${need_apt[*]}) and run this again."
    exit 1
  fi
fi
say "ocamlopt $(ocamlopt -version) at $(command -v ocamlopt)"
