# the initial tree of diffgen7.yml: key files, a zip archive (fixed times
# and modes, so both tools start from the same bytes), a file that is no
# archive, a directory to extract into, a file to fetch, vars files
rm -rf $1 && mkdir -p $1/ssh $1/out $1/out2 $1/got $1/adir $1/mnt && cd $1 || exit 1
K1='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@host'
K2='ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 bob@host'
printf '%s\n# comment\n\n%s\n' "$K1" "$K2" >ssh/keys1 && chmod 644 ssh/keys1
printf 'no-pty %s\n%s\n' "$K1" "$K2" >ssh/keys2 && chmod 600 ssh/keys2
printf '%s\n' "$K2" >ssh/keys3 && chmod 600 ssh/keys3
printf 'not an archive\n' >a.txt && printf 'payload\n' >src && printf 'old\n' >dest
printf -- '---\nc: {d: e}\n' >v.yml && printf '{"c": {"d": "e"}}\n' >v.json
/usr/bin/python3 - <<'PY' || exit 1
import zipfile
with zipfile.ZipFile('a.zip', 'w') as z:
    for m in ['x.txt', 'sub/', 'sub/z.txt', 'exe.sh']:
        i = zipfile.ZipInfo(m, (2020, 1, 2, 3, 4, 6))
        i.external_attr = (0o40755 if m.endswith('/') else 0o100755 if m.endswith('.sh') else 0o100644) << 16
        z.writestr(i, '' if m.endswith('/') else m + '\n')
PY
printf 'different\n' >out2/x.txt
