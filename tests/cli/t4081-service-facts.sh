#!/bin/sh
# t4081: the native service_facts module on a node without systemd: the
# services service(8) --status-all lists, from init scripts the test
# writes. They are seen in place of /etc/init.d through a bind mount in a
# mount namespace of the test's own (unshare -m), so the machine's init
# scripts are neither read nor touched. The expected result is
# ansible-playbook 2.14's for the same play in the same namespace.
. "$top_srcdir/tests/cli/lib.sh"
[ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null || skip_all "needs root and mount namespaces"

mkdir -p "$TMPD/initd" "$TMPD/res"
printf '#!/bin/sh\ncase "$1" in status) echo "alpha is running"; exit 0;; esac\n' >"$TMPD/initd/alpha"
printf '#!/bin/sh\ncase "$1" in status) exit 3;; esac\n' >"$TMPD/initd/beta"
printf '#!/bin/sh\necho "usage: gamma start|stop"\n' >"$TMPD/initd/gamma"
chmod +x "$TMPD/initd/"*

cat >"$TMPD/sf.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - service_facts:
      register: r
    - copy:
        dest: "{{ out }}/sf.json"
        content: "{{ r | to_nice_json(sort_keys=true) }}\n{{ ansible_facts.services | to_nice_json }}\n"
    - assert:
        that:
          - services.alpha.state == 'running'
          - "'gamma' not in services"
EOY
expect_exit 0 "service_facts runs natively" -- unshare -m sh -c \
	'mount --bind "$1/initd" /etc/init.d && exec "$2" play --no-fallback --connection local -e out="$1/res" "$1/sf.yml"' \
	sh "$TMPD" "$IMC"
cat >"$TMPD/want" <<'EOT'
{
    "ansible_facts": {
        "services": {
            "alpha": {
                "name": "alpha",
                "source": "sysv",
                "state": "running"
            },
            "beta": {
                "name": "beta",
                "source": "sysv",
                "state": "stopped"
            }
        }
    },
    "changed": false,
    "failed": false
}
{
    "alpha": {
        "name": "alpha",
        "source": "sysv",
        "state": "running"
    },
    "beta": {
        "name": "beta",
        "source": "sysv",
        "state": "stopped"
    }
}
EOT
if cmp -s "$TMPD/want" "$TMPD/res/sf.json"; then ok "... the result and the facts as ansible-playbook's"
else not_ok "... the result and the facts as ansible-playbook's"; diff "$TMPD/want" "$TMPD/res/sf.json" | sed 's/^/#   /'; fi

# no service at all: skipped, with Ansible's message
rm -f "$TMPD/initd/"*
cat >"$TMPD/none.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - service_facts:
      register: r
    - assert:
        that:
          - r is skipped
          - r.msg == 'Failed to find any services. This can be due to privileges or some other configuration issue.'
EOY
expect_exit 0 "no service: skipped with Ansible's message" -- unshare -m sh -c \
	'mount --bind "$1/initd" /etc/init.d && exec "$2" play --no-fallback --connection local "$1/none.yml"' \
	sh "$TMPD" "$IMC"

done_testing
