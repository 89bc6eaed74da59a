#!/bin/sh
# t2004: bad auth files, bad RADL and JSON inputs give clear errors naming
# the line, with the documented exit codes; a secret planted in the auth
# file appears in no output, log or store file.
. "$top_srcdir/tests/cli/lib.sh"
R="$top_srcdir/tests/cli/data"
SECRET='Pl4nted-S3cret=='
TOKEN='tok-9f8e7d6c5b4a'

# --- auth files ---
printf '# comment\nid = d; type = dummy\nid = x; type = EC2; password = "unterminated\n' >"$TMPD/a1"
expect_exit 65 "unterminated quote in an auth file" -- "$IMC" -a "$TMPD/a1" plan "$R/t2-cluster.radl"
expect_grep "a1:3:[0-9:]* error: unterminated double quote" "$TMPD/err" "the error names line 3"
printf 'id = d; type = dummy\n\nid = e; type = dummy; %s\n' "$TOKEN" >"$TMPD/a2"
expect_exit 65 "auth item without '='" -- "$IMC" -a "$TMPD/a2" plan "$R/t2-cluster.radl"
expect_grep "a2:3:[0-9:]* error: auth item 3 has no '='" "$TMPD/err" "the error names line 3 and the item"
expect_no_grep "$TOKEN" "$TMPD/err" "the bad item's text is not echoed"
printf 'id = 9bad; type = dummy\n' >"$TMPD/a3"
expect_exit 65 "bad id" -- "$IMC" -a "$TMPD/a3" plan "$R/t2-cluster.radl"
expect_grep "a3:1:[0-9:]* error: incorrect value in auth item id" "$TMPD/err" "bad id is named"
printf 'username = u; password = p\n' >"$TMPD/a4"
expect_exit 65 "credential without type" -- "$IMC" -a "$TMPD/a4" plan "$R/t2-cluster.radl"
expect_grep "a4:1:[0-9:]* error: credential has no 'type'" "$TMPD/err" "missing type is named"
printf '[\n  {"id": "d", "type": "dummy"},\n  {"id": "e", "type": "dummy", "password": %s}\n]\n' "$SECRET" >"$TMPD/a5.json"
expect_exit 65 "invalid JSON auth file" -- "$IMC" -a "$TMPD/a5.json" plan "$R/t2-cluster.radl"
expect_grep "a5.json:3:[0-9:]* error: invalid JSON auth file" "$TMPD/err" "JSON error names line 3"
expect_no_grep "$SECRET" "$TMPD/err" "JSON error does not quote the secret"
printf '[{"id": "d", "type": "dummy", "port": [1]}]\n' >"$TMPD/a6.json"
expect_exit 65 "non-string JSON value" -- "$IMC" -a "$TMPD/a6.json" plan "$R/t2-cluster.radl"
expect_exit 66 "missing auth file" -- "$IMC" -a "$TMPD/nonexistent" plan "$R/t2-cluster.radl"

# --- RADL and other inputs ---
printf 'system front (\n  cpu.count >= 1 and\n  memory.size >= \n)\ndeploy front 1\n' >"$TMPD/bad.radl"
expect_exit 65 "RADL syntax error" -- "$IMC" create "$TMPD/bad.radl"
expect_grep 'bad.radl:[0-9]+:[0-9]+: error' "$TMPD/err" "RADL error has file:line:col"
printf '[\n {"class": "system", "id": "s"},\n {"class": "deploy", "system": "s", "vm_number": }\n]\n' >"$TMPD/bad.json"
expect_exit 65 "RADL-JSON error" -- "$IMC" plan "$TMPD/bad.json"
expect_grep 'bad.json:3' "$TMPD/err" "RADL-JSON error names line 3"
printf "system s (\n  disk.0.image.url = 'dummy://' and\n  disk.0.os.credentials.username = '@input.user@'\n)\ndeploy s 1\n" >"$TMPD/input.radl"
expect_exit 65 "missing @input value without a terminal" -- "$IMC" create "$TMPD/input.radl" </dev/null
expect_grep "input.radl:3:37: error: no value for '@input.user@'" "$TMPD/err" "missing input names its place"
expect_exit 0 "@input from -e" -- "$IMC" plan -e user=alice --json "$TMPD/input.radl"
expect_grep '"user": "alice"' "$TMPD/out" "the input is substituted"
expect_exit 64 "-e without '='" -- "$IMC" plan -e novalue "$TMPD/input.radl"
expect_exit 66 "missing RADL file" -- "$IMC" create "$TMPD/nonexistent.radl"
expect_exit 64 "create without a file" -- "$IMC" create
expect_exit 64 "unknown option" -- "$IMC" getstate --bogus x
expect_exit 64 "--cloud naming nothing" -- "$IMC" plan --cloud nowhere "$R/t2-cluster.radl"
printf "system s ( disk.0.image.url = 'one://host/1' )\ndeploy s 1\n" >"$TMPD/one.radl"
expect_exit 69 "a cloud imc does not have" -- "$IMC" create "$TMPD/one.radl"
expect_grep "cloud 'opennebula'" "$TMPD/err" "the cloud is named"
expect_exit 64 "not an id" -- "$IMC" getstate 'zz;drop'
expect_exit 66 "unknown id" -- "$IMC" getstate abcdef12
printf '{"format": 1, "kind": "something-else"}\n' >"$TMPD/imp.json"
expect_exit 65 "import of a foreign document" -- "$IMC" import "$TMPD/imp.json"

