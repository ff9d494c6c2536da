#!/bin/sh
# examples/python and examples/go run as shipped, with the commands README.md gives (the test
# first checks that README.md holds them word for word), with no hand-set TOPO_SCHED_LIBRARY,
# PYTHONPATH, PKG_CONFIG_PATH or LD_LIBRARY_PATH:
#  1. from the build tree, through `meson devenv` (README's "build" replaced by BUILD_DIR);
#  2. after `meson install`: the build is installed into a scratch DESTDIR, and the Python
#     package's directory (less the DESTDIR) must be one the interpreter it was installed
#     for searches (site.getsitepackages()) under the build's prefix. Then, where the machine
#     allows a private mount namespace (root, or CAP_SYS_ADMIN: `unshare -m`), the staged
#     tree is laid over the real prefix with a read-only overlay, so the installed files are
#     where `meson install` puts them and nothing else changes, and the example runs from
#     there: Python with the installed package finding the installed library by itself, Go
#     (for /usr and /usr/local) after an `ldconfig` whose cache is bound over
#     /etc/ld.so.cache in that namespace only. Without such a namespace that part is reported
#     as not run.
# Go's caches go into the build directory and GOPROXY=off: the example needs no network.
# usage: test_examples.sh BUILD_DIR SOURCE_DIR PYTHON GO   (PYTHON / GO: '' when absent)
set -eu
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) py=${3:-} go=${4:-}
[ -n "$py" ] || [ -n "$go" ] || { echo "SKIP: neither the Python binding nor go is available"; exit 77; }
readme=$src/README.md
cmd_py_tree='meson devenv -C build -w . python3 examples/python/place_and_route.py'
cmd_go_tree='meson devenv -C build -w examples/go go run .'
cmd_py_inst='python3 examples/python/place_and_route.py'
cmd_go_inst='cd examples/go && go run .'
for c in "$cmd_py_tree" "$cmd_go_tree" "$cmd_py_inst" "$cmd_go_inst"; do
    grep -qxF -- "$c" "$readme" || { echo "README.md has no line '$c' (keep this test and the README in step)"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tsched-examples.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export GOPROXY=off GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=1
export GOCACHE="$build/bindings/go/gocache" GOPATH="$build/bindings/go/gopath"
unset TOPO_SCHED_LIBRARY PYTHONPATH PKG_CONFIG_PATH LD_LIBRARY_PATH

# The examples' last line: the GPUs their placed jobs took, and both print a waiting job.
check_out() { # FILE WHAT
    if ! grep -q '^too-big  waits: ' "$1" || ! grep -q '^free GPUs: 2048 -> 448$' "$1"; then
        echo "$2: unexpected output:"; cat "$1"; exit 1
    fi
}

# ---- 1. the build tree ---------------------------------------------------------------------
run_tree() { # COMMAND OUTPUT: README's "meson devenv -C build ARGS..." with this build directory
    args=${1#meson devenv -C build }
    # shellcheck disable=SC2086 # the README's words, split as a shell splits them
    meson devenv -C "$build" $args > "$2" 2>&1
}
cd "$src"
for which in py go; do
    if [ "$which" = py ]; then tool=$py cmd=$cmd_py_tree; else tool=$go cmd=$cmd_go_tree; fi
    [ -n "$tool" ] || continue
    if [ "$which" = go ]; then
        # A module path `go get` can resolve (a host name first), the one the example requires.
        mod=$(cd bindings/go && "$go" list -m)
        case ${mod%%/*} in *.*) ;; *) echo "bindings/go: module path '$mod' cannot be fetched (no host name)"; exit 1 ;; esac
        grep -qF "replace $mod => ../../bindings/go" examples/go/go.mod ||
            { echo "examples/go/go.mod does not replace $mod with this tree"; exit 1; }
    fi
    run_tree "$cmd" "$tmp/$which-tree.out" ||
        { echo "from the build tree, '$cmd' fails:"; cat "$tmp/$which-tree.out"; exit 1; }
    check_out "$tmp/$which-tree.out" "$cmd"
    echo "ok: $cmd"
done

# ---- 2. after meson install ------------------------------------------------------------
dest=$tmp/dest
meson install -C "$build" --no-rebuild --quiet --destdir "$dest" > "$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; exit 1; }
pc=$(find "$dest" -name topo-sched.pc | head -n 1)
prefix=$(sed -n 's/^prefix=//p' "$pc")
libdir=$(sed -n 's/^libdir=//p' "$pc" | sed "s#\${prefix}#$prefix#")
searched=no site=
if [ -n "$py" ]; then
    init=$(find "$dest" -path '*/topo_sched/__init__.py' | head -n 1)
    [ -n "$init" ] || { echo "meson install did not install topo_sched"; exit 1; }
    [ -f "$(dirname "$init")/py.typed" ] || { echo "meson install did not install topo_sched/py.typed"; exit 1; }
    site=$(dirname "$(dirname "$init")")
    site=${site#"$dest"}
    if "$py" -c 'import site, sys; sys.exit(0 if sys.argv[1] in site.getsitepackages() + [site.getusersitepackages()] else 1)' "$site"; then
        searched=yes
        echo "ok: topo_sched installed into $site, which $py searches"
    else
        case $prefix in
        /usr | /usr/local) echo "topo_sched installed into $site, which $py does not search ($("$py" -c 'import site; print(site.getsitepackages())'))"; exit 1 ;;
        *) echo "note: prefix $prefix is private: $py needs PYTHONPATH=$site (README, doc/bindings.md)" ;;
        esac
    fi
fi
if [ ! -d "$prefix" ] || ! unshare -m true 2> /dev/null; then
    echo "not run: the examples from the installed files (needs an existing prefix $prefix and 'unshare -m')"
    exit 0
fi
cat > "$tmp/installed.sh" <<'EOF'
set -eu
dest=$1 prefix=$2 libdir=$3 src=$4 tmp=$5 py=$6 go=$7 searched=$8 cmd_go=$9 site=${10}
mount -t overlay tsched-examples -o "lowerdir=$dest$prefix:$prefix" "$prefix" 2> "$tmp/mount.err" ||
    { echo "not run: the examples from the installed files (no overlay mount: $(cat "$tmp/mount.err"))"; exit 0; }
cd "$src"
if [ -n "$py" ]; then
    [ "$searched" = yes ] || export PYTHONPATH="$site"  # a private prefix: as README says
    "$py" examples/python/place_and_route.py > "$tmp/py-inst.out" 2>&1 ||
        { echo "after meson install, '$py examples/python/place_and_route.py' fails:"; cat "$tmp/py-inst.out"; exit 1; }
    if ! grep -q '^too-big  waits: ' "$tmp/py-inst.out" || ! grep -q '^free GPUs: 2048 -> 448$' "$tmp/py-inst.out"; then
        echo "after meson install, unexpected output:"; cat "$tmp/py-inst.out"; exit 1
    fi
    # what it imported and loaded: the installed package and library, nothing from the tree
    "$py" -c '
import sys, topo_sched
lib = [l.split()[-1] for l in open("/proc/self/maps") if "libtopo-sched.so" in l]
assert topo_sched.__file__.startswith(sys.argv[1] + "/"), topo_sched.__file__
assert lib and all(l.startswith(sys.argv[2] + "/") for l in lib), lib
print("ok: after meson install,", sys.argv[3], "examples/python/place_and_route.py runs:", topo_sched.__file__, lib[0])
' "$prefix" "$libdir" "$py"
fi
if [ -n "$go" ]; then
    case $prefix in
    /usr | /usr/local)
        ldconfig -X -C "$tmp/ld.so.cache"  # -X: the overlay is read-only; install made the links
        mount --bind "$tmp/ld.so.cache" /etc/ld.so.cache
        (cd examples/go && "$go" run .) > "$tmp/go-inst.out" 2>&1 ||
            { echo "after meson install and ldconfig, '$cmd_go' fails:"; cat "$tmp/go-inst.out"; exit 1; }
        grep -q '^free GPUs: 2048 -> 448$' "$tmp/go-inst.out" ||
            { echo "after meson install, unexpected output:"; cat "$tmp/go-inst.out"; exit 1; }
        echo "ok: after meson install and ldconfig, $cmd_go runs" ;;
    *) echo "not run: go after install into private prefix $prefix (README: PKG_CONFIG_PATH, LD_LIBRARY_PATH)" ;;
    esac
fi
EOF
unshare -m sh "$tmp/installed.sh" "$dest" "$prefix" "$libdir" "$src" "$tmp" "$py" "$go" "$searched" "$cmd_go_inst" "$site"
