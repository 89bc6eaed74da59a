#!/bin/sh
# t4080: the native uri module against a Python HTTP server the test starts
# on loopback (t4080-uri-server.py, stopped by its PID): JSON and text
# responses, status_code lists, every follow_redirects rule, json and
# form-urlencoded bodies, headers, cookies, basic authentication, gzip,
# HEAD, creates/removes, dest (If-Modified-Since, a directory), and the
# failures. The expected results are ansible-playbook 2.14's own for the
# same play (the port and the temporary directory replaced), so the test
# needs no Ansible at run time.
. "$top_srcdir/tests/cli/lib.sh"

mkdir -p "$TMPD/www"
printf 'file content\n' >"$TMPD/www/file.txt"
mkfifo "$TMPD/port.fifo"
python3 "$top_srcdir/tests/cli/t4080-uri-server.py" "$TMPD/www" >"$TMPD/port.fifo" 2>"$TMPD/srv.err" &
SRV=$!
at_exit "stop_child $SRV"
read -r PORT <"$TMPD/port.fifo"
[ -n "$PORT" ] || { cat "$TMPD/srv.err"; not_ok "the HTTP server did not start"; done_testing; }

cat >"$TMPD/uri.yml" <<'EOY'
- hosts: all
  gather_facts: false
  vars:
    u: "http://127.0.0.1:{{ port }}"
    drop: [date, last_modified, server, elapsed, invocation, _ansible_no_log, warnings, deprecations, exception]
  tasks:
    - uri: { url: "{{ u }}/json" }
      register: r_json
    - uri: { url: "{{ u }}/vnd", return_content: true }
      register: r_vnd
    - uri: { url: "{{ u }}/text" }
      register: r_text
    - uri: { url: "{{ u }}/text", return_content: yes }
      register: r_text_c
    - uri: { url: "{{ u }}/status/404" }
      register: r_404
      ignore_errors: true
    - uri: { url: "{{ u }}/status/404", status_code: [200, 404] }
      register: r_404ok
    - uri: { url: "{{ u }}/status/500", return_content: true, status_code: "200,201" }
      register: r_500
      ignore_errors: true
    - uri: { url: "{{ u }}/redir/302?to=/json" }
      register: r_302
    - uri: { url: "{{ u }}/redir/301?to=text", follow_redirects: none }
      register: r_301none
      ignore_errors: true
    - uri: { url: "{{ u }}/redir/302?to=/echo", method: POST, body: "x=1" }
      register: r_post_safe
      ignore_errors: true
    - uri: { url: "{{ u }}/redir/302?to=/echo", method: POST, body: "x=1", follow_redirects: all }
      register: r_post_all
    - uri: { url: "{{ u }}/redir/307?to=/echo", method: PUT, body: "x=1", follow_redirects: all }
      register: r_put_307
    - uri: { url: "{{ u }}/redir/302?to=/echo", method: POST, body: "x=1", follow_redirects: urllib2 }
      register: r_post_urllib2
    - uri: { url: "{{ u }}/loop" }
      register: r_loop
      ignore_errors: true
    - uri: { url: "{{ u }}/noloc" }
      register: r_noloc
      ignore_errors: true
    - uri:
        url: "{{ u }}/echo"
        method: POST
        body_format: json
        body: { name: "a b", list: [1, 2.5, true, null], nested: { k: "é" } }
        headers: { X-Test: yes }
      register: r_json_body
    - uri:
        url: "{{ u }}/echo"
        method: post
        body_format: form-urlencoded
        body: { name: "a b&c", multi: [1, 2], none: null }
      register: r_form
    - uri:
        url: "{{ u }}/echo"
        method: POST
        body_format: form-urlencoded
        body: [[k1, v1], [k2, "a/b"]]
        force: true
        http_agent: my-agent
      register: r_form_list
    - uri: { url: "{{ u }}/cookie" }
      register: r_cookie
    - uri: { url: "{{ u }}/auth" }
      register: r_auth_none
      ignore_errors: true
    - uri: { url: "{{ u }}/auth", url_username: u, url_password: sekret }
      register: r_auth
    - uri: { url: "{{ u }}/auth", user: u, password: sekret, force_basic_auth: true }
      register: r_auth_force
    - uri: { url: "{{ u }}/auth", url_username: u, url_password: wrong }
      register: r_auth_wrong
      ignore_errors: true
    - uri: { url: "{{ u }}/gzip", return_content: true }
      register: r_gzip
    - uri: { url: "{{ u }}/dup" }
      register: r_dup
    - uri: { url: "{{ u }}/json", method: HEAD }
      register: r_head
    - uri: { url: "{{ u }}/json", method: "GE T" }
      register: r_badmethod
      ignore_errors: true
    - uri: { url: "http://127.0.0.1:1/x" }
      register: r_refused
      ignore_errors: true
    - uri: { url: "{{ u }}/json", creates: "{{ out }}/www/file.txt" }
      register: r_creates
    - uri: { url: "{{ u }}/json", removes: "{{ out }}/nosuch" }
      register: r_removes
    - uri: { url: "{{ u }}/file.txt", dest: "{{ out }}/dl.txt", mode: "0600" }
      register: r_dest1
    - uri: { url: "{{ u }}/file.txt", dest: "{{ out }}/dl.txt" }
      register: r_dest2
      ignore_errors: true
    - uri: { url: "{{ u }}/file.txt", dest: "{{ out }}/dl.txt", force: true }
      register: r_dest3
      ignore_errors: true
    - file: { path: "{{ out }}/dldir", state: directory }
    - uri: { url: "{{ u }}/file.txt", dest: "{{ out }}/dldir" }
      register: r_destdir
    - uri: { url: "{{ u }}/redir/302?to=/file.txt", dest: "{{ out }}/dldir", status_code: [200, 304] }
      register: r_destdir2
    - uri: { url: "{{ u }}/status/201", dest: "{{ out }}/dl201.txt", status_code: 201 }
      register: r_dest201
    # a raw body that is no string: http.client's TypeError (the
    # traceback, Ansible's exception key, is Python's own and dropped)
    - uri: { url: "{{ u }}/echo", method: POST, body: { k: v } }
      register: r_rawdict
      ignore_errors: true
    - uri: { url: "{{ u }}/echo", method: POST, body: 5 }
      register: r_rawint
      ignore_errors: true
    - copy:
        dest: "{{ out }}/results.json"
        content: |
          {% for n in ['r_json','r_vnd','r_text','r_text_c','r_404','r_404ok','r_500','r_302','r_301none','r_post_safe','r_post_all','r_put_307','r_post_urllib2','r_loop','r_noloc','r_json_body','r_form','r_form_list','r_cookie','r_auth_none','r_auth','r_auth_force','r_auth_wrong','r_gzip','r_dup','r_head','r_badmethod','r_refused','r_creates','r_removes','r_dest1','r_dest2','r_dest3','r_destdir','r_destdir2','r_dest201','r_rawdict','r_rawint'] %}
          {{ n }}: {{ lookup('vars', n) | dict2items | rejectattr('key', 'in', drop) | sort(attribute='key') | items2dict | to_json(sort_keys=true) }}
          {% endfor %}
