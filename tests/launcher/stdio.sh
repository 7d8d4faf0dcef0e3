#!/bin/bash
# stdin goes to rank 0 only; --tag-output; lines are never interleaved.
. "$(dirname "$0")/common.sh"

printf 'line one\nline two\n' | "$RTRUN" $RTRUN_X -n 2 --oversubscribe --tag-output cat >"$OUT" 2>"$ERR"
[ $? = 0 ] || fail "cat with stdin failed"
[ "$(cat "$OUT")" = "$(printf '[0] line one\n[0] line two')" ] || fail "stdin did not reach rank 0 only"

# a lot of input, more than a pipe holds
seq 1 200000 | "$RTRUN" $RTRUN_X -n 1 wc -l >"$OUT" 2>"$ERR"
[ "$(cat "$OUT")" = 200000 ] || fail "stdin lost data: $(cat "$OUT")"

# four ranks writing lines in pieces: every line must come out whole
run 0 -n 4 --oversubscribe --tag-output "$PROBE" chatter 200
total=$(wc -l <"$OUT")
good=$(grep -cE '^\[([0-3])\] rank \1 line [0-9]+ a{20} end$' "$OUT")
[ "$total" = 804 ] || fail "expected 804 lines, got $total"
[ "$good" = 800 ] || fail "only $good of 800 lines came out whole"
for r in 0 1 2 3; do
    expect_out "^\[$r\] partial-$r\$"
done

# stderr is forwarded too, tagged
run 0 -n 2 --oversubscribe --tag-output sh -c 'echo "to stderr" >&2'
expect_err "^\[1\] to stderr\$"

# one rank, untagged: output byte for byte
"$RTRUN" $RTRUN_X -n 1 printf 'abc' >"$OUT" 2>"$ERR" </dev/null
[ "$(od -An -c "$OUT" | tr -d ' \n')" = abc ] || fail "single rank output changed"
expect_no_orphans
finish
