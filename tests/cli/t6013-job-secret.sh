#!/bin/sh
# t6013: imc create makes the job secret imc-train's tasks authenticate
# with: HOME/infra/ID/job.secret, 0600, 64 hex digits, one per
# infrastructure; its content is nowhere else under IMC_HOME (the store,
# the logs) and in nothing imc prints.
. "$top_srcdir/tests/cli/lib.sh"
R="$top_srcdir/tests/cli/data"

expect_exit 0 "create on the dummy cloud" -- "$IMC" create "$R/t2-cluster.radl"
id=$(head -1 "$TMPD/out")
f="$IMC_HOME/infra/$id/job.secret"
[ -f "$f" ] && ok "the infrastructure has a job secret" || not_ok "no $f"
[ "$(stat -c %a "$f")" = 600 ] && ok "mode 0600" || not_ok "mode $(stat -c %a "$f")"
grep -qE '^[0-9a-f]{64}$' "$f" && ok "64 hex digits" || not_ok "content shape"
secret=$(cat "$f")
cp "$TMPD/out" "$TMPD/create.out"
expect_exit 0 "a second infrastructure" -- "$IMC" create "$R/t2-cluster.radl"
id2=$(head -1 "$TMPD/out")
[ "$(cat "$IMC_HOME/infra/$id2/job.secret")" != "$secret" ] && ok "each infrastructure has its own" ||
	not_ok "the same secret twice"
expect_exit 0 "getinfo" -- "$IMC" getinfo "$id"
cat "$TMPD/out" >>"$TMPD/create.out"
if grep -rlF -- "$secret" "$IMC_HOME" | grep -v "/infra/$id/job.secret\$" >"$TMPD/where"; then
	not_ok "the secret is also in: $(cat "$TMPD/where")"
else
	ok "the secret is in no other file under IMC_HOME (store, logs)"
fi
if grep -qF -- "$secret" "$TMPD/create.out" "$TMPD/err"; then
	not_ok "imc printed the secret"
else
	ok "imc prints no secret"
fi
done_testing
