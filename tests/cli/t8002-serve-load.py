# t8002-serve-load.py URL AUTH RADL X OUT [writers]: 50 clients of imc serve
# listing infrastructures and reading each one's state and VMs, while (with
# "writers") two synchronous creates and the destroy of infrastructure X
# run. Every answer is checked for its status and shape; the summary (JSON)
# goes to OUT. A reader may see X vanish (404) once its destroy has begun;
# any other answer but 200 is an error.
import json
import re
import sys
import threading

import requests

url, auth, radl_path, X, out = sys.argv[1:6]
writers = len(sys.argv) > 6 and sys.argv[6] == "writers"
READERS, ROUNDS = 50, 10
UUID = re.compile(r"^" + re.escape(url) + r"/infrastructures/([0-9a-f-]{36})$")
STATES = {"pending", "running", "configured", "unconfigured", "stopped", "off", "failed", "unknown", "deleting"}
H = {"Authorization": auth}
lock = threading.Lock()
errors, seen = [], set()
count = [0]
destroy_started = threading.Event()
go = threading.Event()
started = threading.Barrier(READERS + 1)


def error(msg):
    with lock:
        errors.append(msg)


def get(s, path, **kw):
    r = s.get(url + path, headers=dict(H, **kw), timeout=120)
    with lock:
        count[0] += 1
    return r


def vanished(i, r):
    # X, once its destroy has begun: IM's 404 for a deleted infrastructure
    return i == X and destroy_started.is_set() and r.status_code == 404


def read_one(s, i):
    r = get(s, "/infrastructures/%s/state" % i)
    if vanished(i, r):
        return
    if r.status_code != 200 or r.headers.get("Content-Type") != "application/json":
        return error("state %s: %d %s %r" % (i, r.status_code, r.headers.get("Content-Type"), r.text[:200]))
    st = r.json()["state"]
    if st["state"] not in STATES or any(v not in STATES for v in st["vm_states"].values()):
        error("state %s: %r" % (i, st))
    r = get(s, "/infrastructures/%s" % i)
    if vanished(i, r):
        return
    if r.status_code != 200:
        return error("vms %s: %d %r" % (i, r.status_code, r.text[:200]))
    for line in r.text.splitlines():
        if not re.match(r"^" + re.escape(url) + "/infrastructures/" + i + r"/vms/[0-9]+$", line):
            error("vms %s: line %r" % (i, line))


def reader(n):
    try:
        read_all(n)
    except Exception as e:
        error("reader %d: %r" % (n, e))


def read_all(n):
    s = requests.Session()
    started.wait()
    rounds = 0
    while rounds < ROUNDS or not go.is_set():
        json_list = (n + rounds) % 2 == 0
        r = get(s, "/infrastructures", **({"Accept": "application/json"} if json_list else {}))
        if r.status_code != 200:
            error("list: %d %r" % (r.status_code, r.text[:200]))
        elif json_list:
            ids = [UUID.match(u["uri"]).group(1) if UUID.match(u["uri"]) else error("uri %r" % u) for u in r.json()["uri-list"]]
        else:
            ids = [UUID.match(l).group(1) if UUID.match(l) else error("line %r" % l) for l in r.text.splitlines()]
        for i in ids if r.status_code == 200 else []:
            if i:
                with lock:
                    seen.add(i)
                read_one(s, i)
        rounds += 1


def create(res, k):
    try:
        r = requests.post(url + "/infrastructures", headers=dict(H, **{"Content-Type": "text/plain"}),
                          data=open(radl_path, "rb").read(), timeout=300)
    except Exception as e:
        return error("create: %r" % e)
    m = UUID.match(r.text.strip())
    if r.status_code != 200 or not m:
        error("create: %d %r" % (r.status_code, r.text[:300]))
    else:
        res[k] = m.group(1)


def destroy():
    destroy_started.set()
    try:
        r = requests.delete(url + "/infrastructures/" + X, headers=H, timeout=300)
    except Exception as e:
        return error("destroy: %r" % e)
    if r.status_code != 200:
        error("destroy: %d %r" % (r.status_code, r.text[:300]))


threads = [threading.Thread(target=reader, args=(n,)) for n in range(READERS)]
for t in threads:
    t.start()
started.wait()
created = {}
if writers:
    w = [threading.Thread(target=create, args=(created, k)) for k in ("c1", "c2")]
    w.append(threading.Thread(target=destroy))
    for t in w:
        t.start()
    for t in w:
        t.join()
go.set()
for t in threads:
    t.join()
json.dump({"requests": count[0], "errors": errors, "created": created, "seen": sorted(seen)}, open(out, "w"))
