#!/bin/sh
# t4208: INJECT_FACTS_AS_VARS=false (ANSIBLE_INJECT_FACT_VARS=0) keeps the
# facts a module returns (fact gathering, setup, run_once's shared facts)
# under ansible_facts only, not as ansible_* variables of their own, and
# hostvars shows them so; set_fact's facts stay variables (Ansible's clean
# facts), cacheable ones also under ansible_facts. imc refused the
# setting. Compared live with ansible-playbook, the setting off and on.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cd "$D" || exit 1
cat >f.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: true
  tasks:
    - set_fact: { mine: 1 }
    - set_fact: { cached_one: 2, cacheable: true }
    - debug: msg="{{ ansible_distribution is defined }} {{ ansible_facts.distribution is defined }} {{ ansible_facts.os_family }} {{ mine }} {{ ansible_facts.mine is defined }} {{ cached_one }} {{ ansible_facts.cached_one is defined }} {{ ansible_env is defined }} {{ gather_subset is defined }} {{ hostvars.localhost.ansible_system is defined }}"
    - setup: { gather_subset: ['!all'], filter: ansible_kernel }
      run_once: true
    - debug: msg="{{ ansible_kernel is defined }} {{ ansible_facts.kernel is defined }}"
EOF_PB
for inject in 0 1; do
	ANSIBLE_INJECT_FACT_VARS=$inject ansible-playbook f.yml 2>/dev/null | grep '"msg"' >"$TMPD/ans"
	export ANSIBLE_INJECT_FACT_VARS=$inject
	expect_exit 0 "facts with INJECT_FACTS_AS_VARS=$inject" -- "$IMC" play f.yml --no-fallback
	unset ANSIBLE_INJECT_FACT_VARS
	grep '"msg"' "$TMPD/out" >"$TMPD/imc"
	expect_same_as_ansible "... defined where ansible-playbook defines them" grep -q Debian "$TMPD/ans"
done
done_testing