# --- a planted secret never shows ---
printf 'id = d; type = dummy; password = %s; token = %s; private_key = "-----BEGIN KEY-----\\nAAAA%s\\n-----END KEY-----"\n' \
	"$SECRET" "$TOKEN" "$TOKEN" >"$TMPD/auth.dat"
chmod 600 "$TMPD/auth.dat"
expect_exit 0 "create with a secret in the auth file" -- "$IMC" -a "$TMPD/auth.dat" -vv create --cloud d "$R/t2-cluster.radl"
cat "$TMPD/out" "$TMPD/err" >"$TMPD/all"
ID=$(head -1 "$TMPD/out")
for c in "getstate $ID" "getinfo $ID" "getvminfo $ID 0" "getcontmsg $ID" "getradl $ID" "export $ID" "list" \
	 "getstate --json $ID" "getinfo --json $ID" "plan --json $R/t2-cluster.radl"; do
	# shellcheck disable=SC2086
	"$IMC" -a "$TMPD/auth.dat" -vv $c >>"$TMPD/all" 2>&1
done
printf 'id = d; type = dummy; password = %s\nid = e; type = dummy; password = "bad\n' "$SECRET" >"$TMPD/auth-bad.dat"
"$IMC" -a "$TMPD/auth-bad.dat" plan "$R/t2-cluster.radl" >>"$TMPD/all" 2>&1
IMC_DUMMY_FAIL=fail-destroy "$IMC" -a "$TMPD/auth.dat" -vv destroy "$ID" >>"$TMPD/all" 2>&1
# a password written in the RADL itself is a secret too
RPW='RadlPassw0rd-x9'
sed "s|disk.0.image.url = 'dummy://ok'|disk.0.image.url = 'dummy://ok' and disk.0.os.credentials.password = '$RPW'|" "$R/t2-cluster.radl" >"$TMPD/pw.radl"
"$IMC" create "$TMPD/pw.radl" >>"$TMPD/all" 2>&1
for id in $("$IMC" list | sed -n 's/^  //p'); do
	for c in getradl getinfo export "getradl --json" "getvminfo --json"; do
		# shellcheck disable=SC2086
		"$IMC" $c "$id" $( [ "$c" = "getvminfo --json" ] && echo 0 ) >>"$TMPD/all" 2>&1
	done
done
grep -q "disk.0.os.credentials.password = '\*\*\*'" "$TMPD/all" && ok "getradl shows the RADL password masked" || not_ok "getradl shows the RADL password masked"
expect_no_grep "$SECRET|$TOKEN|$RPW" "$TMPD/all" "no secret in any output or error"
cat "$IMC_HOME"/infra/*/worker.log >"$TMPD/logs" 2>/dev/null
expect_no_grep "$SECRET|$TOKEN" "$TMPD/logs" "no secret in the worker logs"
if grep -rqaE -- "$SECRET|$TOKEN" "$IMC_HOME"; then not_ok "no secret anywhere in \$IMC_HOME"; else ok "no secret anywhere in \$IMC_HOME"; fi
mode=$(stat -c %a "$IMC_HOME"); [ "$mode" = 700 ] && ok "\$IMC_HOME is 0700" || not_ok "\$IMC_HOME is $mode"
mode=$(stat -c %a "$IMC_HOME/imc.db"); [ "$mode" = 600 ] && ok "imc.db is 0600" || not_ok "imc.db is $mode"
mode=$(stat -c %a "$IMC_HOME/infra/$ID/id_ed25519"); [ "$mode" = 600 ] && ok "private key is 0600" || not_ok "private key is $mode"
expect_exit 69 "destroy when the cloud fails" -- env IMC_DUMMY_FAIL=fail-destroy "$IMC" -a "$TMPD/auth.dat" destroy "$ID"
expect_grep "not destroyed" "$TMPD/err" "destroy says what was left"
expect_exit 0 "destroy --force when the cloud fails" -- env IMC_DUMMY_FAIL=fail-destroy "$IMC" -a "$TMPD/auth.dat" destroy --force "$ID"
expect_grep "warning: forgetting VM" "$TMPD/err" "--force warns about what it forgets"
done_testing
