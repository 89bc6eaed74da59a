#!/usr/bin/env python3
"""openstack-fake.py: a stateful local OpenStack (Keystone v3, Nova, Neutron,
Glance) for imc's tests (python3 stdlib only). Every answer is one of the
recorded bodies in tests/vectors/openstack, parsed and re-emitted with only
the identifying fields rewritten (ids, names, addresses, status) so that it
describes what the test made; errors use the recorded error shapes (Nova's
{"itemNotFound": {...}}, Keystone's {"error": {...}}) with their code and
message, and Neutron's {"NeutronError": {"type", "message", "detail"}}.

One port serves every service under its own root, as the catalog of the
Keystone token says: /identity/v3, /compute/v2.1, /network (v2.0), /image
(v2). Tokens are checked on every service request (401 without a valid one).

State, as the real services keep it:
- a server is BUILD for --build-polls GETs, then ACTIVE (or ERROR with a
  fault, for the Nth create named by --error-server N); os-stop makes it
  SHUTOFF and os-start ACTIVE after one GET; DELETE keeps it ACTIVE with
  task_state "deleting" for --delete-polls GETs, then it is gone with its
  port;
- a server has one port on the first (internal) network; a floating IP
  associated with that port shows in the server's addresses as
  OS-EXT-IPS:type "floating"; when the server goes, its floating IPs are
  disassociated but stay allocated (Neutron's behaviour);
- a security group used by a live server's port refuses DELETE with 409
  SecurityGroupInUse; a duplicate rule is 409 SecurityGroupRuleExists;
- a key pair name is unique (409 on a second import).

Faults: --inject METHOD:PATHRE:STATUS[:COUNT[:OPTS]] answers COUNT requests
whose method and service path (e.g. /compute/v2.1/servers) match with that
status (429 and 413 carry Retry-After: 1 and Nova's overLimit body, 5xx
computeFault); OPTS 'after': the request is carried out first and its
answer lost. --token-uses N: a token is valid for N service requests, then
401 (expired), so the client must authenticate again. --page-size N:
/servers/detail answers in pages with a servers_links "next".

Test control (not OpenStack, not logged): POST /imc-test/seed with
{"servers": [{"metadata": {...}, "name": N, "floating_ip": DESC|null}],
"floatingips": [{"description": D}]} creates resources (as a crashed client
would have left them); POST /imc-test/inject adds an --inject spec.

Output: the port on stdout (then stdout is closed); a JSON line per request
in --log ({"seq", "method", "path", "status", "body"}; the Keystone body is
logged without its password); the state in --state after every request:
{"servers": [...live], "floatingips": [...], "security_groups": [...names],
"key_pairs": [...], "servers_created": N, "tokens": [every token handed
out]}.
"""
import argparse
import copy
import http.server
import json
import os
import re
import sys
import threading
import urllib.parse
import uuid


def load(vec, rel):
    with open(os.path.join(vec, rel)) as f:
        return json.load(f)


