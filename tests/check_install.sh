#!/bin/sh
# After `meson install`, `pkg-config --cflags --libs topo-sched` builds and links a program
# against the installed headers and library (installed into a scratch DESTDIR), with an
# rpath and, as README's "Linking it" says for a private prefix, with LD_LIBRARY_PATH; the
# installed command runs and its man page is installed.
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
# README: PKG_CONFIG_PATH for the compile, LD_LIBRARY_PATH (no rpath) to run
${CC:-cc} -std=c11 -Wall -Werror $san -o "$dest/example2" "$src/examples/free_capacity.c" $flags
LD_LIBRARY_PATH=$libdir "$dest/example2" > /dev/null
exe=$dest$prefix/bin/topo-sched
[ -x "$exe" ] || { echo "topo-sched not installed in $prefix/bin"; exit 1; }
LD_LIBRARY_PATH=$libdir "$exe" help place | grep -q '^usage: topo-sched place' || { echo "installed topo-sched does not run"; exit 1; }
# Outside /usr and /usr/local the command carries a RUNPATH to the installed library.
case $prefix in
/usr | /usr/local) ;;
*) readelf -d "$exe" | grep -F "${libdir#"$dest"}" > /dev/null || { echo "installed topo-sched has no RUNPATH to ${libdir#"$dest"}"; exit 1; } ;;
esac
man=$(find "$dest" -path '*/man1/topo-sched.1' | head -n 1)
[ -n "$man" ] || { echo "man page topo-sched.1 not installed"; exit 1; }
cmp -s "$man" "$src/doc/topo-sched.1" || { echo "installed $man differs from doc/topo-sched.1"; exit 1; }
echo "ok: installed headers, library and topo-sched.pc build and run examples/free_capacity.c (rpath and LD_LIBRARY_PATH);"
echo "ok: topo-sched and its man page installed"
