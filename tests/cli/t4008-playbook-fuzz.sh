#!/bin/sh
# t4008: a short run of the recipe loader's fuzz harness (fuzz-playbook: a
# configure block's YAML into plays and tasks, with and without IM's
# header), from seeds that use the loader's keywords. Longer runs:
# tests/fuzz/fuzz-playbook -max_total_time=60 DIR.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/fuzz-lib.sh"
fuzz_require fuzz-playbook

mkdir -p "$TMPD/seeds"
cat >"$TMPD/seeds/tasks" <<'YAML'
---
- vars:
    pkgs: [curl, git]
    port: 0x1F
    on: yes
  handlers:
    - name: restart it
      service: name=ssh state=restarted
  tasks:
    - name: install
      apt: name={{ item }} state=present
      loop: "{{ pkgs }}"
      when: ansible_os_family == "Debian"
      notify: restart it
    - block:
        - command: echo hi
          register: out
          changed_when: false
      rescue:
        - debug: msg="{{ out.stdout }}"
      always:
        - set_fact: done=true
      become: true
    - shell: |
        echo one
        echo two
      args: {chdir: tmp}
      until: out is succeeded
      retries: 3
      delay: 0
      tags: [a, b]
YAML
cat >"$TMPD/seeds/anchors" <<'YAML'
- hosts: all
  gather_facts: no
  vars: &v {a: 1, b: ~, c: 1.5e3, d: 'x: y', e: !!str 12}
  tasks:
    - lineinfile: {path: etc-hosts, line: "1.2.3.4 h", create: true}
    - copy: {content: "{{ a }}", dest: out, mode: '0644'}
      with_items: [1, 2]
      loop_control: {loop_var: i}
      ignore_errors: True
      no_log: true
YAML
fuzz_run fuzz-playbook "$TMPD/seeds" 4096
done_testing
