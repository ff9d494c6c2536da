#!/bin/sh
# The C snippets of README.md, run as the README says they are meant to be: every ```c
# block, in order, concatenated into one main() (their #include lines hoisted above it),
# compiled as C11 with -Wall -Wextra -Werror against the just-built headers and library,
# run, and checked: exit status 0, no leak (LeakSanitizer when the compiler has it), and an
# output line matching PATTERN (an extended regex showing real work, e.g. flows routed).
# Compile errors point at README.md's own lines (#line).
# usage: check_readme_c.sh README BUILD_DIR SOURCE_DIR PATTERN CC [CC_ARGS...]
set -eu
readme=$1 build=$2 src=$3 pattern=$4
shift 4
[ "$#" -ge 1 ] || { echo "usage: $0 README BUILD_DIR SOURCE_DIR PATTERN CC [CC_ARGS...]"; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tsched-readme.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Blocks open with a line that is exactly ```c and close with the next ``` line.
awk -v inc="$work/includes.c" -v body="$work/body.c" -v file="$readme" '
    /^```c[[:space:]]*$/ { if (inb) { print "nested ```c at line " NR > "/dev/stderr"; exit 3 }
                           inb = 1; n++; printf "#line %d \"%s\"\n", NR + 1, file > body; next }
    /^```/ && inb        { inb = 0; next }
    inb && /^[[:space:]]*#[[:space:]]*include[[:space:]]/ {
                           printf "#line %d \"%s\"\n%s\n", NR, file, $0 > inc; print "" > body; next }
    inb                  { print > body }
    END { if (inb) { print "unterminated ```c block" > "/dev/stderr"; exit 3 }
          print n > "/dev/stderr" }' "$readme" 2> "$work/count" || { cat "$work/count"; exit 1; }
blocks=$(cat "$work/count")
[ "$blocks" -gt 0 ] || { echo "no \`\`\`c block in $readme"; exit 1; }
touch "$work/includes.c"
{
    cat "$work/includes.c"
    echo '#line 1 "readme-main.c"'
    echo 'int main(void)'
    echo '{'
    cat "$work/body.c"
    echo '#line 3 "readme-main.c"'
    echo '    return 0;'
    echo '}'
} > "$work/readme.c"

lib=$build/src/libtopo-sched.so
[ -e "$lib" ] || { echo "no $lib: build the library first"; exit 1; }
# A sanitized library (-Db_sanitize or -Dfuzz) needs the program built the same way.
san=
undef=$(nm -D --undefined-only "$lib" 2>/dev/null || true)
case $undef in *__asan_*) san="$san -fsanitize=address" ;; esac
case $undef in *__ubsan_*) san="$san -fsanitize=undefined" ;; esac
# Otherwise use AddressSanitizer's leak checker if this compiler and machine have it.
if [ -z "$san" ]; then
    printf 'int main(void) { return 0; }\n' > "$work/probe.c"
    if "$@" -fsanitize=address -o "$work/probe" "$work/probe.c" > /dev/null 2>&1 &&
        ASAN_OPTIONS=detect_leaks=1 "$work/probe" > /dev/null 2>&1; then
        san=-fsanitize=address
    else
        echo "note: no AddressSanitizer here: leaks are not checked"
    fi
fi
incs="-I$src/include"
[ -d "$build/include" ] && incs="$incs -I$build/include -I$build/include/topo-sched"
# shellcheck disable=SC2086 # word splitting of the flag lists is intended
if ! "$@" -std=c11 -Wall -Wextra -Werror $san $incs -o "$work/readme" "$work/readme.c" \
        -L"$build/src" -ltopo-sched -Wl,-rpath,"$build/src" > "$work/cc.log" 2>&1; then
    echo "README.md's $blocks C blocks do not compile as one program:"
    cat "$work/cc.log"
    echo "--- the program:"
    cat -n "$work/readme.c"
    exit 1
fi
status=0
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    timeout 300 "$work/readme" > "$work/out" 2> "$work/err" || status=$?
cat "$work/out"
if [ "$status" -ne 0 ]; then
    echo "README.md's C blocks exit with status $status; standard error:"
    cat "$work/err"
    exit 1
fi
if [ -s "$work/err" ]; then
    echo "README.md's C blocks write to standard error:"
    cat "$work/err"
    exit 1
fi
grep -Eq -- "$pattern" "$work/out" || { echo "README.md's C blocks printed no line matching: $pattern"; exit 1; }
echo "ok: README.md's $blocks C blocks compile, run, free what they allocate and print /$pattern/"
