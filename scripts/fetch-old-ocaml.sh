#!/usr/bin/env bash
# Fetches an older OCaml release from Debian's archive (bullseye: 4.11.1) and unpacks it into
# target/ocaml-4.11/ with dpkg -x, for the tests that compare two real compilers. Nothing is
# installed system-wide. Prints the compiler's path and exits 0; exits 1 (and says why on
# stderr) when the compiler cannot be fetched.
set -uo pipefail
cd "$(dirname "$0")/.."
prefix="$PWD/target/ocaml-4.11"
compiler="$prefix/usr/bin/ocamlopt"
if [ -x "$compiler" ] && "$compiler" -version >/dev/null 2>&1; then
  echo "$compiler"; exit 0
fi
work="$PWD/target/apt-bullseye"
mkdir -p "$work"/{lists/partial,cache/archives/partial,debs} "$prefix"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bullseye main" > "$work/sources.list"
opts=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" -o APT::Sandbox::User=root)
if ! command -v apt-get >/dev/null 2>&1 || ! timeout 300 apt-get "${opts[@]}" -qq update >/dev/null 2>&1; then
  echo "fetch-old-ocaml: Debian's bullseye archive cannot be reached" >&2
  exit 1
fi
( cd "$work/debs" && timeout 600 apt-get "${opts[@]}" -qq download \
    ocaml-nox=4.11.1-4 ocaml-base-nox=4.11.1-4 ocaml-interp=4.11.1-4 ocaml-compiler-libs=4.11.1-4 ) >/dev/null 2>&1 || {
  echo "fetch-old-ocaml: could not download OCaml 4.11.1 from bullseye" >&2
  exit 1
}
for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$prefix" || exit 1; done
if ! "$compiler" -version >/dev/null 2>&1; then
  echo "fetch-old-ocaml: $compiler was unpacked but does not run" >&2
  exit 1
fi
echo "$compiler"
