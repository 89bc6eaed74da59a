# tests/cli/t4-lib-sshd.sh: sourced by the t4xxx tests and bench/provision:
# sshd instances on loopback addresses with their own host keys and an
# authorized test key, stopped by PID at exit.
#   sshd_keys DIR                 user key DIR/userkey (+ .pub)
#   sshd_start DIR ADDR PORT [HOSTKEY]  starts one; its PID goes to DIR/sshd-ADDR-PORT.pid
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
	dir=$1 addr=$2 port=$3 hk=${4:-$1/hostkey}
	[ -f "$hk" ] || ssh-keygen -q -t ed25519 -N '' -C imc-test-host -f "$hk" || return 1
	mkdir -p /run/sshd
	cat >"$dir/sshd-$addr-$port.conf" <<EOC
Port $port
ListenAddress $addr
HostKey $hk
PidFile $dir/sshd-$addr-$port.pid
AuthorizedKeysFile $dir/authorized_keys
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin prohibit-password
MaxSessions 200
MaxStartups 200
UseDNS no
LogLevel ERROR
EOC
	"$SSHD" -f "$dir/sshd-$addr-$port.conf" -E "$dir/sshd-$addr-$port.log" || return 1
	# sshd writes its pid file once it listens
	i=0
	while [ ! -s "$dir/sshd-$addr-$port.pid" ] && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	[ -s "$dir/sshd-$addr-$port.pid" ]
}

sshd_stop() {
	f=$1/sshd-$2-$3.pid
	if [ -s "$f" ]; then
		kill "$(cat "$f")" 2>/dev/null
		rm -f "$f"
	fi
}

sshd_stop_all() {
	for f in "$1"/sshd-*.pid; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
		rm -f "$f"
	done
	return 0
}