class Cloud:
    def __init__(self, args):
        self.args = args
        v = args.vectors
        self.t_token = load(v, "keystone/responses/project-scoped-password.json")
        self.t_unauth = load(v, "libcloud-fixtures/openstack/_v3__auth_unauthorized.json")
        self.t_notfound = load(v, "libcloud-fixtures/openstack_v1.1/_os_keypairs_not_found.json")
        self.flavors = load(v, "nova/flavors/flavors-detail-resp.json")
        self.t_server = load(v, "nova/servers/server-get-resp.json")["server"]
        self.t_create = load(v, "nova/servers/server-create-resp.json")
        self.t_details = load(v, "nova/servers/servers-details-resp.json")
        self.t_key = load(v, "nova/os-keypairs/keypairs-import-post-resp.json")["keypair"]
        self.images = load(v, "glance/images-list-response.json")
        self.t_image = load(v, "glance/image-show-response.json")
        nets = load(v, "neutron/networks/networks-list-response.json")
        # the first recorded network is the project's internal one; the
        # second is made the external one (the floating IP pool)
        self.networks = nets["networks"][:2]
        self.networks[1]["router:external"] = True
        self.t_port = load(v, "neutron/ports/ports-list-response.json")["ports"][0]
        self.t_fip = load(v, "neutron/floatingips/floatingip-create-response.json")["floatingip"]
        self.t_sg = load(v, "neutron/security-groups/security-group-create-response.json")["security_group"]
        self.t_rule = load(v, "neutron/security-groups/security-group-rule-create-response.json")["security_group_rule"]
        self.tokens = {}
        self.servers = {}
        self.ports = {}
        self.fips = {}
        self.sgs = {}
        self.keys = {}
        self.created = 0
        self.next_ip = 10
        self.next_fip = 10
        self.injections = []
        for spec in args.inject or []:
            self.inject(spec)

    def inject(self, spec):
        parts = spec.split(":")
        opts = parts[4].split(",") if len(parts) > 4 else []
        self.injections.append({"method": parts[0], "path": re.compile(parts[1]),
                                "status": int(parts[2]),
                                "count": int(parts[3]) if len(parts) > 3 and parts[3] else 1,
                                "after": "after" in opts})

    # ---- replies ----
    def nova_error(self, status, fault, message):
        return status, {fault: {"code": status, "message": message}}

    def neutron_error(self, status, typ, message):
        return status, {"NeutronError": {"type": typ, "message": message, "detail": ""}}

    def not_found(self, what):
        body = copy.deepcopy(self.t_notfound)
        body["itemNotFound"]["message"] = "%s could not be found." % what
        return 404, body

    def state(self):
        return {
            "servers": sorted(s["id"] for s in self.servers.values()),
            "server_metadata": [s["metadata"] for s in self.servers.values()],
            "floatingips": sorted("%s %s" % (f["floating_ip_address"], f["description"])
                                  for f in self.fips.values()),
            "security_groups": sorted(g["name"] for g in self.sgs.values()),
            "key_pairs": sorted(self.keys),
            "servers_created": self.created,
            "tokens": sorted(self.tokens),
        }

    # ---- keystone ----
    def auth(self, body, base):
        try:
            ident = body["auth"]["identity"]
            user = ident["password"]["user"]
            scope = body["auth"]["scope"]["project"]
            ok = (ident["methods"] == ["password"] and user["name"] == self.args.user
                  and user["password"] == self.args.password
                  and user["domain"]["name"] == self.args.domain
                  and scope["name"] == self.args.project
                  and scope["domain"]["name"] == self.args.domain)
        except (KeyError, TypeError):
            ok = False
        if not ok:
            return 401, copy.deepcopy(self.t_unauth), {}
        tok = uuid.uuid4().hex
        self.tokens[tok] = self.args.token_uses
        reply = copy.deepcopy(self.t_token)
        t = reply["token"]
        t["project"]["name"] = self.args.project
        t["user"]["name"] = self.args.user
        ident = t["catalog"][0]
        cat = [ident]
        for typ, name, root in (("compute", "nova", "/compute/v2.1"), ("network", "neutron", "/network"),
                                ("image", "glance", "/image")):
            svc = copy.deepcopy(ident)
            svc["type"], svc["name"], svc["id"] = typ, name, uuid.uuid4().hex
            for ep in svc["endpoints"]:
                ep["url"] = base + root
                ep["region"] = ep["region_id"] = self.args.region
            cat.append(svc)
        for ep in ident["endpoints"]:
            ep["url"] = base + "/identity"
            ep["region"] = ep["region_id"] = self.args.region
        t["catalog"] = cat
        return 201, reply, {"X-Subject-Token": tok}

    def token_ok(self, tok):
        left = self.tokens.get(tok)
        if left is None:
            return False
        if left == 0:
            return False
        if left > 0:
            self.tokens[tok] = left - 1
        return True

    # ---- nova ----
    def server_view(self, s):
        v = copy.deepcopy(self.t_server)
        v["id"], v["name"], v["metadata"] = s["id"], s["name"], s["metadata"]
        v["status"] = s["status"]
        v["OS-EXT-STS:vm_state"] = {"ACTIVE": "active", "BUILD": "building", "SHUTOFF": "stopped",
                                    "ERROR": "error"}.get(s["status"], "active")
        v["OS-EXT-STS:task_state"] = "deleting" if s.get("deleting") is not None else None
        v["flavor"]["id"] = s["flavor"]
        v["image"]["id"] = s["image"]
        v["key_name"] = s["key_name"]
        v["security_groups"] = [{"name": g} for g in s["groups"]]
        for link in v["links"]:
            link["href"] = re.sub(r"servers/[^/]+$", "servers/" + s["id"], link["href"])
        addr = copy.deepcopy(v["addresses"]["private"][0])
        addr["addr"] = s["ip"]
        addrs = [addr]
        for f in self.fips.values():
            if f["port_id"] == s["port"]:
                fl = copy.deepcopy(addr)
                fl["addr"], fl["OS-EXT-IPS:type"] = f["floating_ip_address"], "floating"
                addrs.append(fl)
        v["addresses"] = {self.networks[0]["name"]: addrs}
        if s["status"] == "ERROR":
            # Nova's server fault (api-ref "Show Server Details"): not in the
            # recorded samples, which show no failed server with its fault
            v["fault"] = {"code": 500, "created": v["updated"], "message": "No valid host was found."}
        return v

    def make_server(self, name, image, flavor, key, groups, metadata):
        self.created += 1
        sid = str(uuid.uuid4())
        pid = str(uuid.uuid4())
        ip = "10.0.0.%d" % self.next_ip
        self.next_ip += 1
        error = self.args.error_server and self.created == self.args.error_server
        self.servers[sid] = {"id": sid, "name": name, "image": image, "flavor": flavor,
                             "key_name": key, "groups": groups, "metadata": metadata,
                             "status": "BUILD", "polls": 0, "error": bool(error),
                             "port": pid, "ip": ip}
        self.ports[pid] = {"id": pid, "device_id": sid, "ip": ip, "groups": groups}
        return sid

    def poll(self, s):
        """One GET of a server moves it along."""
        if s.get("deleting") is not None:
            if s["deleting"] <= 0:
                self.drop_server(s)
                return None
            s["deleting"] -= 1
            return s
        if s["status"] == "BUILD":
            s["polls"] += 1
            if s["polls"] > self.args.build_polls:
                s["status"] = "ERROR" if s["error"] else "ACTIVE"
        elif s.get("next"):
            s["status"], s["next"] = s["next"], None
        return s

    def drop_server(self, s):
        del self.servers[s["id"]]
        self.ports.pop(s["port"], None)
        for f in self.fips.values():
            if f["port_id"] == s["port"]:
                f["port_id"] = f["fixed_ip_address"] = None
                f["status"] = "DOWN"

    def group_ids(self, names):
        out = []
        for n in names:
            g = next((g for g in self.sgs.values() if g["id"] == n or g["name"] == n), None)
            if g is None:
                return None
            out.append(g["id"])
        return out

    def compute(self, method, path, q, body):
        if method == "GET" and path == "/flavors/detail":
            return 200, copy.deepcopy(self.flavors)
        if path == "/os-keypairs" and method == "POST":
            kp = body["keypair"]
            if kp["name"] in self.keys:
                return self.nova_error(409, "conflictingRequest",
                                       "Key pair '%s' already exists." % kp["name"])
            self.keys[kp["name"]] = kp["public_key"]
            v = copy.deepcopy(self.t_key)
            v["name"], v["public_key"] = kp["name"], kp["public_key"]
            return 200, {"keypair": v}
        m = re.fullmatch(r"/os-keypairs/([^/]+)", path)
        if m and method == "DELETE":
            name = urllib.parse.unquote(m.group(1))
            if name not in self.keys:
                return self.not_found("Keypair %s" % name)
            del self.keys[name]
            return 202, None
        if path == "/servers" and method == "POST":
            s = body["server"]
            groups = self.group_ids([g["name"] for g in s.get("security_groups", [])])
            if groups is None:
                return self.nova_error(400, "badRequest", "Security group not found")
            if not any(i["id"] == s["imageRef"] for i in self.images["images"]):
                return self.nova_error(400, "badRequest", "Can not find requested image")
            if not any(f["id"] == s["flavorRef"] for f in self.flavors["flavors"]):
                return self.nova_error(400, "badRequest", "Flavor could not be found")
            if s.get("key_name") and s["key_name"] not in self.keys:
                return self.nova_error(400, "badRequest", "Invalid key_name provided.")
            if [n.get("uuid") for n in s.get("networks", [])] != [self.networks[0]["id"]]:
                return self.nova_error(400, "badRequest", "Network not found")
            sid = self.make_server(s["name"], s["imageRef"], s["flavorRef"], s.get("key_name"),
                                   groups, s.get("metadata", {}))
            v = copy.deepcopy(self.t_create)
            v["server"]["id"] = sid
            v["server"]["security_groups"] = [{"name": g} for g in groups]
            return 202, v
        if path == "/servers/detail" and method == "GET":
            live = [s for s in list(self.servers.values()) if self.poll(s)]
            start = 0
            if q.get("marker"):
                ids = [s["id"] for s in live]
                start = ids.index(q["marker"]) + 1 if q["marker"] in ids else len(live)
            size = self.args.page_size or len(live) or 1
            page = live[start:start + size]
            out = {"servers": [self.server_view(s) for s in page]}
            if start + size < len(live):
                link = copy.deepcopy(self.t_details["servers_links"][0])
                link["href"] = "%s/compute/v2.1/servers/detail?limit=%d&marker=%s" % (
                    self.base, size, page[-1]["id"])
                out["servers_links"] = [link]
            return 200, out
        m = re.fullmatch(r"/servers/([^/]+)(/action)?", path)
        if m:
            s = self.servers.get(m.group(1))
            if s is None:
                return self.not_found("Instance %s" % m.group(1))
            if method == "GET" and not m.group(2):
                s = self.poll(s)
                if s is None:
                    return self.not_found("Instance %s" % m.group(1))
                return 200, {"server": self.server_view(s)}
            if method == "DELETE" and not m.group(2):
                if s.get("deleting") is None:
                    s["deleting"] = self.args.delete_polls
                return 204, None
            if method == "POST" and m.group(2):
                if "os-stop" in body:
                    if s["status"] != "ACTIVE":
                        return self.nova_error(409, "conflictingRequest",
                                               "Cannot 'stop' instance while it is in vm_state %s" % s["status"])
                    s["next"] = "SHUTOFF"
                elif "os-start" in body:
                    if s["status"] != "SHUTOFF":
                        return self.nova_error(409, "conflictingRequest",
                                               "Cannot 'start' instance while it is in vm_state %s" % s["status"])
                    s["next"] = "ACTIVE"
                elif "reboot" in body:
                    pass
                else:
                    return self.nova_error(400, "badRequest", "Unsupported action")
                return 202, None
        return self.nova_error(404, "itemNotFound", "no such compute resource %s %s" % (method, path))

    # ---- neutron ----
    def sg_view(self, g):
        v = copy.deepcopy(self.t_sg)
        v["id"], v["name"], v["description"] = g["id"], g["name"], g["description"]
        rules = []
        for r in g["rules"]:
            rv = copy.deepcopy(self.t_rule)
            rv.update(r)
            rules.append(rv)
        v["security_group_rules"] = rules
        return v

    def fip_view(self, f):
        v = copy.deepcopy(self.t_fip)
        v.update({k: f[k] for k in ("id", "floating_ip_address", "fixed_ip_address", "port_id",
                                     "description", "status", "floating_network_id")})
        return v

    def new_fip(self, desc, port):
        fid = str(uuid.uuid4())
        f = {"id": fid, "floating_ip_address": "172.24.4.%d" % self.next_fip,
             "fixed_ip_address": self.ports[port]["ip"] if port else None, "port_id": port,
             "description": desc, "status": "ACTIVE" if port else "DOWN",
             "floating_network_id": self.networks[1]["id"]}
        self.next_fip += 1
        self.fips[fid] = f
        return f

    def network(self, method, path, q, body):
        if not path.startswith("/v2.0/"):
            return self.neutron_error(404, "HTTPNotFound", "no such path %s" % path)
        path = path[5:]
        if path == "/networks" and method == "GET":
            return 200, {"networks": copy.deepcopy(self.networks)}
        if path == "/ports" and method == "GET":
            out = []
            for p in self.ports.values():
                if q.get("device_id") and p["device_id"] != q["device_id"]:
                    continue
                v = copy.deepcopy(self.t_port)
                v["id"], v["device_id"], v["device_owner"] = p["id"], p["device_id"], "compute:nova"
                v["network_id"] = self.networks[0]["id"]
                v["fixed_ips"] = [{"ip_address": p["ip"], "subnet_id": self.networks[0]["subnets"][0]}]
                v["security_groups"] = p["groups"]
                out.append(v)
            return 200, {"ports": out}
        if path == "/floatingips" and method == "GET":
            return 200, {"floatingips": [self.fip_view(f) for f in self.fips.values()]}
        if path == "/floatingips" and method == "POST":
            f = body["floatingip"]
            if f.get("floating_network_id") != self.networks[1]["id"]:
                return self.neutron_error(400, "BadRequest", "floating_network_id is not external")
            port = f.get("port_id")
            if port and port not in self.ports:
                return self.neutron_error(404, "PortNotFound", "Port %s could not be found." % port)
            return 201, {"floatingip": self.fip_view(self.new_fip(f.get("description", ""), port))}
        m = re.fullmatch(r"/floatingips/([^/]+)", path)
        if m:
            f = self.fips.get(m.group(1))
            if f is None:
                return self.neutron_error(404, "FloatingIPNotFound",
                                          "Floating IP %s could not be found" % m.group(1))
            if method == "DELETE":
                del self.fips[f["id"]]
                return 204, None
            if method == "PUT":
                port = body["floatingip"].get("port_id")
                f["port_id"] = port
                f["fixed_ip_address"] = self.ports[port]["ip"] if port in self.ports else None
                f["status"] = "ACTIVE" if port else "DOWN"
                return 200, {"floatingip": self.fip_view(f)}
        if path == "/security-groups" and method == "GET":
            gs = [g for g in self.sgs.values() if not q.get("name") or g["name"] == q["name"]]
            return 200, {"security_groups": [self.sg_view(g) for g in gs]}
        if path == "/security-groups" and method == "POST":
            g = body["security_group"]
            gid = str(uuid.uuid4())
            self.sgs[gid] = {"id": gid, "name": g["name"], "description": g.get("description", ""),
                             "rules": []}
            return 201, {"security_group": self.sg_view(self.sgs[gid])}
        m = re.fullmatch(r"/security-groups/([^/]+)", path)
        if m and method == "DELETE":
            g = self.sgs.get(m.group(1))
            if g is None:
                return self.neutron_error(404, "SecurityGroupNotFound",
                                          "Security group %s does not exist" % m.group(1))
            if any(g["id"] in p["groups"] for p in self.ports.values()):
                return self.neutron_error(409, "SecurityGroupInUse",
                                          "Security Group %s in use." % g["id"])
            del self.sgs[g["id"]]
            return 204, None
        if path == "/security-group-rules" and method == "POST":
            r = body["security_group_rule"]
            g = self.sgs.get(r.get("security_group_id"))
            if g is None:
                return self.neutron_error(404, "SecurityGroupNotFound", "Security group not found")
            keys = ("direction", "ethertype", "protocol", "port_range_min", "port_range_max",
                    "remote_ip_prefix", "remote_group_id")
            rule = {k: r.get(k) for k in keys}
            if any(all(x.get(k) == rule[k] for k in keys) for x in g["rules"]):
                return self.neutron_error(409, "SecurityGroupRuleExists",
                                          "Security group rule already exists.")
            rule["id"] = str(uuid.uuid4())
            rule["security_group_id"] = g["id"]
            g["rules"].append(rule)
            rv = copy.deepcopy(self.t_rule)
            rv.update(rule)
            return 201, {"security_group_rule": rv}
        return self.neutron_error(404, "HTTPNotFound", "no such network resource %s %s" % (method, path))

    # ---- glance ----
    def image(self, method, path, q, body):
        if method == "GET" and path == "/v2/images":
            out = copy.deepcopy(self.images)
            if q.get("name"):
                out["images"] = [i for i in out["images"] if i["name"] == q["name"]]
            return 200, out
        m = re.fullmatch(r"/v2/images/([^/]+)", path)
        if method == "GET" and m:
            img = next((i for i in self.images["images"] if i["id"] == m.group(1)), None)
            if img is None:
                # Glance answers 404 with a text body (no JSON error sample)
                return 404, None
            v = copy.deepcopy(self.t_image)
            v.update({"id": img["id"], "name": img["name"], "status": img["status"]})
            return 200, v
        return 404, None

    def seed(self, spec):
        made = {"servers": [], "floatingips": []}
        for s in spec.get("servers", []):
            sid = self.make_server(s.get("name", "seeded"), self.images["images"][0]["id"], "1", None,
                                   self.group_ids(s.get("groups", [])) or [], s.get("metadata", {}))
            self.servers[sid]["status"] = s.get("status", "ACTIVE")
            made["servers"].append(sid)
            if s.get("floating_ip"):
                made["floatingips"].append(self.new_fip(s["floating_ip"], self.servers[sid]["port"])["id"])
        for f in spec.get("floatingips", []):
            made["floatingips"].append(self.new_fip(f["description"], None)["id"])
        return made


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send(self, status, body, headers=None):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if data:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self, method):
        srv = self.server
        n = int(self.headers.get("Content-Length", "0") or 0)
        raw = self.rfile.read(n) if n else b""
        url = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(url.query))
        with srv.lock:
            cloud = srv.cloud
            cloud.base = "http://127.0.0.1:%d" % srv.server_address[1]
            if url.path.startswith("/imc-test/"):
                spec = raw.decode()
                if url.path == "/imc-test/inject":
                    cloud.inject(spec.strip())
                    out = {}
                else:
                    out = cloud.seed(json.loads(spec))
                self.write_state()
                return self.send(200, out)
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            srv.seq += 1
            entry = {"seq": srv.seq, "method": method, "path": self.path}
            headers = {}
            status, reply = self.route(method, url.path, q, body, raw, entry, headers)
            entry["status"] = status
            with open(srv.args.log, "a") as f:
                f.write(json.dumps(entry) + "\n")
            self.write_state()
        self.send(status, reply, headers)

    def write_state(self):
        srv = self.server
        with open(srv.args.state + ".tmp", "w") as f:
            json.dump(srv.cloud.state(), f)
        os.replace(srv.args.state + ".tmp", srv.args.state)

    def route(self, method, path, q, body, raw, entry, headers):
        cloud = self.server.cloud
        if raw and body is None:
            entry["violation"] = "body is not JSON"
            return cloud.nova_error(400, "badRequest", "Malformed request body")
        if path == "/identity/v3/auth/tokens" and method == "POST":
            logged = copy.deepcopy(body)
            try:
                logged["auth"]["identity"]["password"]["user"]["password"] = "(not logged)"
            except (KeyError, TypeError):
                pass
            entry["body"] = logged
            status, reply, hdr = cloud.auth(body or {}, cloud.base)
            headers.update(hdr)
            return status, reply
        entry["body"] = body
        if self.headers.get("Content-Type") not in (None, "application/json") and raw:
            entry["violation"] = "Content-Type is %s" % self.headers.get("Content-Type")
        if not cloud.token_ok(self.headers.get("X-Auth-Token", "")):
            return 401, copy.deepcopy(cloud.t_unauth)
        inj = next((i for i in cloud.injections
                    if i["count"] > 0 and i["method"] == method and i["path"].search(path)), None)
        if inj and not inj["after"]:
            inj["count"] -= 1
            entry["injected"] = inj["status"]
            return self.injected(inj, headers)
        for root, fn in (("/compute/v2.1", cloud.compute), ("/network", cloud.network),
                         ("/image", cloud.image)):
            if path.startswith(root + "/"):
                try:
                    status, reply = fn(method, path[len(root):], q, body)
                except (KeyError, TypeError, AttributeError) as e:
                    entry["violation"] = "malformed request: %r" % e
                    status, reply = cloud.nova_error(400, "badRequest", "Malformed request: %r" % e)
                break
        else:
            status, reply = cloud.nova_error(404, "itemNotFound", "no such service %s" % path)
        if inj:
            inj["count"] -= 1
            entry["injected"] = "%d (after)" % inj["status"]
            return self.injected(inj, headers)
        return status, reply

    def injected(self, inj, headers):
        cloud = self.server.cloud
        if inj["status"] in (413, 429):
            headers["Retry-After"] = "1"
            return cloud.nova_error(inj["status"], "overLimit", "This request was rate-limited.")
        if inj["status"] >= 500:
            return cloud.nova_error(inj["status"], "computeFault",
                                    "The server has either erred or is incapable of performing the requested operation.")
        return cloud.nova_error(inj["status"], "badRequest", "injected by the test")

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_DELETE(self):
        self.handle_any("DELETE")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--state", required=True)
    ap.add_argument("--user", required=True)
    ap.add_argument("--password", required=True)
    ap.add_argument("--project", required=True)
    ap.add_argument("--domain", default="Default")
    ap.add_argument("--region", default="RegionOne")
    ap.add_argument("--inject", action="append")
    ap.add_argument("--build-polls", type=int, default=1)
    ap.add_argument("--delete-polls", type=int, default=1)
    ap.add_argument("--error-server", type=int, default=0)
    ap.add_argument("--token-uses", type=int, default=-1)
    ap.add_argument("--page-size", type=int, default=0)
    args = ap.parse_args()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.lock = threading.Lock()
    srv.cloud = Cloud(args)
    srv.cloud.base = "http://127.0.0.1:%d" % srv.server_address[1]
    srv.seq = 0
    srv.args = args
    with open(args.state, "w") as f:
        json.dump(srv.cloud.state(), f)
    sys.stdout.write("%d\n" % srv.server_address[1])
    sys.stdout.flush()
    sys.stdout.close()
    os.close(1)
    srv.serve_forever()


if __name__ == "__main__":
    main()
