#!/bin/sh
# After `meson install`, `pkg-config --cflags --libs topo-sched` builds and links a program
# against the installed headers and library (installed into a scratch DESTDIR), with an
# rpath and, as README's "Linking it" says for a private prefix, with LD_LIBRARY_PATH; the
# installed command runs and its man page is installed;
# the static libtopo-sched.a links a program on its own with `pkg-config --static --libs`; and, when
# TSCHED_PYTHON names the interpreter the package was installed for, the installed Python
# package imports from <destdir>/<purelib> and places a job with TOPO_SCHED_LIBRARY unset.
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

# ---- the static library ----------------------------------------------------------------
[ -f "$libdir/libtopo-sched.a" ] || { echo "libtopo-sched.a not installed beside the shared library in $libdir"; exit 1; }
static_libs=$(pkg-config --define-variable=prefix="$dest$prefix" --static --libs topo-sched)
for l in -ltopo-sched -lglpk -ljansson -lm; do
    case " $static_libs " in *" $l "*) ;; *) echo "pkg-config --static --libs lacks $l: $static_libs"; exit 1 ;; esac
done
cflags=$(pkg-config --define-variable=prefix="$dest$prefix" --cflags topo-sched)
# A wholly static program when the toolchain has the static C library and the archives of
# GLPK and jansson; otherwise libtopo-sched.a alone is linked statically. Either way the
# program must not need libtopo-sched.so.
cc=${CC:-cc}
have_archives=yes
for a in libc.a libglpk.a libjansson.a; do
    case $($cc -print-file-name=$a) in /*) ;; *) have_archives=no ;; esac
done
if [ -z "$san" ] && [ "$have_archives" = yes ]; then
    how="-static"
    # shellcheck disable=SC2086
    $cc -std=c11 -Wall -Werror -static -o "$dest/example-static" "$src/examples/free_capacity.c" $cflags $static_libs
else
    how="libtopo-sched.a with shared system libraries"
    other=$(printf '%s\n' $static_libs | grep -vx -- '-ltopo-sched' | tr '\n' ' ')
    # shellcheck disable=SC2086
    $cc -std=c11 -Wall -Werror $san -o "$dest/example-static" "$src/examples/free_capacity.c" $cflags \
        "$libdir/libtopo-sched.a" $other
fi
if readelf -d "$dest/example-static" 2>/dev/null | grep -q 'libtopo-sched'; then
    echo "the statically linked program still needs libtopo-sched.so:"; readelf -d "$dest/example-static"; exit 1
fi
env -u LD_LIBRARY_PATH "$dest/example-static" > "$dest/static.out"
[ -s "$dest/static.out" ] || { echo "the static program printed nothing"; exit 1; }
"$dest/example" > "$dest/shared.out"
cmp -s "$dest/static.out" "$dest/shared.out" || { echo "static and shared programs disagree"; diff "$dest/static.out" "$dest/shared.out"; exit 1; }
echo "ok: libtopo-sched.a and pkg-config --static link examples/free_capacity.c ($how)"

# ---- the Python package ----------------------------------------------------------------
[ -n "${TSCHED_PYTHON:-}" ] || { echo "python package not checked (no TSCHED_PYTHON)"; exit 0; }
init=$(find "$dest" -path '*/topo_sched/__init__.py' | head -n 1)
[ -n "$init" ] || { echo "the Python package topo_sched was not installed"; exit 1; }
[ -f "$(dirname "$init")/_paths.py" ] || { echo "topo_sched/_paths.py was not installed"; exit 1; }
purelib=$(dirname "$(dirname "$init")")
recorded=$(sed -n 's/^LIBDIR = "\(.*\)"$/\1/p' "$(dirname "$init")/_paths.py")
[ "$dest$recorded" = "$libdir" ] || { echo "_paths.py records $recorded, the library is in ${libdir#"$dest"}"; exit 1; }
cat > "$dest/place.py" <<'PY'
import os, sys
import topo_sched as ts
assert os.path.dirname(ts.__file__) == sys.argv[1], ts.__file__
topo = ts.Topology.from_json({"format": "tsched.topology.v1", "generate": {"kind": "leaf_spine", "leaves": 2,
    "spines": 2, "nodes_per_leaf": 4, "gpus_per_node": 8, "nic_gbps": 400}})
pl = ts.place(topo, {"format": "tsched.job.v1", "gpus": 32, "tp": 8, "pp": 2}, no_timing=True)
nodes = [a["node"] for a in pl["assignment"]]
assert len(nodes) == 4 == len(set(nodes)), pl
assert sorted(a["rank"] for a in pl["assignment"]) == list(range(4)), pl
# The library actually loaded is the installed one.
with open("/proc/self/maps") as f:
    maps = [l.split()[-1] for l in f if "libtopo-sched.so" in l]
assert maps and all(m.startswith(sys.argv[2]) for m in maps), maps
print(ts.library_version(), nodes)
PY
env -u TOPO_SCHED_LIBRARY PYTHONPATH="$purelib" LD_LIBRARY_PATH="$libdir" \
    "$TSCHED_PYTHON" "$dest/place.py" "$(dirname "$init")" "$libdir" ||
    { echo "the installed Python package (PYTHONPATH=$purelib) does not place a job"; exit 1; }
echo "ok: PYTHONPATH=<destdir>/${purelib#"$dest/"} imports topo_sched, which loads the installed library and places a job"
# With neither TOPO_SCHED_LIBRARY nor LD_LIBRARY_PATH, the package falls back on the libdir
# recorded in _paths.py: point a copy of it at the staged libdir (unless the dynamic loader
# would find a system copy first).
if ! { /sbin/ldconfig -p 2>/dev/null || ldconfig -p 2>/dev/null; } | grep -q 'libtopo-sched\.so\.0'; then
    mkdir -p "$dest/pycopy"
    cp -r "$(dirname "$init")" "$dest/pycopy/"
    printf 'LIBDIR = "%s"\n' "$libdir" > "$dest/pycopy/topo_sched/_paths.py"
    env -u TOPO_SCHED_LIBRARY -u LD_LIBRARY_PATH PYTHONPATH="$dest/pycopy" \
        "$TSCHED_PYTHON" "$dest/place.py" "$dest/pycopy/topo_sched" "$libdir" ||
        { echo "topo_sched does not find the library through the libdir of _paths.py"; exit 1; }
    echo "ok: without TOPO_SCHED_LIBRARY or LD_LIBRARY_PATH, topo_sched loads the library from the libdir of _paths.py"
fi
