#!/bin/sh
# tests/docker/mknode.sh: prints the path of the node image's root
# filesystem (a tar archive) for the Docker tests, building it once per
# machine: Debian 12 (minbase) with openssh-server, python3 and the
# run-time libraries of imc-train (so that the role imc.trainer can copy the
# deploying machine's imc-train to a node), made by debootstrap from
# Debian's mirror, without SSH host keys (each container makes its own when
# it starts). The archive is cached under
# $IMC_TEST_CACHE (default /var/cache/imc-test) by a hash of this script, so
# a change here builds a new one; a build runs under a lock, and a
# half-built archive never has the final name.
#
# usage: tests/docker/mknode.sh      (root; debootstrap, from install-deps)
set -eu

CACHE=${IMC_TEST_CACHE:-/var/cache/imc-test}
SUITE=bookworm
# the run-time libraries of imc's build dependencies (scripts/install-deps),
# and GCC's sanitizer run-times: an imc-train of any build configuration runs
PKGS=openssh-server,python3,libjansson4,libopenblas0-pthread,zlib1g,libyaml-0-2,libcurl4,libssh-4
PKGS=$PKGS,libpcre2-8-0,libsqlite3-0,libxml2,libssl3,libmicrohttpd12,libasan8,libubsan1
MIRROR=${IMC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEY=$(cat "$0" | sha256sum | cut -c1-16)
OUT="$CACHE/docker-node-$KEY.tar"

mkdir -p "$CACHE"
exec 9>"$CACHE/docker-node.lock"
flock 9
if [ ! -s "$OUT" ]; then
	command -v debootstrap >/dev/null || { echo "mknode: needs debootstrap (scripts/install-deps)" >&2; exit 1; }
	ROOT=$(mktemp -d "$CACHE/docker-node-build.XXXXXX")
	# debootstrap mounts /proc and /sys in the tree while it works: an
	# interrupted build unmounts them before the tree goes
	cleanup() {
		grep -o " $ROOT/[^ ]*" /proc/self/mounts | sort -r | while read -r m; do umount -l "$m"; done
		rm -rf "$ROOT" "$OUT.tmp"
	}
	trap cleanup EXIT
	trap 'exit 130' INT TERM HUP
	debootstrap --variant=minbase --include="$PKGS" "$SUITE" "$ROOT" "$MIRROR" >"$ROOT.log" 2>&1 ||
		{ echo "mknode: debootstrap failed; its log: $ROOT.log" >&2; exit 1; }
	rm -f "$ROOT.log" "$ROOT"/etc/ssh/ssh_host_*
	rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/cache/apt/archives/*.deb
	mkdir -p "$ROOT/run/sshd"
	tar --numeric-owner -C "$ROOT" -cf "$OUT.tmp" .
	mv "$OUT.tmp" "$OUT"
	# the archives of earlier versions of this script
	for old in "$CACHE"/docker-node-*.tar; do
		[ "$old" = "$OUT" ] || rm -f "$old"
	done
fi
echo "$OUT"