EOY
expect_exit 0 "the uri play runs natively" -- "$IMC" play --no-fallback --connection local \
	-e port="$PORT" -e out="$TMPD" "$TMPD/uri.yml"
sed -e "s/$PORT/PORT/g" -e "s|$TMPD|OUT|g" "$TMPD/results.json" >"$TMPD/got"
cat >"$TMPD/want" <<'EOT'
r_json: {"changed": false, "content_length": "32", "content_type": "application/json", "cookies": {}, "cookies_string": "", "failed": false, "json": {"a": 1, "b": [true, null, "x"]}, "msg": "OK (32 bytes)", "redirected": false, "status": 200, "url": "http://127.0.0.1:PORT/json"}
r_vnd: {"changed": false, "content": "{\"v\": 2}", "content_length": "8", "content_type": "application/vnd.api+json; charset=utf-8", "cookies": {}, "cookies_string": "", "failed": false, "json": {"v": 2}, "msg": "OK (8 bytes)", "redirected": false, "status": 200, "url": "http://127.0.0.1:PORT/vnd"}
r_text: {"changed": false, "content_length": "11", "content_type": "text/plain", "cookies": {}, "cookies_string": "", "failed": false, "msg": "OK (11 bytes)", "redirected": false, "status": 200, "url": "http://127.0.0.1:PORT/text"}
r_text_c: {"changed": false, "content": "plain text\n", "content_length": "11", "content_type": "text/plain", "cookies": {}, "cookies_string": "", "failed": false, "msg": "OK (11 bytes)", "redirected": false, "status": 200, "url": "http://127.0.0.1:PORT/text"}
r_404: {"changed": false, "content_length": "11", "content_type": "text/plain", "failed": true, "msg": "Status code was 404 and not [200]: HTTP Error 404: Not Found", "redirected": false, "status": 404, "url": "http://127.0.0.1:PORT/status/404"}
r_404ok: {"body": "status 404\n", "changed": false, "content_length": "11", "content_type": "text/plain", "failed": false, "msg": "HTTP Error 404: Not Found", "redirected": false, "status": 404, "url": "http://127.0.0.1:PORT/status/404"}
r_500: {"changed": false, "content": "status 500\n", "content_length": "11", "content_type": "text/plain", "failed": true, "msg": "Status code was 500 and not [200, 201]: HTTP Error 500: Internal Server Error", "redirected": false, "status": 500, "url": "http://127.0.0.1:PORT/status/500"}
r_302: {"changed": false, "content_length": "32", "content_type": "application/json", "cookies": {}, "cookies_string": "", "failed": false, "json": {"a": 1, "b": [true, null, "x"]}, "msg": "OK (32 bytes)", "redirected": true, "status": 200, "url": "http://127.0.0.1:PORT/json"}
r_301none: {"changed": false, "content_length": "6", "content_type": "text/plain", "failed": true, "location": "http://127.0.0.1:PORT/redir/text", "msg": "Status code was 301 and not [200]: HTTP Error 301: Moved Permanently", "redirected": false, "status": 301, "url": "http://127.0.0.1:PORT/redir/301?to=text"}
r_post_safe: {"changed": false, "content_length": "6", "content_type": "text/plain", "failed": true, "location": "http://127.0.0.1:PORT?to=/echo/echo", "msg": "Status code was 302 and not [200]: HTTP Error 302: Found", "redirected": false, "status": 302, "url": "http://127.0.0.1:PORT/redir/302?to=/echo"}
r_post_all: {"changed": false, "content_length": "75", "content_type": "application/json", "cookies": {}, "cookies_string": "", "failed": false, "json": {"body": "", "headers": {"user-agent": "ansible-httpget"}, "method": "GET"}, "msg": "OK (75 bytes)", "redirected": true, "status": 200, "url": "http://127.0.0.1:PORT/echo"}
r_put_307: {"changed": false, "content_length": "131", "content_type": "application/json", "cookies": {}, "cookies_string": "", "failed": false, "json": {"body": "x=1", "headers": {"content-type": "application/x-www-form-urlencoded", "user-agent": "ansible-httpget"}, "method": "PUT"}, "msg": "OK (131 bytes)", "redirected": true, "status": 200, "url": "http://127.0.0.1:PORT/echo"}
r_post_urllib2: {"changed": false, "content_length": "75", "content_type": "application/json", "cookies": {}, "cookies_string": "", "failed": false, "json": {"body": "", "headers": {"user-agent": "ansible-httpget"}, "method": "GET"}, "msg": "OK (75 bytes)", "redirected": true, "status": 200, "url": "http://127.0.0.1:PORT/echo"}
r_loop: {"changed": false, "content_length": "0", "content_type": "text/plain", "failed": true, "location": "http://127.0.0.1:PORT/loop", "msg": "Status code was 302 and not [200]: HTTP Error 302: The HTTP server returned a redirect error that would lead to an infinite loop.\nThe last 30x error message was:\nFound", "redirected": false, "status": 302, "url": "http://127.0.0.1:PORT/loop"}
r_noloc: {"changed": false, "content_length": "12", "content_type": "text/plain", "failed": true, "msg": "Status code was 302 and not [200]: HTTP Error 302: Found", "redirected": false, "status": 302, "url": "http://127.0.0.1:PORT/noloc"}
r_json_body: {"changed": false, "content_length": "215", "content_type": "application/json", "cookies": {}, "cookies_string": "", "failed": false, "json": {"body": "{\"name\": \"a b\", \"list\": [1, 2.5, true, null], \"nested\": {\"k\": \"\\u00e9\"}}", "headers": {"content-type": "application/json", "user-agent": "ansible-httpget", "x-test": "True"}, "method": "POST"}, "msg": "OK (215 bytes)", "redirected": false, "status": 200, "url": "http://127.0.0.1:PORT/echo"}
r_form: {"changed": false, "content_length": "157", "content_type": "application/json", "cookies": {}, "cookies_string": "", "failed": false, "json": {"body": "name=a+b%26c&multi=1&multi=2", "headers": {"content-type": "application/x-www-form-urlencoded", "user-agent": "ansible-httpget"}, "method": "POST"}, "msg": "OK (157 bytes)", "redirected": false, "status": 200, "url": "http://127.0.0.1:PORT/echo"}
r_form_list: {"changed": false, "content_length": "136", "content_type": "application/json", "cookies": {}, "cookies_string": "", "failed": false, "json": {"body": "k1=v1&k2=a%2Fb", "headers": {"content-type": "application/x-www-form-urlencoded", "user-agent": "my-agent"}, "method": "POST"}, "msg": "OK (136 bytes)", "redirected": false, "status": 200, "url": "http://127.0.0.1:PORT/echo"}
r_cookie: {"changed": false, "content_length": "105", "content_type": "application/json", "cookies": {"lang": "en", "sid": "abc"}, "cookies_string": "sid=abc; lang=en", "failed": false, "json": {"body": "", "headers": {"cookie": "sid=abc; lang=en", "user-agent": "ansible-httpget"}, "method": "GET"}, "msg": "OK (105 bytes)", "redirected": true, "status": 200, "url": "http://127.0.0.1:PORT/echo"}
r_auth_none: {"changed": false, "content_length": "5", "content_type": "text/plain", "failed": true, "msg": "Status code was 401 and not [200]: HTTP Error 401: Unauthorized", "redirected": false, "status": 401, "url": "http://127.0.0.1:PORT/auth", "www_authenticate": "Basic realm=\"t\""}
r_auth: {"changed": false, "content_length": "14", "content_type": "application/json", "cookies": {}, "cookies_string": "", "failed": false, "json": {"auth": "ok"}, "msg": "OK (14 bytes)", "redirected": false, "status": 200, "url": "http://127.0.0.1:PORT/auth"}
r_auth_force: {"changed": false, "content_length": "14", "content_type": "application/json", "cookies": {}, "cookies_string": "", "failed": false, "json": {"auth": "ok"}, "msg": "OK (14 bytes)", "redirected": false, "status": 200, "url": "http://127.0.0.1:PORT/auth"}
r_auth_wrong: {"changed": false, "content_length": "5", "content_type": "text/plain", "failed": true, "msg": "Status code was 401 and not [200]: HTTP Error 401: Unauthorized", "redirected": false, "status": 401, "url": "http://127.0.0.1:PORT/auth", "www_authenticate": "Basic realm=\"t\""}
r_gzip: {"changed": false, "content": "zipped\n", "content_encoding": "gzip", "content_length": "27", "content_type": "text/plain", "cookies": {}, "cookies_string": "", "failed": false, "msg": "OK (27 bytes)", "redirected": false, "status": 200, "url": "http://127.0.0.1:PORT/gzip"}
r_dup: {"changed": false, "content_length": "4", "content_type": "text/plain", "cookies": {}, "cookies_string": "", "failed": false, "msg": "OK (4 bytes)", "redirected": false, "status": 200, "url": "http://127.0.0.1:PORT/dup", "x_dup": "one, two"}
r_head: {"changed": false, "content_length": "32", "content_type": "application/json", "cookies": {}, "cookies_string": "", "failed": false, "msg": "OK (32 bytes)", "redirected": false, "status": 200, "url": "http://127.0.0.1:PORT/json"}
r_badmethod: {"changed": false, "failed": true, "msg": "Parameter 'method' needs to be a single word in uppercase, like GET or POST."}
r_refused: {"changed": false, "failed": true, "msg": "Status code was -1 and not [200]: Request failed: <urlopen error [Errno 111] Connection refused>", "redirected": false, "status": -1, "url": "http://127.0.0.1:1/x"}
r_creates: {"changed": false, "failed": false, "stdout": "skipped, since 'OUT/www/file.txt' exists", "stdout_lines": ["skipped, since 'OUT/www/file.txt' exists"]}
r_removes: {"changed": false, "failed": false, "stdout": "skipped, since 'OUT/nosuch' does not exist", "stdout_lines": ["skipped, since 'OUT/nosuch' does not exist"]}
r_dest1: {"changed": true, "content_length": "13", "content_type": "text/plain", "cookies": {}, "cookies_string": "", "failed": false, "gid": 0, "group": "root", "mode": "0600", "msg": "OK (13 bytes)", "owner": "root", "path": "OUT/dl.txt", "redirected": false, "size": 13, "state": "file", "status": 200, "uid": 0, "url": "http://127.0.0.1:PORT/file.txt"}
r_dest2: {"changed": false, "failed": true, "gid": 0, "group": "root", "mode": "0600", "msg": "Status code was 304 and not [200]: HTTP Error 304: Not Modified", "owner": "root", "path": "OUT/dl.txt", "redirected": false, "size": 13, "state": "file", "status": 304, "uid": 0, "url": "http://127.0.0.1:PORT/file.txt"}
r_dest3: {"changed": false, "failed": true, "gid": 0, "group": "root", "mode": "0600", "msg": "Status code was 304 and not [200]: HTTP Error 304: Not Modified", "owner": "root", "path": "OUT/dl.txt", "redirected": false, "size": 13, "state": "file", "status": 304, "uid": 0, "url": "http://127.0.0.1:PORT/file.txt"}
r_destdir: {"changed": true, "content_length": "13", "content_type": "text/plain", "cookies": {}, "cookies_string": "", "failed": false, "gid": 0, "group": "root", "mode": "0644", "msg": "OK (13 bytes)", "owner": "root", "path": "OUT/dldir/file.txt", "redirected": false, "size": 13, "state": "file", "status": 200, "uid": 0, "url": "http://127.0.0.1:PORT/file.txt"}
r_destdir2: {"changed": true, "content_length": "13", "content_type": "text/plain", "cookies": {}, "cookies_string": "", "failed": false, "gid": 0, "group": "root", "mode": "0644", "msg": "OK (13 bytes)", "owner": "root", "path": "OUT/dldir/file.txt", "redirected": true, "size": 13, "state": "file", "status": 200, "uid": 0, "url": "http://127.0.0.1:PORT/file.txt"}
r_dest201: {"changed": true, "content_length": "11", "content_type": "text/plain", "cookies": {}, "cookies_string": "", "failed": false, "gid": 0, "group": "root", "mode": "0644", "msg": "OK (11 bytes)", "owner": "root", "path": "OUT/dl201.txt", "redirected": false, "size": 11, "state": "file", "status": 201, "uid": 0, "url": "http://127.0.0.1:PORT/status/201"}
r_rawdict: {"changed": false, "failed": true, "msg": "Status code was -1 and not [200]: An unknown error occurred: can't concat str to bytes", "redirected": false, "status": -1, "url": "http://127.0.0.1:PORT/echo"}
r_rawint: {"changed": false, "failed": true, "msg": "Status code was -1 and not [200]: An unknown error occurred: message_body should be a bytes-like object or an iterable, got <class 'int'>", "redirected": false, "status": -1, "url": "http://127.0.0.1:PORT/echo"}
EOT
if cmp -s "$TMPD/want" "$TMPD/got"; then ok "... every result as ansible-playbook's"
else not_ok "... every result as ansible-playbook's"; diff "$TMPD/want" "$TMPD/got" | sed 's/^/#   /'; fi
if [ "$(cat "$TMPD/dl.txt")" = "file content" ] && [ "$(stat -c %a "$TMPD/dl.txt")" = 600 ]; then
	ok "dest holds the body, with its mode"
else
	not_ok "dest holds the body, with its mode"
fi

# check mode: Ansible's uri does not support it, so the task is skipped
cat >"$TMPD/check.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - uri: { url: "http://127.0.0.1:{{ port }}/json", dest: "{{ out }}/check.txt" }
      check_mode: true
      register: r
    - assert:
        that:
          - r is skipped
          - r.msg == 'remote module (ansible.legacy.uri) does not support check mode'
EOY
expect_exit 0 "check mode skips the task" -- "$IMC" play --no-fallback --connection local \
	-e port="$PORT" -e out="$TMPD" "$TMPD/check.yml"
if [ ! -e "$TMPD/check.txt" ]; then ok "... and writes nothing"; else not_ok "... and writes nothing"; fi

# a parameter imc does not implement is refused when the play is loaded
cat >"$TMPD/unsupported.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - uri: { url: "http://127.0.0.1:{{ port }}/json", unix_socket: /run/x.sock }
EOY
expect_exit 65 "an unimplemented parameter is an error naming it" -- "$IMC" play --no-fallback \
	--connection local -e port="$PORT" "$TMPD/unsupported.yml"
expect_grep "unsupported parameter .unix_socket." "$TMPD/err" "... on stderr"

done_testing
