# Shared by the CLI test scripts (sourced): counters and checks. The sourcing script sets
# $tmp (a scratch directory) and prints "$pass passed, $fail failed" at its end.
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect CODE DESCRIPTION -- command...: run, keep stdout/stderr, check the exit status
expect() {
    want=$1 what=$2
    shift 3
    "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
    got=$?
    if [ "$got" -eq "$want" ]; then ok; else bad "$what: exit $got, expected $want; stderr: $(head -c 300 "$tmp/err")"; fi
}
has() { # has FILE TEXT DESCRIPTION
    if grep -qF -- "$2" "$1"; then ok; else bad "$3: '$2' not in $(basename "$1"): $(head -c 400 "$1")"; fi
}
lines() { # lines FILE N DESCRIPTION
    n=$(wc -l < "$1")
    if [ "$n" -eq "$2" ]; then ok; else bad "$3: $n lines, expected $2"; fi
}
