#!/bin/sh
# Help on every command: `CMD --help`, `CMD -h` (also after other arguments) and `help CMD`
# exit 0, print the same text on standard output starting with `usage: topo-sched CMD`, and
# nothing on standard error; every option line states its default (or that it is required).
# Then every option literal a parser in src/cli/cmd_*.c accepts ("--xxx", "-x") must appear in
# the help text of its command and in that command's subsection of doc/topo-sched.1. The
# options come from the sources, so this checks whatever commands exist when it runs.
# usage: test_help.sh PATH/TO/topo-sched SOURCE_DIR
set -eu
ts=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Failures are counted in a file: most checks run in pipelines (subshells).
: > "$tmp/fails"
bad() { echo "FAIL: $*"; echo x >> "$tmp/fails"; }

# Every command, as typed (the contract's list: design of the command line).
commands='demo
topology
topology show
topology import-slurm
topology import-slurm-yaml
topology import-slurm-live
topology import-k8s-nodes
topology export
place
flows
route
prioritize
kcut
simulate
trace
trace convert-alibaba
trace convert-dcn
trace poisson
vclos
cells
crius-schedule
draw
serve
help'

key() { echo "$1" | tr ' ' '_'; }

# run NAME ARGS...: stdout to $tmp/o, stderr to $tmp/e; checks exit 0 and an empty stderr.
run() {
    what=$1
    shift
    rc=0
    "$ts" "$@" < /dev/null > "$tmp/o" 2> "$tmp/e" || rc=$?
    [ "$rc" -eq 0 ] || bad "$what: exit $rc (expected 0)"
    [ ! -s "$tmp/e" ] || bad "$what: standard error not empty: $(head -n 2 "$tmp/e")"
}

# ---- global help ----
for form in --help -h help; do
    run "topo-sched $form" $form
    head -n 1 "$tmp/o" | grep -q '^usage: topo-sched ' || bad "topo-sched $form: no usage line"
done
cp "$tmp/o" "$tmp/all"
# every command is listed, and nothing else
echo "$commands" | while IFS= read -r c; do
    grep -Eq "^  $c( |\$)" "$tmp/all" || bad "topo-sched --help does not list '$c'"
done
sed -n '/^commands/,/^$/p' "$tmp/all" | sed -n 's/^  \([a-z]\)/\1/p' | sed 's/  .*//; s/ \[.*//' |
    while IFS= read -r c; do
        echo "$commands" | grep -qxF "$c" || bad "topo-sched --help lists '$c', unknown to this test"
    done

# ---- per command ----
mkdir "$tmp/help"
echo "$commands" | while IFS= read -r c; do
    k=$(key "$c")
    # shellcheck disable=SC2086 # the command's words
    run "$c --help" $c --help
    cp "$tmp/o" "$tmp/help/$k"
    # shellcheck disable=SC2086
    run "$c -h" $c -h
    cmp -s "$tmp/o" "$tmp/help/$k" || bad "$c -h differs from $c --help"
    # shellcheck disable=SC2086
    run "help $c" help $c
    cmp -s "$tmp/o" "$tmp/help/$k" || bad "help $c differs from $c --help"
    # -h after other arguments, even ones the command would refuse
    # shellcheck disable=SC2086
    if [ "$c" != help ]; then
        # shellcheck disable=SC2086
        run "$c -t nowhere.json --bogus -h" $c -t nowhere.json --bogus -h
        cmp -s "$tmp/o" "$tmp/help/$k" || bad "$c ... -h differs from $c --help"
    fi
    first=$(head -n 1 "$tmp/help/$k")
    case $first in
    "usage: topo-sched $c" | "usage: topo-sched $c "*) ;;
    *) bad "$c --help: first line is '$first'" ;;
    esac
    grep -q '^exit status: ' "$tmp/help/$k" || bad "$c --help: no exit status"
    # one line per option with its default
    grep -E '^  -' "$tmp/help/$k" | grep -Ev 'default|required' | while IFS= read -r l; do
        bad "$c --help: option line without a default: $l"
    done
done
rc=0
"$ts" help no-such-command > "$tmp/o" 2> "$tmp/e" || rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$tmp/o" ] && [ "$(wc -l < "$tmp/e")" -eq 1 ] || bad "help no-such-command: exit $rc, expected 2 and one line"
rc=0
"$ts" topology no-such-sub --help > "$tmp/o" 2> "$tmp/e" || rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$tmp/o" ] || bad "topology no-such-sub --help: exit $rc, expected 2"

