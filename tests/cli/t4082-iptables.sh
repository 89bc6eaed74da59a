#!/bin/sh
# t4082: the native iptables module, in a network namespace the test
# creates (ip netns add; deleted at exit), so its rules never touch the
# machine's own tables: rules appended and inserted (ports, multiport,
# negation, ctstate with and without -m state, icmp, limit, syn,
# reject_with, LOG from log_prefix, tcp_flags, iprange, comment), their
# idempotence through -C, removal, policy, chain_management, flush, nat,
# check mode, and the failures (a missing chain or target with the
# command, rc and stderr; the choices; chain or flush; flush|policy).
# The expected results and the final iptables-save are
# ansible-playbook 2.14's for the same play in a fresh namespace.
. "$top_srcdir/tests/cli/lib.sh"
require_netns
command -v iptables >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin"
NS="imc-t4082-$$"
ip netns add "$NS" || { not_ok "ip netns add"; done_testing; }
at_exit "ip netns del $NS"
mkdir -p "$TMPD/res"

cat >"$TMPD/ipt.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - iptables: { chain: INPUT, protocol: tcp, destination_port: 22, jump: ACCEPT, comment: "ssh in" }
      register: r_add
    - iptables: { chain: INPUT, protocol: tcp, destination_port: "22", jump: ACCEPT, comment: "ssh in" }
      register: r_add_again
    - iptables: { chain: INPUT, protocol: udp, source: "!10.0.0.1", destination_ports: [53, "5353:5354"], jump: DROP }
      register: r_multi
    - iptables: { chain: INPUT, ctstate: [ESTABLISHED, RELATED], jump: ACCEPT, action: insert, rule_num: "1" }
      register: r_insert
    - iptables: { chain: INPUT, match: [state], ctstate: NEW, in_interface: lo, jump: ACCEPT }
      register: r_state
    - iptables: { chain: INPUT, protocol: icmp, icmp_type: echo-request, limit: 1/s, limit_burst: 5, jump: ACCEPT }
      register: r_icmp
    - iptables: { chain: INPUT, protocol: tcp, syn: match, destination_port: 80, reject_with: tcp-reset }
      register: r_reject
    - iptables: { chain: INPUT, log_prefix: "IN: ", log_level: info, protocol: tcp, destination_port: 81 }
      register: r_log
    - iptables: { chain: INPUT, log_prefix: "IN: ", jump: DROP }
      register: r_log_bad
      ignore_errors: true
    - iptables: { chain: INPUT, protocol: tcp, tcp_flags: { flags: [SYN, ACK], flags_set: [SYN] }, src_range: 192.168.1.1-192.168.1.9, jump: ACCEPT }
      register: r_flags
    - iptables: { chain: INPUT, protocol: tcp, destination_port: 8080, jump: ACCEPT }
      check_mode: true
      register: r_check
    - iptables: { chain: INPUT, protocol: tcp, destination_port: 22, jump: ACCEPT, comment: "ssh in", state: absent }
      register: r_del
    - iptables: { chain: INPUT, protocol: tcp, destination_port: 22, jump: ACCEPT, comment: "ssh in", state: absent }
      register: r_del_again
    - iptables: { chain: FORWARD, policy: DROP }
      register: r_policy
    - iptables: { chain: FORWARD, policy: DROP }
      register: r_policy_again
    - iptables: { chain: FORWARD, policy: ACCEPT }
      check_mode: true
      register: r_policy_check
    - iptables: { chain: NOSUCH, protocol: tcp, jump: ACCEPT }
      register: r_nochain
      ignore_errors: true
    - iptables: { chain: INPUT, jump: NOSUCH-TARGET }
      register: r_notarget
      ignore_errors: true
    - iptables: { chain: FOOBAR-CHAIN, chain_management: true, state: present }
      register: r_chain
    - iptables: { chain: FOOBAR-CHAIN, chain_management: true, state: present }
      register: r_chain_again
    - iptables: { chain: FOOBAR-CHAIN, flush: true }
      register: r_flush
    - iptables: { chain: FOOBAR-CHAIN, chain_management: true, state: absent }
      register: r_chain_del
    - iptables: { chain: FOOBAR-CHAIN, chain_management: true, state: absent }
      register: r_chain_del_again
    - iptables: { table: nat, chain: POSTROUTING, out_interface: eth9, jump: MASQUERADE }
      register: r_nat
    - iptables: { table: nosuch, chain: INPUT }
      register: r_badtable
      ignore_errors: true
    - iptables: { protocol: tcp }
      register: r_nochainarg
      ignore_errors: true
    - iptables: { chain: INPUT, flush: true, policy: DROP }
      register: r_excl
      ignore_errors: true
    - shell: iptables-save | grep -v '^#' | sed 's/\[[0-9]*:[0-9]*\]//'
      register: r_save
    - copy:
        dest: "{{ out }}/ipt.json"
        content: |
          {% for n in ['r_add','r_add_again','r_multi','r_insert','r_state','r_icmp','r_reject','r_log','r_log_bad','r_flags','r_check','r_del','r_del_again','r_policy','r_policy_again','r_policy_check','r_nochain','r_notarget','r_chain','r_chain_again','r_flush','r_chain_del','r_chain_del_again','r_nat','r_badtable','r_nochainarg','r_excl'] %}
          {{ n }}: {{ lookup('vars', n) | dict2items | rejectattr('key', 'in', ['invocation', 'start', 'end', 'delta']) | sort(attribute='key') | items2dict | to_json(sort_keys=true) }}
          {% endfor %}
          {{ r_save.stdout }}
