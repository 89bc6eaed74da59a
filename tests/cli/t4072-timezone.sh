#!/bin/sh
# t4072: the timezone module (community.general.timezone) run natively by
# imc gives the results and files ansible-playbook gives (recorded in
# t4072-timezone.expect): a zone set, kept, planned in check mode (with
# hwclock), the hardware clock's UTC= written and hwclock's failure, an
# unknown zone, argument errors, a /etc/timezone with a comment and extra
# lines. Contained: the play runs in a private mount namespace (unshare -m)
# where /etc, /var/cache/debconf and /var/lib/dpkg are overlays whose
# upper layers are in the test's temp dir, so /etc/timezone, /etc/localtime,
# /etc/default/rcS and dpkg-reconfigure's database change only there;
# and where hwclock and timedatectl are, stand-ins are bound over them in
# the namespace (hwclock fails as with no clock, timedatectl as with no
# systemd), so that neither the machine's hardware clock nor its systemd
# time zone can be set. The module's systemd way is therefore not tested.
# IMC_TEST_RECORD=1 runs ansible-playbook instead and rewrites the
# .expect file.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t407-lib-recorded.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (mount namespaces)"
for c in hwclock dpkg-reconfigure; do
	command -v $c >/dev/null || { not_ok "needs $c (scripts/install-deps)"; exit 1; }
done
[ -f /usr/share/zoneinfo/Europe/Madrid ] || { not_ok "needs tzdata (scripts/install-deps)"; exit 1; }
play="$top_srcdir/tests/cli/t4072-timezone.yml"
expect="$top_srcdir/tests/cli/t4072-timezone.expect"
d="$TMPD/w"
mkdir -p "$d"
ov=""
for dir in /etc /var/cache/debconf /var/lib/dpkg; do
	n=$(echo "$dir" | tr / _)
	mkdir -p "$TMPD/u$n" "$TMPD/w$n"
	ov="$ov mount -t overlay imc-t4072 -o lowerdir=$dir,upperdir=$TMPD/u$n,workdir=$TMPD/w$n $dir &&"
done
# the stand-ins
hw=$(command -v hwclock)
printf '#!/bin/sh\necho "hwclock (t4072 stand-in): no hardware clock here" >&2\nexit 1\n' >"$TMPD/hwclock"
printf '#!/bin/sh\necho "System has not been booted with systemd (t4072 stand-in)" >&2\nexit 1\n' >"$TMPD/timedatectl"
chmod +x "$TMPD/hwclock" "$TMPD/timedatectl"
ov="$ov mount --bind $TMPD/hwclock $hw &&"
if tdc=$(command -v timedatectl); then
	ov="$ov mount --bind $TMPD/timedatectl $tdc &&"
fi
host_tz=$(ls -l /etc/localtime; cat /etc/timezone 2>/dev/null)
expect_exit 0 "the play runs in a mount namespace with /etc an overlay" -- \
	unshare -m --propagation private sh -c "$ov exec $run -e d='$d' '$play'"
sed "s#$d#@D@#g; s#$hw#@HWCLOCK@#g" "$d/results" >"$TMPD/got"
recorded_check "$TMPD/got" "$expect" "results and files as ansible-playbook's"
if [ "$(ls -l /etc/localtime; cat /etc/timezone 2>/dev/null)" = "$host_tz" ]; then
	ok "the machine's time zone is untouched"
else
	not_ok "the machine's time zone changed"
fi
done_testing
