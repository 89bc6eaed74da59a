#!/bin/sh
# t4123: the get_url module as Ansible 2.14's (issue 17 item 2), against
# the loopback HTTP server of t4080 (t4080-uri-server.py, stopped by its
# PID) and file:// URLs: a new dest (status_code 200, msg "OK (N
# bytes)", checksum_src, md5sum), an existing one (If-Modified-Since: a
# 304, unchanged), force (fetched again, same sha1: unchanged), a
# matching checksum ("file already exists", nothing fetched), a
# mismatching one (dest removed, failed, changed), dest a directory (the
# URL's basename, the query left out), a 404, a missing dest directory, a
# bad checksum format, file:// (status_code null), mode; check mode: a
# HEAD request, changed with the sha1 of an empty body for a new dest, a
# 304 for an existing one, nothing written. The expected values are what
# ansible-playbook 2.14 gave for the same play, run as
#   ansible-playbook -i localhost, -c local -e d=DIR -e port=P t4123.yml
# with the asserts replaced by a copy of every registered result: all
# equal but src (Ansible's temporary file).
. "$top_srcdir/tests/cli/lib.sh"

d=$TMPD/w
mkdir -p "$d/srv" "$d/dir"
printf 'hello get_url\n' >"$d/srv/a.txt"
touch -d '2020-01-01' "$d/srv/a.txt"
mkfifo "$TMPD/port.fifo"
python3 "$top_srcdir/tests/cli/t4080-uri-server.py" "$d/srv" >"$TMPD/port.fifo" 2>"$TMPD/srv.err" &
SRV=$!
at_exit "stop_child $SRV"
read -r PORT <"$TMPD/port.fifo"
[ -n "$PORT" ] || { cat "$TMPD/srv.err"; not_ok "the HTTP server did not start"; done_testing; }

cat >"$TMPD/gu.yml" <<'EOY'
- hosts: all
  gather_facts: false
  vars:
    sha: 00e583d9916cbf6fab709c636c59aebb99b4b743e6ee662e72a00a53f0bb6851
  tasks:
    - get_url: { url: "http://127.0.0.1:{{ port }}/a.txt", dest: "{{ d }}/a.txt" }
      register: r1
    - get_url: { url: "http://127.0.0.1:{{ port }}/a.txt", dest: "{{ d }}/a.txt" }
      register: r2
    - get_url: { url: "http://127.0.0.1:{{ port }}/a.txt", dest: "{{ d }}/c.txt" }
      check_mode: true
      register: c3
    - stat: { path: "{{ d }}/c.txt" }
      register: s3
    - get_url: { url: "http://127.0.0.1:{{ port }}/a.txt", dest: "{{ d }}/a.txt" }
      check_mode: true
      register: c4
    - get_url: { url: "http://127.0.0.1:{{ port }}/a.txt", dest: "{{ d }}/a.txt", force: true }
      register: r5
    - get_url: { url: "http://127.0.0.1:{{ port }}/a.txt", dest: "{{ d }}/a.txt", checksum: "sha256:{{ sha }}" }
      register: r6
    - get_url: { url: "http://127.0.0.1:{{ port }}/a.txt", dest: "{{ d }}/bad.txt", checksum: "sha1:0000000000000000000000000000000000000000" }
      register: f7
      ignore_errors: true
    - stat: { path: "{{ d }}/bad.txt" }
      register: s7
    - get_url: { url: "http://127.0.0.1:{{ port }}/a.txt?x=1", dest: "{{ d }}/dir" }
      register: r8
    - get_url: { url: "http://127.0.0.1:{{ port }}/nothere", dest: "{{ d }}/n.txt" }
      register: f9
      ignore_errors: true
    - get_url: { url: "file://{{ d }}/srv/a.txt", dest: "{{ d }}/f.txt", mode: "0600" }
      register: r10
    - get_url: { url: "file://{{ d }}/srv/a.txt", dest: "{{ d }}/f.txt", mode: "0600" }
      register: r11
    - get_url: { url: "file://{{ d }}/srv/a.txt", dest: "{{ d }}/f2.txt" }
      check_mode: true
      register: c12
    - get_url: { url: "file://{{ d }}/srv/a.txt", dest: "{{ d }}/f.txt", checksum: "nocolon" }
      register: f13
      ignore_errors: true
    - get_url: { url: "http://127.0.0.1:{{ port }}/a.txt", dest: "{{ d }}/nodir/x.txt" }
      register: f14
      ignore_errors: true
    - assert:
        that:
          - r1.changed and r1.status_code == 200 and r1.msg == 'OK (14 bytes)' and r1.checksum_dest is none
          - r1.checksum_src == '19aca0b8a8f069e0420a44c722d354d065d6bb54' and r1.md5sum == '7d84811136bd6395ff7d935f3491db0f'
          - r1.dest == d ~ '/a.txt' and r1.mode == '0644' and r1.size == 14 and r1.elapsed == 0
          - "not r2.changed and r2.status_code == 304 and r2.msg == 'HTTP Error 304: Not Modified' and r2.checksum_src is not defined and r2.size == 14"
          - c3.changed and c3.checksum_src == 'da39a3ee5e6b4b0d3255bfef95601890afd80709' and c3.msg == 'OK (14 bytes)' and c3.status_code is not defined
          - not s3.stat.exists
          - not c4.changed and c4.status_code == 304
          - not r5.changed and r5.checksum_dest == r5.checksum_src and r5.status_code == 200
          - not r6.changed and r6.msg == 'file already exists' and r6.checksum_src is none and r6.status_code is not defined
          - f7 is failed and f7.changed and not s7.stat.exists
          - f7.msg == 'The checksum for ' ~ d ~ '/bad.txt did not match 0000000000000000000000000000000000000000; it was 19aca0b8a8f069e0420a44c722d354d065d6bb54.'
          - r8.changed and r8.dest == d ~ '/dir/a.txt'
          - "f9 is failed and f9.msg == 'Request failed' and f9.status_code == 404 and f9.response == 'HTTP Error 404: File not found'"
          - r10.changed and r10.status_code is none and r10.msg == 'OK (14 bytes)' and r10.mode == '0600'
          - not r11.changed and r11.checksum_dest == r11.checksum_src
          - c12.changed and c12.checksum_src == '19aca0b8a8f069e0420a44c722d354d065d6bb54'
          - f13 is failed and f13.msg == 'The checksum parameter has to be in format <algorithm>:<checksum>' and f13.mode == '0600'
          - f14 is failed and f14.msg == 'Destination ' ~ d ~ '/nodir does not exist' and f14.checksum_src is not none
EOY
expect_exit 0 "get_url: results, idempotence and check mode as Ansible's" -- \
	"$IMC" play --no-fallback --connection local -i testhost -e "d=$d" -e "port=$PORT" "$TMPD/gu.yml"
grep -q 'failed=0' "$TMPD/out" || sed -n '/FAILED/,+2p' "$TMPD/out" | sed 's/^/#   /' | head -20

done_testing