# ---- the man page's subsections, one file per command (roff escapes undone) ----
man=$src/doc/topo-sched.1
mkdir "$tmp/man"
sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\f(CW//g; s/\\(em/--/g; s/\\&//g; s/\\://g' "$man" > "$tmp/man/all"
awk -v dir="$tmp/man" '
    /^\.S[HS] / { name = $0; sub(/^\.S[HS] +/, "", name); gsub(/"/, "", name); gsub(/ /, "_", name); out = dir "/sec_" name; next }
    out != "" { print > out }
' "$tmp/man/all"
echo "$commands" | while IFS= read -r c; do
    [ -f "$tmp/man/sec_$(key "$c")" ] || bad "doc/topo-sched.1 has no subsection .SS \"$c\""
done

# ---- option literals of the parsers, with the command(s) each belongs to ----
# A function whose strings start with "CMD:" (its usage errors) belongs to CMD; any other
# function (a helper shared by several commands) to the commands of its file, of which at
# least one must document the option.
cmdlist=$(echo "$commands" | tr '\n' '|')
file_commands() {
    case $(basename "$1") in
    main.c) echo "" ;;
    cmd_topology.c | cmd_import*.c | cmd_export*.c | cmd_slurm*.c | cmd_k8s*.c)
        echo "$commands" | grep '^topology' ;;
    cmd_trace.c) echo "$commands" | grep '^trace' ;;
    cmd_route.c) printf 'flows\nroute\n' ;;
    cmd_priority.c) printf 'prioritize\nkcut\n' ;;
    cmd_crius.c) echo crius-schedule ;;
    cmd_cells.c) printf 'cells\ncrius-schedule\n' ;;
    *)
        b=$(basename "$1" .c)
        b=${b#cmd_}
        if echo "$commands" | grep -qxF "$b"; then echo "$b"; else echo "$commands"; fi ;;
    esac
}
doc_has() { # FILE OPTION: the option as a whole word
    grep -Eq -e "(^|[^A-Za-z0-9_-])$2([^A-Za-z0-9_-]|\$)" "$1"
}
checked=0
for f in "$src"/src/cli/cmd_*.c "$src"/src/cli/main.c; do
    awk -v cmds="$cmdlist" '
        BEGIN { n = split(cmds, cl, "|"); fn = 0 }
        /^\{/ { fn++ }
        {   # C string literals of the line (char literals and escapes skipped)
            nl = length($0); q = 0; lit = ""
            for (p = 1; p <= nl; p++) {
                ch = substr($0, p, 1)
                if (q == 0 && ch == "\047") { p += (substr($0, p + 1, 1) == "\\") ? 3 : 2; continue }
                if (q == 0 && ch == "\"") { q = 1; lit = ""; continue }
                if (q == 0) continue
                if (ch == "\\") { lit = lit substr($0, p, 2); p++; continue }
                if (ch != "\"") { lit = lit ch; continue }
                q = 0
                if (lit ~ /^--?[A-Za-z][A-Za-z0-9-]*$/) print fn "\topt\t" lit
                best = ""
                for (i = 1; i <= n; i++)
                    if (cl[i] != "" && index(lit, cl[i] ":") == 1 && length(cl[i]) > length(best)) best = cl[i]
                if (best != "") print fn "\tcmd\t" best
            }
        }
        /^\}/ { fn++ }
    ' "$f" | sort -u > "$tmp/lits"
    for fn in $(cut -f1 "$tmp/lits" | sort -un); do
        grep "^$fn	opt	" "$tmp/lits" | cut -f3 > "$tmp/opts" || true
        [ -s "$tmp/opts" ] || continue
        grep "^$fn	cmd	" "$tmp/lits" | cut -f3 > "$tmp/cands" || true
        [ -s "$tmp/cands" ] || file_commands "$f" > "$tmp/cands"
        while IFS= read -r o; do
            checked=$((checked + 1))
            inhelp= inman=
            while IFS= read -r c; do
                if [ -z "$c" ]; then hf=$tmp/all mf=$tmp/man/all; else
                    hf=$tmp/help/$(key "$c") mf=$tmp/man/sec_$(key "$c")
                    # shellcheck disable=SC2086
                    [ -f "$hf" ] || "$ts" $c --help < /dev/null > "$hf" 2> /dev/null || true
                    [ -f "$mf" ] || mf=$tmp/man/all
                fi
                doc_has "$hf" "$o" && inhelp="$inhelp $c"
                doc_has "$mf" "$o" && inman="$inman $c"
            done < "$tmp/cands"
            where=$(tr '\n' ',' < "$tmp/cands" | sed 's/,$//')
            [ -n "$inhelp" ] || bad "$(basename "$f"): option $o is not in the help of: ${where:-topo-sched}"
            [ -n "$inman" ] || bad "$(basename "$f"): option $o is not in doc/topo-sched.1 under: ${where:-topo-sched}"
        done < "$tmp/opts"
    done
done
[ "$checked" -ge 100 ] || bad "only $checked option literals found in src/cli/cmd_*.c (expected >= 100)"

[ ! -s "$tmp/fails" ] || { echo "$(wc -l < "$tmp/fails") failure(s)"; exit 1; }
echo "ok: help of $(echo "$commands" | wc -l) commands; $checked option literals in help and man page"
