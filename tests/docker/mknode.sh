#!/bin/sh
# tests/docker/mknode.sh: prints the path of the node image's root
# filesystem (a tar archive) for the Docker tests, building it once per
# machine: Debian 12 (minbase) with openssh-server and python3, made by
# debootstrap from Debian's mirror, without SSH host keys (each container
# makes its own when it starts). The archive is cached under
# $IMC_TEST_CACHE (default /var/cache/imc-test) by a hash of this script, so
# a change here builds a new one; a build runs under a lock, and a
# half-built archive never has the final name.
#
# usage: tests/docker/mknode.sh      (root; debootstrap, from install-deps)
set -eu

CACHE=${IMC_TEST_CACHE:-/var/cache/imc-test}
SUITE=bookworm
PKGS=openssh-server,python3
MIRROR=${IMC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEY=$(cat "$0" | sha256sum | cut -c1-16)
OUT="$CACHE/docker-node-$KEY.tar"

mkdir -p "$CACHE"
exec 9>"$CACHE/docker-node.lock"
flock 9
if [ ! -s "$OUT" ]; then
	command -v debootstrap >/dev/null || { echo "mknode: needs debootstrap (scripts/install-deps)" >&2; exit 1; }
	ROOT=$(mktemp -d "$CACHE/docker-node-build.XXXXXX")
	trap 'rm -rf "$ROOT" "$OUT.tmp"' EXIT
	debootstrap --variant=minbase --include="$PKGS" "$SUITE" "$ROOT" "$MIRROR" >"$ROOT.log" 2>&1 ||
		{ echo "mknode: debootstrap failed; its log: $ROOT.log" >&2; exit 1; }
	rm -f "$ROOT.log" "$ROOT"/etc/ssh/ssh_host_*
	rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/cache/apt/archives/*.deb
	mkdir -p "$ROOT/run/sshd"
	tar --numeric-owner -C "$ROOT" -cf "$OUT.tmp" .
	mv "$OUT.tmp" "$OUT"
fi
echo "$OUT"
