# tests/cli/t407-lib-recorded.sh: what t4070-t4074 share (sourced after
# lib.sh). Each runs a play with imc and compares its normalised results
# with those ansible-playbook gave for the same play, recorded in the
# test's .expect file; IMC_TEST_RECORD=1 runs ansible-playbook instead and
# rewrites that file (how the expected results were made).
#
#   $run                      the player: imc play --no-fallback (or ansible-playbook)
#   $recording                1 when recording
#   recorded_check GOT EXPECT DESC   compares GOT with EXPECT (or records it)

recording=${IMC_TEST_RECORD:-0}
if [ "$recording" = 1 ]; then
	run="ansible-playbook -i localhost, -c local"
else
	run="$IMC play --no-fallback --connection local"
fi

recorded_check() {
	if [ "$recording" = 1 ]; then
		cp "$1" "$2"
		ok "recorded $2"
	elif cmp -s "$2" "$1"; then
		ok "$3"
	else
		not_ok "$3"
		diff "$2" "$1" | sed 's/^/#   /'
	fi
}
