#!/usr/bin/env bash
# Usage: check-dist.sh   (make check-dist; CI)
# What a machine without Swift gets, checked: runs `make dist`, unpacks the .deb with `dpkg -x`
# and checks that
#   - the package's fields are right (name, version, architecture, Depends: the three C libraries'
#     runtime packages), and every shared library the binary needs is either one of those, their
#     own dependencies, or the C/C++ runtime (libc, libm, libstdc++, libgcc_s) — none from Swift;
#   - `ldd` resolves no Swift library (libswiftCore, libFoundation*, libdispatch, libBlocksRuntime,
#     lib_FoundationICU…) and nothing from the toolchain's directory;
#   - the binary runs with the toolchain out of reach: `env -i` (no PATH to it, LD_LIBRARY_PATH
#     empty) and, where user namespaces allow, with the toolchain's directory hidden under an empty
#     tmpfs: --version (version, HEAD's commit, the vector path this CPU has) and real jobs on
#     samples/ (info, and a 48 kHz float32 stereo WAV converted to 16 kHz mono FLAC and read back);
#   - the man page renders, the bash/zsh/fish completions are what their shells load;
#   - the tarball holds the same files, byte for byte, and `make install DESTDIR=… PREFIX=/usr`
#     lays out the same files.
# Any failure prints what was wrong and exits 1. Prints how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$SECONDS
fail() {
  echo "check-dist: FAIL: $*" >&2
  exit 1
}

make --no-print-directory dist

version=$(sed -n 's/^    public static let version = "\([0-9][^"]*\)"$/\1/p' Sources/AudioPipelineWorkflows/Support/BuildInfo.swift)
commit=$(git rev-parse --short HEAD)
name=audiopipe-$version-linux-$(uname -m)
debarch=$(dpkg --print-architecture)
deb=dist/audiopipe_${version}_$debarch.deb
tarball=dist/$name.tar.gz
[ -f "$deb" ] || fail "no $deb"
[ -f "$tarball" ] || fail "no $tarball"
expected='bin/audiopipe
share/bash-completion/completions/audiopipe
share/doc/audiopipe/README.md
share/fish/vendor_completions.d/audiopipe.fish
share/man/man1/audiopipe.1.gz
share/zsh/site-functions/_audiopipe'

tmp=$(mktemp -d "${TMPDIR:-/tmp}/audiopipe-check-dist.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# --- The package's fields and files.
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = audiopipe ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version), not $version"
[ "$(field Architecture)" = "$debarch" ] || fail "Architecture: $(field Architecture)"
depends="libsndfile1, libsamplerate0, libfftw3-single3"
[ "$(field Depends)" = "$depends" ] || fail "Depends: $(field Depends), not $depends"
dpkg -x "$deb" "$tmp/deb"
files=$(cd "$tmp/deb/usr" && find . -type f | sed 's|^\./||' | sort)
[ "$files" = "$expected" ] || fail "the .deb holds under /usr:
$files
expected:
$expected"
[ -z "$(cd "$tmp/deb" && find . -mindepth 1 -maxdepth 1 ! -name usr)" ] || fail "the .deb has files outside /usr"
bin=$tmp/deb/usr/bin/audiopipe
[ -x "$bin" ] || fail "bin/audiopipe is not executable"

# --- Linking: no Swift library, nothing from the toolchain.
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")   # /opt/swift/usr -> /opt/swift
toolchain=$(dirname "$toolchain")
echo "check-dist: ldd of the packaged binary (toolchain at $toolchain):"
ldd "$bin" | tee "$tmp/ldd"
swiftlibs='libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|libicu|libXCTest|libTesting'
if grep -E "$swiftlibs" "$tmp/ldd"; then fail "ldd resolves Swift libraries (above)"; fi
if grep -F "$toolchain/" "$tmp/ldd"; then fail "ldd resolves libraries from the toolchain ($toolchain)"; fi
if grep -F "not found" "$tmp/ldd"; then fail "ldd: libraries not found"; fi
readelf -d "$bin" >"$tmp/dynamic"
if grep -E 'RPATH|RUNPATH' "$tmp/dynamic"; then fail "the binary has a run path (above)"; fi
# Every NEEDED library: from a package in Depends (or one of theirs), or the C/C++ runtime.
allowed=$(for p in libsndfile1 libsamplerate0 libfftw3-single3; do
  echo "$p"
  dpkg-query -W -f='${Depends}\n' "$p:$debarch" | tr ',|' '\n\n' | sed 's/[ (].*//; s/^ *//; s/:.*//; /^$/d'
done | sort -u)
sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' "$tmp/dynamic" | while read -r lib; do
  case "$lib" in libc.so.* | libm.so.* | libstdc++.so.* | libgcc_s.so.* | ld-linux*) continue ;; esac
  path=$(awk -v l="$lib" '$1 == l { print $3; exit }' "$tmp/ldd")
  [ -n "$path" ] || fail "NEEDED $lib: not in ldd's list"
  pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1) || true
  [ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1) || true
  grep -qxF "$pkg" <<<"$allowed" || fail "NEEDED $lib ($path, package '${pkg:-none}') is not covered by Depends: $depends"
