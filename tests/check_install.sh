#!/bin/sh
# After `meson install`, `pkg-config --cflags --libs topo-sched` builds and links a program
# against the installed headers and library (installed into a scratch DESTDIR).
# usage: check_install.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1 src=$2
dest=${TMPDIR:-/tmp}/tsched-install.$$
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --no-rebuild --quiet --destdir "$dest" > "$dest.log" 2>&1 || { cat "$dest.log"; rm -f "$dest.log"; exit 1; }
rm -f "$dest.log"
pc=$(find "$dest" -name topo-sched.pc | head -n 1)
[ -n "$pc" ] || { echo "no topo-sched.pc installed"; exit 1; }
prefix=$(sed -n 's/^prefix=//p' "$pc")
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --define-variable=prefix="$dest$prefix" --cflags --libs topo-sched)
libdir=$(pkg-config --define-variable=prefix="$dest$prefix" --variable=libdir topo-sched)
for h in common.h topology.h topo-sched.h; do
    [ -f "$dest$prefix/include/topo-sched/$h" ] || { echo "header $h not installed"; exit 1; }
done
[ -e "$libdir/libtopo-sched.so.0" ] || { echo "libtopo-sched.so.0 not installed in $libdir"; exit 1; }
# A sanitizer build of the library (-Db_sanitize, or -Dfuzz whose runtimes live in the
# programs) needs the program built the same way.
san=
undef=$(nm -D --undefined-only "$libdir/libtopo-sched.so.0" 2>/dev/null || true)
case $undef in *__asan_*) san="$san -fsanitize=address" ;; esac
case $undef in *__ubsan_*) san="$san -fsanitize=undefined" ;; esac
${CC:-cc} -std=c11 -Wall -Werror $san -o "$dest/example" "$src/examples/free_capacity.c" $flags -Wl,-rpath,"$libdir"
"$dest/example" > /dev/null
echo "ok: installed headers, library and topo-sched.pc build and run examples/free_capacity.c"
