#!/bin/sh
# t4004: imc play --target on the VMs of an infrastructure of the local
# cloud: the play reaches the VM over SSH with the infrastructure's key and
# the host key pinned at creation; an unknown infrastructure is refused.
. "$top_srcdir/tests/cli/lib.sh"
require_netns
cat >"$TMPD/tiny.radl" <<'EOR'
network net ()
system node (
  cpu.count >= 1 and
  memory.size >= 256m and
  net_interface.0.connection = 'net' and
  disk.0.os.name = 'linux'
)
configure node (
@begin
- tasks:
  - name: hello
    shell: echo configured
@end
)
deploy node 1
EOR
cat >"$TMPD/play.yml" <<'EOY'
- hosts: node
  gather_facts: false
  tasks:
    - command: echo "num={{ IM_NODE_NUM }}"
      register: r
    - assert:
        that: r.stdout == 'num=0'
EOY
# the local cloud works on every supported machine: a failed create fails
ID=""
at_exit '[ -z "$ID" ] || "$IMC" destroy "$ID" >/dev/null 2>&1'
expect_exit 0 "create a one-VM infrastructure on the local cloud" -- "$IMC" create "$TMPD/tiny.radl"
ID=$(head -1 "$TMPD/out")
[ -n "$ID" ] && ok "create printed the id" || { not_ok "create printed no id"; exit 1; }
expect_exit 0 "its configure ran with imc's executor" -- "$IMC" getcontmsg "$ID"
expect_grep 'TASK \[hello\]' "$TMPD/out" "... its task is in the log"
expect_no_grep 'runs under ansible-playbook' "$TMPD/out" "... not under ansible-playbook"
expect_exit 0 "play --target on the infrastructure's VM" -- "$IMC" play --no-fallback --target "$ID:0" "$TMPD/play.yml"
expect_grep '^TASK \[command\]' "$TMPD/out" "the task ran"
expect_grep ': ok=2 +changed=1 +unreachable=0 +failed=0' "$TMPD/out" "recap"
expect_exit 66 "an unknown infrastructure" -- "$IMC" play --no-fallback --target 00000000-0000-4000-8000-000000000000 "$TMPD/play.yml"
expect_exit 64 "--target with -H is a usage error" -- "$IMC" play --target "$ID" -H a=b@c "$TMPD/play.yml"
expect_exit 64 "--target with -c local is a usage error" -- "$IMC" play --target "$ID" -c local "$TMPD/play.yml"
expect_exit 66 "--target naming a VM the infrastructure lacks" -- "$IMC" play --no-fallback --target "$ID:0,7" "$TMPD/play.yml"
expect_grep "has no VM 7" "$TMPD/err" "... names the missing VM"
expect_exit 64 "--target with a VM that is not a number" -- "$IMC" play --no-fallback --target "$ID:x" "$TMPD/play.yml"
done_testing
