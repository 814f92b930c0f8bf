#!/usr/bin/env bash
# Usage: install-deps.sh APT_PACKAGE... -- PKGCONFIG_MODULE...
#        install-deps.sh APT_PACKAGE... -- --commands COMMAND...
#        install-deps.sh APT_PACKAGE... -- --python MODULE...   (python3 -c "import MODULE")
#        install-deps.sh APT_PACKAGE... -- --library SONAME...  (in ldconfig's cache, e.g. libc++.so.1)
# Installs the Debian/Ubuntu packages when any of the pkg-config modules (or commands) is missing:
# with apt-get as root, with sudo otherwise; if neither can, says exactly what to install.
set -euo pipefail
packages=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do packages+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
mode=pkg-config
if [ "${1:-}" = "--commands" ]; then mode=commands; shift; fi
if [ "${1:-}" = "--python" ]; then mode=python; shift; fi
if [ "${1:-}" = "--library" ]; then mode=library; shift; fi

missing=()
for m in "$@"; do
  if [ "$mode" = pkg-config ]; then
    pkg-config --exists "$m" 2>/dev/null || missing+=("$m")
  elif [ "$mode" = library ]; then
    /sbin/ldconfig -p 2>/dev/null | grep -qF " $m " || missing+=("library $m")
  elif [ "$mode" = python ]; then
    python3 -c "import $m" >/dev/null 2>&1 || missing+=("python3 module $m")
  else
    command -v "$m" >/dev/null 2>&1 || missing+=("$m")
  fi
done
# pkg-config itself may be what is missing.
if [ "$mode" = pkg-config ] && ! command -v pkg-config >/dev/null 2>&1; then missing+=(pkg-config); fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Missing: ${missing[*]} — installing ${packages[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  run=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  run=(sudo)
elif command -v sudo >/dev/null 2>&1 && [ -t 0 ]; then
  run=(sudo)   # sudo will ask for a password on this terminal
else
  echo "error: cannot install system packages (not root and no usable sudo)." >&2
  echo "       Install them yourself, then run make again:" >&2
  echo "       apt-get install ${packages[*]}" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "error: apt-get not found. Install the equivalents of: ${packages[*]} (Homebrew: libsndfile libsamplerate fftw)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet: update once, and again if the install fails.
if ! "${run[@]}" apt-get install -y -q "${packages[@]}" >/dev/null 2>&1; then
  "${run[@]}" apt-get update -q >/dev/null
  "${run[@]}" apt-get install -y -q "${packages[@]}"
fi
echo "Installed: ${packages[*]}" >&2