done

# --- Running without the toolchain.
want="audiopipe $version (commit $commit) vector: "
if [ "$(uname -m)" = x86_64 ]; then
  flags=$(grep -m1 '^flags' /proc/cpuinfo)
  has() { grep -qw "$1" <<<"$flags"; }
  if has avx2 && has fma && has avx512f && has ssse3; then
    want+="AVX-512 (resampler), SSSE3 (base64)"
  elif has avx2 && has fma && has ssse3; then
    want+="AVX2+FMA (resampler), SSSE3 (base64)"
  elif has ssse3; then
    want+="SSSE3 (base64), portable Swift (resampler)"
  else
    want+="portable Swift"
  fi
elif [ "$(uname -m)" = aarch64 ]; then
  want+="NEON"
fi
cp samples/phone-capture-48k-f32-stereo.wav samples/mic-16k-pcm16-mono.wav "$tmp/"
cat >"$tmp/run.sh" <<'EOF'
set -eu
cd "$1"
./deb/usr/bin/audiopipe --version
./deb/usr/bin/audiopipe info mic-16k-pcm16-mono.wav
./deb/usr/bin/audiopipe convert phone-capture-48k-f32-stereo.wav out.flac --rate 16000 --channels 1 --no-progress
./deb/usr/bin/audiopipe info --json out.flac
./deb/usr/bin/audiopipe bench --iterations 300 --warmup 10 --json >bench.json 2>bench.err
EOF
check_run() { # $1: label; the output in $tmp/out
  local out=$tmp/out
  echo "check-dist: $1:"
  head -1 "$out"
  case "$(head -1 "$out")" in "$want"*) ;; *) fail "$1: --version printed '$(head -1 "$out")', expected '$want…'" ;; esac
  grep -qx '  sample rate 16000 Hz' "$out" || fail "$1: info: no '  sample rate 16000 Hz'"
  grep -qx '  channels    1' "$out" || fail "$1: info: no '  channels    1'"
  grep -qx '  frames      39242' "$out" || fail "$1: info: no '  frames      39242'"
  python3 - "$out" "$1" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
report = json.loads(text[text.index("\n["):])[0]
want = {"container": "flac", "encoding": "pcm16", "sampleRate": 16000, "channels": 1}
got = {k: report[k] for k in want}
# 163,640 frames at 48 kHz -> 54,546.7 at 16 kHz
if got != want or abs(report["frames"] - 163640 / 3) > 1 or report["peakDBFS"] < -20:
    sys.exit(f"check-dist: FAIL: {sys.argv[2]}: converted file: {got}, {report['frames']} frames, peak {report['peakDBFS']}")
print(f"  convert: {got}, {report['frames']} frames, peak {report['peakDBFS']} dBFS")
EOF
  # The bench, what the package is for on a target machine: both paths measured, allocations
  # counted in-process (the interposer is in the static binary) and none on the hot path.
  python3 - "$tmp/bench.json" "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
mic, speaker = r["paths"]["mic"]["total"], r["paths"]["speaker"]["total"]
problems = [k for k, v in [("mic p50", mic["p50"] > 0), ("speaker p50", speaker["p50"] > 0),
                           ("allocations counted", r["timer"]["allocationsCounted"]),
                           ("mic allocations 0", mic["allocationsPerChunk"] == 0),
                           ("speaker allocations 0", speaker["allocationsPerChunk"] == 0),
                           ("release build", r["machine"]["build"] == "release")] if not v]
if problems:
    sys.exit(f"check-dist: FAIL: {sys.argv[2]}: bench: {', '.join(problems)}")