EOY
expect_exit 0 "the iptables play runs natively" -- ip netns exec "$NS" "$IMC" play --no-fallback \
	--connection local -e out="$TMPD/res" "$TMPD/ipt.yml"
cat >"$TMPD/want" <<'EOT'
r_add: {"chain": "INPUT", "chain_management": false, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "-p tcp -j ACCEPT --destination-port 22 -m comment --comment ssh in", "state": "present", "table": "filter"}
r_add_again: {"chain": "INPUT", "chain_management": false, "changed": false, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "-p tcp -j ACCEPT --destination-port 22 -m comment --comment ssh in", "state": "present", "table": "filter"}
r_multi: {"chain": "INPUT", "chain_management": false, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "-p udp ! -s 10.0.0.1 -j DROP -m multiport --dports 53,5353:5354", "state": "present", "table": "filter"}
r_insert: {"chain": "INPUT", "chain_management": false, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "-j ACCEPT -m conntrack --ctstate ESTABLISHED,RELATED", "state": "present", "table": "filter"}
r_state: {"chain": "INPUT", "chain_management": false, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "-m state -j ACCEPT -i lo --state NEW", "state": "present", "table": "filter"}
r_icmp: {"chain": "INPUT", "chain_management": false, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "-p icmp -j ACCEPT -m limit --limit 1/s --limit-burst 5 --icmp-type echo-request", "state": "present", "table": "filter"}
r_reject: {"chain": "INPUT", "chain_management": false, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "-p tcp --destination-port 80 --syn -j REJECT --reject-with tcp-reset", "state": "present", "table": "filter"}
r_log: {"chain": "INPUT", "chain_management": false, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "-p tcp --log-prefix IN:  --log-level info --destination-port 81", "state": "present", "table": "filter"}
r_log_bad: {"changed": false, "failed": true, "msg": "Logging options can only be used with the LOG jump target."}
r_flags: {"chain": "INPUT", "chain_management": false, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "-p tcp --tcp-flags SYN,ACK SYN -j ACCEPT -m iprange --src-range 192.168.1.1-192.168.1.9", "state": "present", "table": "filter"}
r_check: {"chain": "INPUT", "chain_management": false, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "-p tcp -j ACCEPT --destination-port 8080", "state": "present", "table": "filter"}
r_del: {"chain": "INPUT", "chain_management": false, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "-p tcp -j ACCEPT --destination-port 22 -m comment --comment ssh in", "state": "absent", "table": "filter"}
r_del_again: {"chain": "INPUT", "chain_management": false, "changed": false, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "-p tcp -j ACCEPT --destination-port 22 -m comment --comment ssh in", "state": "absent", "table": "filter"}
r_policy: {"chain": "FORWARD", "chain_management": false, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "", "state": "present", "table": "filter"}
r_policy_again: {"chain": "FORWARD", "chain_management": false, "changed": false, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "", "state": "present", "table": "filter"}
r_policy_check: {"chain": "FORWARD", "chain_management": false, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "", "state": "present", "table": "filter"}
r_nochain: {"changed": false, "cmd": "/usr/sbin/iptables -t filter -A NOSUCH -p tcp -j ACCEPT", "failed": true, "msg": "iptables: No chain/target/match by that name.", "rc": 1, "stderr": "iptables: No chain/target/match by that name.\n", "stderr_lines": ["iptables: No chain/target/match by that name."], "stdout": "", "stdout_lines": []}
r_notarget: {"changed": false, "cmd": "/usr/sbin/iptables -t filter -A INPUT -j NOSUCH-TARGET", "failed": true, "msg": "iptables v1.8.9 (nf_tables): Chain 'NOSUCH-TARGET' does not exist\nTry `iptables -h' or 'iptables --help' for more information.", "rc": 2, "stderr": "iptables v1.8.9 (nf_tables): Chain 'NOSUCH-TARGET' does not exist\nTry `iptables -h' or 'iptables --help' for more information.\n", "stderr_lines": ["iptables v1.8.9 (nf_tables): Chain 'NOSUCH-TARGET' does not exist", "Try `iptables -h' or 'iptables --help' for more information."], "stdout": "", "stdout_lines": []}
r_chain: {"chain": "FOOBAR-CHAIN", "chain_management": true, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "", "state": "present", "table": "filter"}
r_chain_again: {"chain": "FOOBAR-CHAIN", "chain_management": true, "changed": false, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "", "state": "present", "table": "filter"}
r_flush: {"chain": "FOOBAR-CHAIN", "chain_management": false, "changed": true, "failed": false, "flush": true, "ip_version": "ipv4", "rule": "", "state": "present", "table": "filter"}
r_chain_del: {"chain": "FOOBAR-CHAIN", "chain_management": true, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "", "state": "absent", "table": "filter"}
r_chain_del_again: {"chain": "FOOBAR-CHAIN", "chain_management": true, "changed": false, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "", "state": "absent", "table": "filter"}
r_nat: {"chain": "POSTROUTING", "chain_management": false, "changed": true, "failed": false, "flush": false, "ip_version": "ipv4", "rule": "-j MASQUERADE -o eth9", "state": "present", "table": "nat"}
r_badtable: {"changed": false, "failed": true, "msg": "value of table must be one of: filter, nat, mangle, raw, security, got: nosuch"}
r_nochainarg: {"changed": false, "failed": true, "msg": "Either chain or flush parameter must be specified."}
r_excl: {"changed": false, "failed": true, "msg": "parameters are mutually exclusive: flush|policy"}
*filter
:INPUT ACCEPT 
:FORWARD DROP 
:OUTPUT ACCEPT 
-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A INPUT ! -s 10.0.0.1/32 -p udp -m multiport --dports 53,5353:5354 -j DROP
-A INPUT -i lo -m state --state NEW -j ACCEPT
-A INPUT -p icmp -m limit --limit 1/sec -m icmp --icmp-type 8 -j ACCEPT
-A INPUT -p tcp -m tcp --dport 80 --tcp-flags FIN,SYN,RST,ACK SYN -j REJECT --reject-with tcp-reset
-A INPUT -p tcp -m tcp --dport 81 -j LOG --log-prefix "IN: " --log-level 6
-A INPUT -p tcp -m tcp --tcp-flags SYN,ACK SYN -m iprange --src-range 192.168.1.1-192.168.1.9 -j ACCEPT
COMMIT
*nat
:PREROUTING ACCEPT 
:INPUT ACCEPT 
:OUTPUT ACCEPT 
:POSTROUTING ACCEPT 
-A POSTROUTING -o eth9 -j MASQUERADE
COMMIT
EOT
if cmp -s "$TMPD/want" "$TMPD/res/ipt.json"; then ok "... every result and the tables as ansible-playbook's"
else not_ok "... every result and the tables as ansible-playbook's"; diff "$TMPD/want" "$TMPD/res/ipt.json" | sed 's/^/#   /'; fi
if iptables -S INPUT 2>/dev/null | grep -q 'ssh in'; then
	not_ok "the machine's own tables are untouched"
else
	ok "the machine's own tables are untouched"
fi

done_testing
