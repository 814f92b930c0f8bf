#!/usr/bin/env bash
# Usage: install.sh PREFIX [DESTDIR]   (make install PREFIX=/usr/local DESTDIR=)
# Installs the tree `make dist` made (dist/audiopipe-VERSION-linux-ARCH/: the binary, its man page,
# the bash, zsh and fish completions, the README) under DESTDIR/PREFIX: the same files the tarball
# and the .deb hold. Runs `make dist` first when that tree is missing or of another commit (so
# `make dist` as yourself, then `sudo make install`, builds nothing as root).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:?usage: install.sh PREFIX [DESTDIR]}
destdir=${2:-}
case "$prefix" in /*) ;; *) echo "install: PREFIX must be an absolute path, not '$prefix'" >&2; exit 64 ;; esac

version=$(sed -n 's/^    public static let version = "\([0-9][^"]*\)"$/\1/p' Sources/AudioPipelineWorkflows/Support/BuildInfo.swift)
tree=dist/audiopipe-$version-linux-$(uname -m)
# safe.directory: under sudo, git refuses a checkout owned by someone else.
commit=$(git -c safe.directory="$PWD" rev-parse --short HEAD)
if ! [ -x "$tree/bin/audiopipe" ] || ! "$tree/bin/audiopipe" --version | grep -qF "(commit $commit)"; then
  echo "install: $tree is missing or not of HEAD ($commit): make dist first" >&2
  bash scripts/dist.sh
fi

target=$destdir$prefix
(cd "$tree" && find bin share -type f | sort) | while read -r f; do
  mode=644
  case "$f" in bin/*) mode=755 ;; esac
  install -D -m "$mode" "$tree/$f" "$target/$f"
  echo "$target/$f"
done