print(f"  bench: mic p50 {mic['p50']:.0f} ns, speaker p50 {speaker['p50']:.0f} ns, 0 allocations per chunk")
EOF
  rm -f "$tmp/out.flac" "$tmp/bench.json" "$tmp/bench.err"
}
env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH= bash "$tmp/run.sh" "$tmp" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "env -i run"; }
check_run "env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="
if unshare -rm true 2>/dev/null; then
  env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH= unshare -rm bash -c \
    "mount -t tmpfs none '$toolchain' && [ -z \"\$(ls -A '$toolchain')\" ] && bash '$tmp/run.sh' '$tmp'" \
    >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "run with $toolchain hidden"; }
  check_run "with $toolchain hidden (an empty tmpfs over it)"
else
  echo "check-dist: NOTE: no user namespaces here (unshare -rm failed): the toolchain was not hidden; the env -i run stands"
fi

# --- Man page and completions.
bash "$root/scripts/install-deps.sh" man-db zsh fish -- --commands man zsh fish
page=$tmp/deb/usr/share/man/man1/audiopipe.1.gz
gzip -t "$page" || fail "man page: not gzip"
MANWIDTH=100 man -l "$page" 2>"$tmp/man.err" >"$tmp/man.txt" || fail "man -l: $(cat "$tmp/man.err")"
grep -q '^NAME' "$tmp/man.txt" && grep -q 'audiopipe' "$tmp/man.txt" || fail "man page: no NAME section"
for cmd in info convert frame deframe jitter vad analyze bench; do
  grep -qw "$cmd" "$tmp/man.txt" || fail "man page: no '$cmd'"
done
echo "check-dist: man page: $(wc -l <"$tmp/man.txt") lines rendered"
comp=$tmp/deb/usr/share
# bash and fish: completing "audiopipe con" must offer convert (the shells' own completion calls).
got=$(bash -c "source '$comp/bash-completion/completions/audiopipe'
  spec=\$(complete -p audiopipe) && fn=\${spec#*-F } && fn=\${fn%% *}
  COMP_WORDS=(audiopipe con) COMP_CWORD=1 COMP_LINE='audiopipe con' COMP_POINT=13
  \$fn audiopipe con audiopipe && echo \"\${COMPREPLY[*]}\"") || fail "bash completion: does not load"
[ "$got" = convert ] || fail "bash completion of 'audiopipe con': '$got', not 'convert'"
got=$(fish -c "source '$comp/fish/vendor_completions.d/audiopipe.fish'; complete -C 'audiopipe con'" | cut -f1)
[ "$got" = convert ] || fail "fish completion of 'audiopipe con': '$got', not 'convert'"
head -1 "$comp/zsh/site-functions/_audiopipe" | grep -qx '#compdef audiopipe' || fail "zsh completion: no #compdef audiopipe"
zsh -n "$comp/zsh/site-functions/_audiopipe" || fail "zsh completion: syntax"
echo "check-dist: completions: bash and fish complete 'audiopipe con' to convert; zsh parses"

# --- The tarball and make install: the same files, byte for byte.
mkdir "$tmp/tar"
tar -xzf "$tarball" -C "$tmp/tar"
[ "$(ls "$tmp/tar")" = "$name" ] || fail "the tarball's top directory: $(ls "$tmp/tar"), not $name"
files=$(cd "$tmp/tar/$name" && find . -type f | sed 's|^\./||' | sort)
[ "$files" = "$expected" ] || fail "the tarball holds:
$files"
diff -r "$tmp/tar/$name" "$tmp/deb/usr" || fail "the tarball and the .deb differ"
[ -x "$tmp/tar/$name/bin/audiopipe" ] || fail "the tarball's bin/audiopipe is not executable"
make --no-print-directory install DESTDIR="$tmp/inst" PREFIX=/usr >/dev/null
files=$(cd "$tmp/inst" && find . -type f | sed 's|^\./||' | sort)
[ "$files" = "$(sed 's|^|usr/|' <<<"$expected")" ] || fail "make install laid out:
$files"
diff -r "$tmp/inst/usr" "$tmp/deb/usr" || fail "make install and the .deb differ"
[ -x "$tmp/inst/usr/bin/audiopipe" ] || fail "make install: bin/audiopipe is not executable"

echo "check-dist: ok: $deb ($(du -k "$deb" | cut -f1) KB), $tarball ($(du -k "$tarball" | cut -f1) KB); $((SECONDS - start)) s"
