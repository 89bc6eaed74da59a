# tests/cli/t4-lib-sshd.sh: sourced by the t4xxx tests and bench/provision:
# sshd instances on loopback addresses with their own host keys and an
# authorized test key, stopped by PID at exit.
#   sshd_keys DIR                 user key DIR/userkey (+ .pub)
#   sshd_start DIR ADDR PORT [HOSTKEY]  starts one; its PID goes to DIR/sshd-ADDR-PORT.pid
#                                 ($SSHD_EXTRA: more sshd_config lines)
#   sshd_stop_all DIR             stops every sshd started in DIR
SSHD=${SSHD:-/usr/sbin/sshd}

sshd_available() {
	[ -x "$SSHD" ] && command -v ssh-keygen >/dev/null 2>&1 && [ "$(id -u)" = 0 ]
}

sshd_keys() {
	[ -f "$1/userkey" ] || ssh-keygen -q -t ed25519 -N '' -C imc-test -f "$1/userkey" || return 1
	cp "$1/userkey.pub" "$1/authorized_keys" && chmod 600 "$1/authorized_keys"
}

sshd_start() {
	_sd_dir=$1 _sd_addr=$2 _sd_port=$3 _sd_hk=${4:-$1/hostkey}
	[ -f "$_sd_hk" ] || ssh-keygen -q -t ed25519 -N '' -C imc-test-host -f "$_sd_hk" || return 1
	mkdir -p /run/sshd
	cat >"$_sd_dir/sshd-$_sd_addr-$_sd_port.conf" <<EOC
Port $_sd_port
ListenAddress $_sd_addr
HostKey $_sd_hk
PidFile $_sd_dir/sshd-$_sd_addr-$_sd_port.pid
AuthorizedKeysFile $_sd_dir/authorized_keys
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin prohibit-password
MaxSessions 200
MaxStartups 200
UseDNS no
LogLevel ERROR
${SSHD_EXTRA:-}
EOC
	"$SSHD" -f "$_sd_dir/sshd-$_sd_addr-$_sd_port.conf" -E "$_sd_dir/sshd-$_sd_addr-$_sd_port.log" || return 1
	# sshd writes its pid file once it listens
	_sd_i=0
	while [ ! -s "$_sd_dir/sshd-$_sd_addr-$_sd_port.pid" ] && [ $_sd_i -lt 100 ]; do
		_sd_i=$((_sd_i + 1))
		sleep 0.05
	done
	[ -s "$_sd_dir/sshd-$_sd_addr-$_sd_port.pid" ]
}

sshd_stop() {
	_sd_f=$1/sshd-$2-$3.pid
	if [ -s "$_sd_f" ]; then
		kill "$(cat "$_sd_f")" 2>/dev/null
		rm -f "$_sd_f"
	fi
}

sshd_stop_all() {
	for _sd_f in "$1"/sshd-*.pid; do
		[ -s "$_sd_f" ] && kill "$(cat "$_sd_f")" 2>/dev/null
		rm -f "$_sd_f"
	done
	return 0
}
