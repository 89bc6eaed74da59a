#!/bin/sh
# t4203: gather_subset picks the facts as ansible-core 2.14 does (before:
# imc gathered the same facts whatever it said, and refused the setting
# DEFAULT_GATHER_SUBSET). The implicit gathering takes the play keyword
# (a string is one subset), else the setting, else setup's default
# ['all']; an explicit setup task only its own argument (a string split
# on commas). From the minimal set, 'all' adds every subset, '!x'
# excludes x and its fact ids, '!all' all but the minimal set, '!min'
# the minimal set, a subset named explicitly wins, a required collector
# comes along (hardware brings platform); an unknown subset fails with
# Ansible's message, the gathering's wrapped as its gather_facts action
# does. The facts gather_subset and module_setup come too, and filter
# keeps the facts it matches. Each host has its own fact cache, so each
# play gathers on a host of its own. Compared live with ansible-playbook.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cd "$D" || exit 1
{
	echo '[all]'
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "h$i"; done
	echo '[all:vars]'
	echo 'ansible_connection=local'
	echo 'ansible_python_interpreter=/usr/bin/python3'
} >inv
# the facts imc gathers that Ansible gathers too, by their ansible_facts
# names, one or more of each collector
cat >known.yml <<'EOF_PB'
known: [distribution, os_family, distribution_version, distribution_major_version,
        distribution_release, hostname, nodename, fqdn, architecture, machine, kernel,
        system, python_version, python, user_id, user_uid, user_dir, memtotal_mb,
        memfree_mb, processor_vcpus, processor_cores, devices, pkg_mgr, service_mgr,
        default_ipv4, all_ipv4_addresses, env, fips, apparmor, gather_subset, module_setup]
EOF_PB
cat >show.yml <<'EOF_PB'
- debug:
    msg: "{{ ansible_facts.keys() | select('in', known) | sort | join(',') }} {{ gather_subset | default('-') }} {{ ansible_facts.fips | default('-') }} {{ ansible_facts.apparmor | default('-') }}"
EOF_PB
play() { # HOST KEYWORD-LINE
	printf -- '- hosts: %s\n  vars_files: [known.yml]\n%s  tasks:\n    - import_tasks: show.yml\n' "$1" "$2"
}
{
	play h1 "  gather_subset: '!all'
"
	play h2 "  gather_subset: [min]
"
	play h3 "  gather_subset: ['!hardware']
"
	play h4 "  gather_subset: network
"
	play h5 "  gather_subset: ['!all', '!min']
"
	play h6 "  gather_subset: ['!all', '!min', hardware]
"
	play h7 "  gather_subset: ['all', '!min']
"
	play h8 "  gather_subset: ['!min', pkg_mgr, '!network', devices, '!bogus']
"
	play h9 "  gather_subset: \"{{ subs }}\"
  vars:
    subs: ['!all', '!min', service_mgr]
"
	play h10 ""
	cat <<'EOF_PB'
- hosts: h11
  gather_facts: false
  vars_files: [known.yml]
  tasks:
    - setup: gather_subset=!all,!min,python
      register: r
    - debug: msg="{{ r.ansible_facts.keys() | sort | join(',') }}"
    - setup:
        gather_subset: '!all,!min,service_mgr'
        filter: ['*_mgr', gather_subset, system]
      register: r
    - debug: msg="{{ r.ansible_facts.keys() | sort | join(',') }}"
    - setup: gather_subset=bogus
      ignore_errors: true
    - setup:
        gather_subset: "network, !hardware"
      ignore_errors: true
    - setup:
        gather_subset: [1]
      ignore_errors: true
    - import_tasks: show.yml
- hosts: h12
  gather_subset: "network,!hardware"
  gather_timeout: 5
  tasks:
    - debug: msg=unreached
EOF_PB
} >gs.yml
results() { grep -E '^(fatal|changed|ok):|"msg"' "$@"; }
ansible-playbook -i inv gs.yml 2>/dev/null | results >"$TMPD/ans"
expect_exit 1 "plays and setup tasks with gather_subset, the last one's unknown" -- "$IMC" play -i inv gs.yml --no-fallback
results "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... the same facts and failures as ansible-playbook" \
	grep -q "Bad subset 'network,!hardware'.*failed to execute: ansible.legacy.setup" "$TMPD/ans"

# the setting DEFAULT_GATHER_SUBSET: the implicit gathering's, unless
# the play says (null: setup's default); never an explicit setup's
cat >env.yml <<'EOF_PB'
- hosts: h1
  vars_files: [known.yml]
  tasks:
    - import_tasks: show.yml
- hosts: h2
  vars_files: [known.yml]
  gather_subset: null
  tasks:
    - import_tasks: show.yml
- hosts: h3
  vars_files: [known.yml]
  gather_subset: hardware
  tasks:
    - import_tasks: show.yml
- hosts: h4
  vars_files: [known.yml]
  gather_facts: false
  tasks:
    - setup:
    - import_tasks: show.yml
EOF_PB
ANSIBLE_GATHER_SUBSET=min ansible-playbook -i inv env.yml 2>/dev/null | results >"$TMPD/ans"
expect_exit 0 "ANSIBLE_GATHER_SUBSET=min" -- env ANSIBLE_GATHER_SUBSET=min "$IMC" play -i inv env.yml --no-fallback
results "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... the same facts as ansible-playbook" grep -q "\['min'\]" "$TMPD/ans"
# from ansible.cfg, a list whose items Ansible strips and unquotes
printf '[defaults]\ngather_subset = network, "!min"\n' >ansible.cfg
ansible-playbook -i inv env.yml 2>/dev/null | results >"$TMPD/ans"
expect_exit 0 "gather_subset in ansible.cfg" -- "$IMC" play -i inv env.yml --no-fallback
results "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... the same facts as ansible-playbook" grep -q "\['network', '!min'\]" "$TMPD/ans"
rm ansible.cfg
ANSIBLE_GATHER_SUBSET='!all,bogus' ansible-playbook -i inv env.yml 2>/dev/null | results >"$TMPD/ans"
expect_exit 1 "an unknown subset in ANSIBLE_GATHER_SUBSET" -- \
	env ANSIBLE_GATHER_SUBSET='!all,bogus' "$IMC" play -i inv env.yml --no-fallback
results "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... fails the gathering as ansible-playbook" grep -q "Bad subset 'bogus'" "$TMPD/ans"
done_testing
