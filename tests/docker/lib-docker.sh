# tests/docker/lib-docker.sh: a Docker daemon of the test's own for the
# tests of the docker backend (sourced after tests/cli/lib.sh), so that a
# daemon already running on the machine is never touched: dockerd with its
# data, exec root, pid file and socket in a directory of its own, without
# iptables rules, IP forwarding, masquerading or a default bridge (the only
# host changes are the bridges of the networks the tests create, removed
# with them). docker_start also loads the node image (tests/docker/mknode.sh:
# Debian 12 with openssh-server and python3, built once per machine and
# cached) into it, through the Engine API, without a registry.
#
#   docker_start     sets DOCKER_SOCK, DOCKER_AUTH (an auth line for it) and
#                    DOCKER_IMAGE (the node image's docker:// URL); returns 1
#                    with a reason on stderr when dockerd cannot run here
#   docker_stop      removes what the daemon still has (at_exit does it)
#   docker_left ID   one line per container, volume or network of
#                    infrastructure ID the daemon still has
#   docker_api METHOD PATH [CURL ARGS]   one Engine API call (curl)

docker_api() {
	_da_m=$1 _da_p=$2
	shift 2
	curl -sS --unix-socket "$DOCKER_SOCK" -X "$_da_m" "$@" "http://localhost/v1.41$_da_p"
}

docker_start() {
	command -v dockerd >/dev/null || { echo "needs dockerd (scripts/install-deps: docker.io)" >&2; return 1; }
	command -v curl >/dev/null || { echo "needs curl" >&2; return 1; }
	_ds_tar=$("$top_srcdir/tests/docker/mknode.sh") || { echo "cannot build the node image" >&2; return 1; }
	# a short path: a unix socket's name has at most 107 bytes
	DOCKER_DIR=$(mktemp -d /tmp/imc-dockerd.XXXXXX)
	DOCKER_SOCK="$DOCKER_DIR/sock"
	dockerd --data-root "$DOCKER_DIR/data" --exec-root "$DOCKER_DIR/exec" \
		--pidfile "$DOCKER_DIR/pid" -H "unix://$DOCKER_SOCK" --bridge=none \
		--iptables=false --ip6tables=false --ip-forward=false --ip-masq=false \
		--userland-proxy=false >"$DOCKER_DIR/log" 2>&1 &
	DOCKERD_PID=$!
	at_exit docker_stop
	_ds_end=$(($(date +%s) + 60))
	until [ "$(docker_api GET /_ping 2>/dev/null)" = OK ]; do
		if ! kill -0 "$DOCKERD_PID" 2>/dev/null || [ "$(date +%s)" -gt "$_ds_end" ]; then
			echo "dockerd did not start; its log:" >&2
			tail -5 "$DOCKER_DIR/log" >&2
			return 1
		fi
		sleep 0.2
	done
	_ds_tag=$(basename "$_ds_tar" .tar | sed 's/^docker-node-//')
	# no ':TAG' in the URL (tests/helper/cloud-drive splits its items at
	# ':'): the key is in the name, the tag is 'latest'
	DOCKER_IMAGE="docker://imc-test-node-$_ds_tag"
	docker_api POST "/images/create?fromSrc=-&repo=imc-test-node-$_ds_tag&tag=latest" \
		-H 'Content-Type: application/x-tar' --data-binary "@$_ds_tar" >"$DOCKER_DIR/import" 2>&1
	if grep -q '"error' "$DOCKER_DIR/import" || [ "$(docker_api GET "/images/imc-test-node-$_ds_tag:latest/json" -o /dev/null -w '%{http_code}')" != 200 ]; then
		echo "cannot import the node image: $(head -c 300 "$DOCKER_DIR/import")" >&2
		return 1
	fi
	DOCKER_AUTH="id = docker; type = Docker; host = unix://$DOCKER_SOCK"
}

# Stops the daemon this file started, by its PID, waiting with a deadline;
# its networks go first (dockerd leaves the bridges of user networks).
docker_stop() {
	[ -n "${DOCKERD_PID:-}" ] || return 0
	if kill -0 "$DOCKERD_PID" 2>/dev/null; then
		for _dx_c in $(docker_api GET '/containers/json?all=1' 2>/dev/null | grep -o '"Id":"[0-9a-f]*"' | cut -d'"' -f4); do
			docker_api DELETE "/containers/$_dx_c?force=1&v=1" >/dev/null 2>&1
		done
		for _dx_n in $(docker_api GET '/networks' 2>/dev/null | grep -o '"Name":"imc-[^"]*"' | cut -d'"' -f4); do
			docker_api DELETE "/networks/$_dx_n" >/dev/null 2>&1
		done
		kill "$DOCKERD_PID" 2>/dev/null
		_dx_end=$(($(date +%s) + 60))
		while kill -0 "$DOCKERD_PID" 2>/dev/null && [ "$(date +%s)" -le "$_dx_end" ]; do
			sleep 0.2
		done
		kill -0 "$DOCKERD_PID" 2>/dev/null && kill -KILL "$DOCKERD_PID" 2>/dev/null
		wait "$DOCKERD_PID" 2>/dev/null
	fi
	DOCKERD_PID=""
	# its overlay mounts, if the daemon could not unmount them
	grep -o " $DOCKER_DIR/[^ ]*" /proc/self/mounts | sort -r | while read -r _dx_m; do umount -l "$_dx_m"; done
	rm -rf "$DOCKER_DIR"
}

docker_left() {
	_dl_f=$(printf '{"label":["org.imc.infra=%s"]}' "$1" | sed 's/{/%7B/g; s/}/%7D/g; s/"/%22/g; s/\[/%5B/g; s/\]/%5D/g; s/=/%3D/g; s/:/%3A/g')
	docker_api GET "/containers/json?all=1&filters=$_dl_f" | grep -o '"Id":"[0-9a-f]*"' | sed 's/^/container /'
	docker_api GET "/volumes?filters=$_dl_f" | grep -o '"Name":"[^"]*"' | sed 's/^/volume /'
	docker_api GET "/networks?filters=$_dl_f" | grep -o '"Id":"[0-9a-f]*"' | sed 's/^/network /'
	true
}
