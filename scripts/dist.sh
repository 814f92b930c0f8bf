#!/usr/bin/env bash
# Usage: dist.sh   (make dist)
# Builds what a machine without Swift installs, from a clean export of HEAD (`git archive`, so the
# working tree is never modified and uncommitted changes are not shipped):
#   - a release `audiopipe` with the Swift runtime linked statically, stripped, its commit stamped
#     into BuildInfo.swift of the export (a build from a working tree says "commit unknown");
#   - its man page (swift-argument-parser's generate-manual plugin), gzipped;
#   - shell completions for bash, zsh and fish (`audiopipe --generate-completion-script`);
# and packs one tree of them (bin/, share/man/man1/, share/bash-completion/completions/,
# share/zsh/site-functions/, share/fish/vendor_completions.d/, share/doc/audiopipe/README.md)
# three ways: dist/audiopipe-VERSION-linux-ARCH/ (what `make install` copies),
# dist/audiopipe-VERSION-linux-ARCH.tar.gz and dist/audiopipe_VERSION_DEBARCH.deb (dpkg-deb; the
# tree under /usr). Temporaries live in one directory, removed on exit and on a signal.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
info=Sources/AudioPipelineWorkflows/Support/BuildInfo.swift

version=$(sed -n 's/^    public static let version = "\([0-9][^"]*\)"$/\1/p' "$info")
[ -n "$version" ] || { echo "dist: no 'public static let version = \"…\"' line in $info" >&2; exit 1; }
commit=$(git rev-parse --short HEAD)
date=$(git log -1 --format=%cs HEAD)   # the commit's date: the man page's, so a rebuild is identical
epoch=$(git log -1 --format=%ct HEAD)  # and the archives' timestamps
arch=$(uname -m)                       # x86_64, aarch64: the tarball's name
debarch=$(dpkg --print-architecture)   # amd64, arm64: the package's
name=audiopipe-$version-linux-$arch
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "dist: note: uncommitted changes are not in the build; it is of HEAD ($commit)" >&2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/audiopipe-dist.XXXXXX")
# (SwiftPM also leaves its lock files for the scratch path in the temporary folder, named after it.)
cleanup() {
  rm -rf "$work"
  if [[ -n ${scratch:-} ]]; then rm -f "${TMPDIR:-/tmp}/${scratch//\//_}"*.lock; fi
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# The export, with the commit stamped into it (checked: the line must exist exactly once).
src=$work/src
mkdir -p "$src"
git archive HEAD | tar -x -C "$src"
stamp='    public static let commit = "unknown"'
[ "$(grep -cxF "$stamp" "$src/$info")" = 1 ] || { echo "dist: no '$stamp' line in $info" >&2; exit 1; }
sed -i "s/^    public static let commit = \"unknown\"$/    public static let commit = \"$commit\"/" "$src/$info"
grep -qxF "    public static let commit = \"$commit\"" "$src/$info"

echo "dist: audiopipe $version ($commit), release build with the Swift runtime linked statically" >&2
scratch=$work/build
cd "$src"
# No $ORIGIN run path: an installed binary must not load libraries from the directory it sits in.
swift build -c release --product audiopipe --static-swift-stdlib --disable-local-rpath --scratch-path "$scratch"
stage=$work/$name
mkdir -p "$stage/bin"
cp "$scratch/release/audiopipe" "$stage/bin/audiopipe"
strip "$stage/bin/audiopipe"
bin=$stage/bin/audiopipe
"$bin" --version | grep -qF "audiopipe $version (commit $commit)" || { echo "dist: the binary's --version is wrong" >&2; exit 1; }

# The man page: the plugin builds the package (release, the same objects: only the link differs)
# and runs swift-argument-parser's generate-manual on the executable.
swift package --scratch-path "$scratch" plugin generate-manual --date "$date"
man=$(find "$scratch/plugins/GenerateManual" -name audiopipe.1)
[ -n "$man" ] && [ "$(wc -l <<<"$man")" = 1 ] || { echo "dist: the plugin wrote no audiopipe.1 (or several)" >&2; exit 1; }
mkdir -p "$stage/share/man/man1"
gzip -9n <"$man" >"$stage/share/man/man1/audiopipe.1.gz"
cd "$root"

mkdir -p "$stage/share/bash-completion/completions" "$stage/share/zsh/site-functions" \
  "$stage/share/fish/vendor_completions.d" "$stage/share/doc/audiopipe"
"$bin" --generate-completion-script bash >"$stage/share/bash-completion/completions/audiopipe"
"$bin" --generate-completion-script zsh >"$stage/share/zsh/site-functions/_audiopipe"
"$bin" --generate-completion-script fish >"$stage/share/fish/vendor_completions.d/audiopipe.fish"
cp "$src/README.md" "$stage/share/doc/audiopipe/README.md"
for f in LICENSE LICENSE.txt LICENSE.md COPYING; do
  if [ -f "$src/$f" ]; then cp "$src/$f" "$stage/share/doc/audiopipe/$f"; fi
done
find "$stage" -type d -exec chmod 755 {} +
find "$stage" -type f -exec chmod 644 {} +
chmod 755 "$bin"

# The package: the same tree under /usr. Depends: the runtime packages of the three C libraries
# (the Swift runtime is in the binary; libc, libm, libstdc++ and libgcc_s are on every system).
deb=$work/deb
mkdir -p "$deb/DEBIAN" "$deb/usr"
cp -a "$stage/bin" "$stage/share" "$deb/usr/"
cat >"$deb/DEBIAN/control" <<EOF
Package: audiopipe
Version: $version
Architecture: $debarch
Maintainer: AudioPipeline <audiopipeline@users.noreply.github.com>
Installed-Size: $(du -sk "$deb/usr" | cut -f1)
Depends: libsndfile1, libsamplerate0, libfftw3-single3
Section: sound
Priority: optional
Homepage: https://github.com/audiopipeline/audiopipeline
Description: offline audio pipeline for voice-agent clients
 audiopipe converts, inspects, frames (base64 JSON messages of the voice APIs),
 deframes captured sessions, replays them through a jitter buffer and detects
 speech. Built from commit $commit with the Swift runtime linked statically.
EOF

mkdir -p dist
rm -rf "dist/$name" "dist/$name.tar.gz" "dist/audiopipe_${version}_$debarch.deb"
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$deb" "dist/audiopipe_${version}_$debarch.deb" >/dev/null
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$work" -cf - "$name" |
  gzip -9n >"dist/$name.tar.gz"
cp -a "$stage" "dist/$name"
ls -l "dist/$name.tar.gz" "dist/audiopipe_${version}_$debarch.deb"
echo "dist: $("$root/dist/$name/bin/audiopipe" --version)"
