#!/bin/sh
# t4124: the git module's check mode as Ansible 2.14's (issue 17 item
# 2), on local repositories the test makes (file:// URLs): no checkout
# at dest (changed, before null, after the remote's HEAD from git
# ls-remote, nothing cloned), a checkout at the remote's HEAD
# (unchanged, remote_url_changed false), a new commit upstream
# (changed, after the new commit, nothing fetched), an annotated tag (its
# commit), a branch, a sha1 (as is), update=no (before == after), another
# repo URL (remote_url_changed), a plain path with a trailing slash for
# the file:// URL it clones from (the same remote), an origin set as a
# plain path (a different one, as Ansible compares them), local modifications without force (the
# failure); and a real clone's result (no remote_url_changed). Commit
# dates are fixed, so the sha1s are the same as under ansible-playbook
# 2.14, which gave every expected value for the same play, run as
#   ansible-playbook -i localhost, -c local -e d=DIR t4124.yml
# with the asserts replaced by a copy of every registered result.
. "$top_srcdir/tests/cli/lib.sh"

command -v git >/dev/null || { ok "# SKIP git: needs git"; done_testing; exit 0; }
d=$TMPD/w
mkdir -p "$d"
export GIT_AUTHOR_DATE=2020-01-01T00:00:00Z GIT_COMMITTER_DATE=2020-01-01T00:00:00Z
export GIT_CONFIG_NOSYSTEM=1 HOME="$TMPD"
(cd "$d" && git init -q -b main origin && cd origin && git config user.email t@t && git config user.name t &&
	echo 1 >f && git add f && git commit -qm one && git tag -a v1 -m v1 && git branch dev &&
	echo 2 >f && git commit -qam two) || { not_ok "the test's repository"; done_testing; }

cat >"$TMPD/git.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - git: { repo: "file://{{ d }}/origin", dest: "{{ d }}/co" }
      check_mode: true
      register: c1
    - stat: { path: "{{ d }}/co" }
      register: s1
    - git: { repo: "file://{{ d }}/origin", dest: "{{ d }}/co" }
      register: r2
    - git: { repo: "file://{{ d }}/origin", dest: "{{ d }}/co" }
      check_mode: true
      register: c3
    - shell: cd {{ d }}/origin && echo 3 > f && GIT_AUTHOR_DATE=2020-01-02T00:00:00Z GIT_COMMITTER_DATE=2020-01-02T00:00:00Z git commit -qam three && git rev-parse HEAD
      register: three
    - git: { repo: "file://{{ d }}/origin", dest: "{{ d }}/co" }
      check_mode: true
      register: c4
    - command: git -C {{ d }}/co rev-parse HEAD
      register: head4
    - git: { repo: "file://{{ d }}/origin", dest: "{{ d }}/co", version: v1 }
      check_mode: true
      register: c6
    - git: { repo: "file://{{ d }}/origin", dest: "{{ d }}/co", version: dev }
      check_mode: true
      register: c8
    - git: { repo: "file://{{ d }}/origin", dest: "{{ d }}/co", update: false }
      check_mode: true
      register: c7
    - git: { repo: "file://{{ d }}/origin", dest: "{{ d }}/co", version: "{{ three.stdout }}" }
      check_mode: true
      register: c9
    - git: { repo: "file://{{ d }}/other", dest: "{{ d }}/co" }
      check_mode: true
      register: c10
      ignore_errors: true
    - git: { repo: "{{ d }}/origin/", dest: "{{ d }}/co" }
      check_mode: true
      register: c12
    - shell: git -C {{ d }}/co remote set-url origin {{ d }}/origin
    - git: { repo: "{{ d }}/origin", dest: "{{ d }}/co" }
      check_mode: true
      register: c13
    - shell: git -C {{ d }}/co remote set-url origin file://{{ d }}/origin
    - shell: echo local > {{ d }}/co/f
    - git: { repo: "file://{{ d }}/origin", dest: "{{ d }}/co" }
      check_mode: true
      register: c5
      ignore_errors: true
    - git: { repo: "file://{{ d }}/origin", dest: "{{ d }}/co2", version: v1 }
      check_mode: true
      register: c11
    - stat: { path: "{{ d }}/co2" }
      register: s11
    - assert:
        that:
          - c1.changed and c1.before is none and c1.after == 'a9bf0f018737257689e2d040135531c2b05994d2' and c1.remote_url_changed is not defined
          - not s1.stat.exists and not s11.stat.exists
          - r2.changed and r2.before is none and r2.after == c1.after and r2.remote_url_changed is not defined
          - not c3.changed and c3.before == c1.after and c3.after == c1.after and c3.remote_url_changed == false
          - c4.changed and c4.before == c1.after and c4.after == three.stdout and head4.stdout == c1.after
          - c6.changed and c6.after == c8.after and c6.after != c1.after
          - not c7.changed and c7.before == c1.after and c7.after == c1.after and c7.remote_url_changed is not defined
          - c9.changed and c9.after == three.stdout
          - c10.changed and c10.remote_url_changed and c10.after == three.stdout
          - c12.remote_url_changed == false and c12.after == three.stdout
          - c13.changed and c13.remote_url_changed and c13.after == three.stdout
          - "c5 is failed and c5.msg == 'Local modifications exist in the destination: ' ~ d ~ '/co (force=no).' and c5.before == c1.after"
          - c11.changed and c11.before is none and c11.after == c6.after
EOY
expect_exit 0 "git: check mode as Ansible's module" -- \
	"$IMC" play --no-fallback --connection local -i testhost -e "d=$d" "$TMPD/git.yml"
grep -q 'failed=0' "$TMPD/out" || sed -n '/FAILED/,+2p' "$TMPD/out" | sed 's/^/#   /' | head -20

done_testing
