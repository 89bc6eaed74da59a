#!/usr/bin/env python3
"""ec2-endpoint.py: a local EC2 Query API endpoint for imc's tests (python3
stdlib only). It answers from the recorded responses in
tests/vectors/ec2 and never makes up a reply format:

- every reply is one of the recorded response files, parsed and re-emitted
  with only the identifying fields rewritten so that it describes the
  resources the test created (instanceId, instanceState, addresses, groupId,
  keyName, ...); the instance ids and addresses handed out are the ones in
  the recorded DescribeInstances files;
- error replies use the recorded error document (errors/*.xml) with the code
  and message replaced;
- every request is checked against the EC2 model subset
  (model/ec2-2016-11-15.service-2.subset.json): the Action must be one of
  its operations, the Version 2016-11-15, every parameter a member of the
  operation's input shape serialized by the ec2 protocol rules (queryName,
  else capitalised locationName, else the member name; lists flattened and
  1-based), values of the right type, required members present; and its
  SigV4 signature is recomputed (stdlib hmac) with the planted keys. A
  request that breaks any rule is answered 400 "ImcTestViolation" and
  recorded in the log, so a test fails on it.

It is stateful, as EC2 is: instances move pending -> running and
shutting-down -> terminated (stopping -> stopped) over DescribeInstances
polls (--terminate-polls N: N polls in shutting-down); a security group
refuses DeleteSecurityGroup with DependencyViolation while an instance
using it is not terminated (--eni-linger N: and N more times after, as a
terminated instance's network interface lingers); elastic IPs are
disassociated when their instance terminates; DescribeInstances and
DescribeSecurityGroups answer in pages of --page-size items with a
nextToken (the model's DescribeInstancesResult/NextToken, locationName
nextToken) that the client must follow.

ModifyInstanceAttribute is not in the recorded model subset: its input
(InstanceId, InstanceType.Value) and its reply (requestId, return) are
those of AWS's EC2 API reference; SUPPLEMENT below holds that minimal
model, and the reply is the recorded RebootInstances document (the same
requestId/return shape) under its own root name.

Hooks: --inject ACTION:CODE:STATUS[:COUNT[:OPTS]] answers COUNT calls of
ACTION with that error (before acting); OPTS, comma-separated: 'after'
(the action is carried out and the reply is lost, as with a dropped
connection), 'from=N' (start at the Nth call of ACTION, 1-based);
--not-found-first N answers the first N DescribeInstances naming a new
instance with InvalidInstanceID.NotFound (eventual consistency);
--hang ACTION[:N] carries out the Nth ACTION and never answers it, after
writing a line to --hang-fifo (so a test can kill the client mid-call).

Test control (not EC2, not logged): POST /imc-test/inject with an --inject
spec as body adds an injection (from=N counted from then on); POST
/imc-test/seed with a JSON body
{"region": R, "instances": [{"tags": {...}, "state": S, "groups": [NAME],
"type": T}], "groups": [{"name": N, "tags": {...}}], "keys": [{"name": N,
"tags": {...}}], "addresses": [{"tags": {...}, "instance": N}]} creates
resources (as a crashed client or another user would have left them) and
answers with their ids as JSON.

Output: the port on stdout (then stdout is closed), a JSON line per request
in --log (in the order served, numbered by "seq"), and the resources left (instances not
terminated, groups, key pairs, addresses; and every instance with its state,
type, tags and the seq of the request during which it became terminated) in --state after every request.
"""
import argparse
import base64
import copy
import datetime
import fnmatch
import hashlib
import hmac
import http.server
import json
import os
import re
import sys
import threading
import urllib.parse
import xml.etree.ElementTree as ET

NS = "http://ec2.amazonaws.com/doc/2016-11-15/"

# ModifyInstanceAttribute, from AWS's EC2 API reference (not in the recorded
# subset): InstanceId (required), InstanceType.Value; reply requestId, return.
SUPPLEMENT = {
    "operations": {"ModifyInstanceAttribute": {"input": {"shape": "ImcModifyInstanceAttributeRequest"}}},
    "shapes": {
        "ImcModifyInstanceAttributeRequest": {
            "type": "structure", "required": ["InstanceId"],
            "members": {"InstanceId": {"shape": "String", "locationName": "instanceId"},
                        "InstanceType": {"shape": "ImcAttributeValue", "locationName": "instanceType"}}},
        "ImcAttributeValue": {"type": "structure",
                              "members": {"Value": {"shape": "String", "locationName": "value"}}},
    },
}
STATE_CODES = {"pending": 0, "running": 16, "shutting-down": 32, "terminated": 48,
               "stopping": 64, "stopped": 80}


def local(tag):
    return tag.rsplit("}", 1)[-1]


def child(el, name):
    for c in el:
        if local(c.tag) == name:
            return c
    return None


def findall_local(el, name):
    return [e for e in el.iter() if local(e.tag) == name]


class Vectors:
    def __init__(self, root):
        self.root = root
        self.resp = os.path.join(root, "responses", "api-2016-11-15")
        self.model = json.load(open(os.path.join(root, "model", "ec2-2016-11-15.service-2.subset.json")))
        self.model["operations"].update(SUPPLEMENT["operations"])
        self.model["shapes"].update(SUPPLEMENT["shapes"])
        self.pool = []  # (id, private, public) from recorded DescribeInstances
        for d in (self.resp, os.path.join(root, "responses", "older-api-versions")):
            for f in sorted(os.listdir(d)):
                if not f.startswith("DescribeInstances"):
                    continue
                for it in findall_local(ET.parse(os.path.join(d, f)).getroot(), "instancesSet"):
                    for inst in it:
                        iid = child(inst, "instanceId").text
                        priv = child(inst, "privateIpAddress")
                        pub = child(inst, "ipAddress")
                        if priv is not None and pub is not None:
                            self.pool.append((iid, priv.text, pub.text))
        ET.register_namespace("", NS)

    def load(self, name):
        return ET.parse(os.path.join(self.resp, name + ".xml")).getroot()

    def error_doc(self, code, message):
        root = ET.parse(os.path.join(self.root, "errors",
                                     "DescribeKeyPairs-Error-InvalidKeyPair.NotFound.xml")).getroot()
        findall_local(root, "Code")[0].text = code
        findall_local(root, "Message")[0].text = message
        return root


# ---- model checking -------------------------------------------------------

def query_name(name, member):
    if "queryName" in member:
        return member["queryName"]
    if "locationName" in member:
        ln = member["locationName"]
        return ln[0].upper() + ln[1:]
    return name


def check_shape(shapes, shape_name, params, path, errors):
    """params: dict of keys relative to this shape."""
    shape = shapes[shape_name]
    t = shape["type"]
    if t == "structure":
        by_qn = {query_name(n, m): (n, m) for n, m in shape["members"].items()}
        groups = {}
        for k, v in params.items():
            head, _, rest = k.partition(".")
            if head not in by_qn:
                errors.append("unknown parameter '%s%s'" % (path, k))
                continue
            groups.setdefault(head, {})[rest] = v
        for qn, sub in groups.items():
            n, m = by_qn[qn]
            check_member(shapes, m["shape"], sub, path + qn, errors)
        for req in shape.get("required", []):
            qn = query_name(req, shape["members"][req])
            if qn not in groups:
                errors.append("missing required parameter '%s%s'" % (path, qn))
        return
    errors.append("internal: check_shape on %s" % t)


def check_member(shapes, shape_name, sub, path, errors):
    shape = shapes[shape_name]
    t = shape["type"]
    if t == "structure":
        if "" in sub:
            errors.append("'%s' is a structure, not a value" % path)
            return
        check_shape(shapes, shape_name, sub, path + ".", errors)
        return
    if t == "list":
        items = {}
        for k, v in sub.items():
            idx, _, rest = k.partition(".")
            if not idx.isdigit() or int(idx) < 1:
                errors.append("list '%s' needs 1-based indexes, got '%s.%s'" % (path, path, k))
                continue
            items.setdefault(int(idx), {})[rest] = v
        if items and sorted(items) != list(range(1, len(items) + 1)):
            errors.append("list '%s' indexes are not 1..%d" % (path, len(items)))
        for i, s in items.items():
            check_member(shapes, shape["member"]["shape"], s, "%s.%d" % (path, i), errors)
        return
    if set(sub) != {""}:
        errors.append("'%s' is a %s, not a structure" % (path, t))
        return
    v = sub[""]
    if t == "integer" or t == "long":
        if not re.fullmatch(r"-?\d+", v):
            errors.append("'%s' must be an integer, got '%s'" % (path, v))
    elif t == "boolean":
        if v not in ("true", "false"):
            errors.append("'%s' must be true or false, got '%s'" % (path, v))
    elif t == "blob":
        try:
            base64.b64decode(v, validate=True)
        except Exception:
            errors.append("'%s' must be base64" % path)
    elif t == "string" and "enum" in shape and v not in shape["enum"]:
        errors.append("'%s' = '%s' is not one of the model's values" % (path, v))


# ---- SigV4 ------------------------------------------------------------------

def sigv4_check(handler, body, access, secret, token):
    authz = handler.headers.get("Authorization", "")
    m = re.fullmatch(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
                     r"SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})", authz)
    if not m:
        return "no valid SigV4 Authorization header"
    akid, date, region, service, signed, sig = m.groups()
    if akid != access:
        return "signed with another access key"
    if service != "ec2":
        return "signed for service '%s', not ec2" % service
    amzdate = handler.headers.get("X-Amz-Date", "")
    if not amzdate.startswith(date):
        return "X-Amz-Date does not match the credential scope"
    names = signed.split(";")
    if "host" not in names or "x-amz-date" not in names:
        return "host and x-amz-date must be signed"
    if token is not None:
        if "x-amz-security-token" not in names or handler.headers.get("X-Amz-Security-Token") != token:
            return "session token missing or not signed"
    canon_headers = ""
    for n in names:
        vals = handler.headers.get_all(n) or []
        if not vals:
            return "signed header '%s' was not sent" % n
        canon_headers += "%s:%s\n" % (n, ",".join(" ".join(v.split()) for v in vals))
    creq = "\n".join([handler.command, "/", "", canon_headers, signed,
                      hashlib.sha256(body).hexdigest()])
    scope = "%s/%s/%s/aws4_request" % (date, region, service)
    sts = "\n".join(["AWS4-HMAC-SHA256", amzdate, scope, hashlib.sha256(creq.encode()).hexdigest()])
    k = ("AWS4" + secret).encode()
    for part in (date, region, service, "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    if hmac.new(k, sts.encode(), hashlib.sha256).hexdigest() != sig:
        return "signature does not match"
    return None


# ---- the fake cloud ---------------------------------------------------------

class Shared:
    """What all regions share: the pool of recorded instance ids (so ids stay
    unique), group id numbering and the test's hooks."""
    def __init__(self, args):
        self.next_pool = 0
        self.next_group = 0x52e2f530  # the recorded CreateSecurityGroup id, then counting
        self.next_address = 0x602b5d01  # the recorded DescribeAddresses allocation id, then counting
        self.next_token = 1
        self.calls = {}  # action -> requests seen
        self.seq = 0     # EC2 requests served
        self.not_found_left = args.not_found_first
        self.hang_seen = 0
        self.injections = []
        for spec in args.inject or []:
            self.inject(spec)

    def inject(self, spec):
        """ACTION:CODE:STATUS[:COUNT[:OPTS]]; from=N counts the calls of
        ACTION made after the injection was set."""
        parts = spec.split(":")
        opts = parts[4].split(",") if len(parts) > 4 else []
        start = [int(o[5:]) for o in opts if o.startswith("from=")]
        self.injections.append({"action": parts[0], "code": parts[1], "status": int(parts[2]),
                                "count": int(parts[3]) if len(parts) > 3 else 1,
                                "after": "after" in opts,
                                "from": self.calls.get(parts[0], 0) + (start[0] if start else 1)})


class Cloud:
    """One region: resources are regional in EC2, and so they are here (the
    region is the one in the request's SigV4 credential scope)."""
    def __init__(self, vec, args, shared):
        self.vec = vec
        self.args = args
        self.shared = shared
        self.instances = {}   # id -> dict
        self.tokens = {}      # client token -> id
        self.groups = {}      # id -> dict
        self.keys = {}        # name -> dict
        self.addresses = {}   # allocation id -> dict
        self.pages = {}       # nextToken -> the items still to send

    # -- helpers --
    def filters(self, p):
        out = {}
        i = 1
        while "Filter.%d.Name" % i in p:
            vals = []
            j = 1
            while "Filter.%d.Value.%d" % (i, j) in p:
                vals.append(p["Filter.%d.Value.%d" % (i, j)])
                j += 1
            out[p["Filter.%d.Name" % i]] = vals
            i += 1
        return out

    def listed(self, p, prefix):
        out = []
        i = 1
        while "%s.%d" % (prefix, i) in p:
            out.append(p["%s.%d" % (prefix, i)])
            i += 1
        return out

    def tags(self, p, rtype):
        i = 1
        while "TagSpecification.%d.ResourceType" % i in p:
            if p["TagSpecification.%d.ResourceType" % i] == rtype:
                tags = {}
                j = 1
                while "TagSpecification.%d.Tag.%d.Key" % (i, j) in p:
                    tags[p["TagSpecification.%d.Tag.%d.Key" % (i, j)]] = \
                        p.get("TagSpecification.%d.Tag.%d.Value" % (i, j), "")
                    j += 1
                return tags
            i += 1
        return {}

    def match_tags(self, res_tags, flt):
        for name, vals in flt.items():
            if name.startswith("tag:") and not any(fnmatch.fnmatchcase(res_tags.get(name[4:], "\0"), v)
                                                   for v in vals):
                return False
        return True

    def paginate(self, p, items):
        """EC2's pagination: a first call computes the items, a NextToken
        call gets the rest saved with its token. Returns (page, token) or
        None for a token the endpoint never gave."""
        token = p.get("NextToken")
        if token is not None:
            if token not in self.pages:
                return None
            items = self.pages.pop(token)
        size = self.args.page_size
        if size and len(items) > size:
            tok = "imc-page-%d" % self.shared.next_token
            self.shared.next_token += 1
            self.pages[tok] = items[size:]
            return items[:size], tok
        return items, None

    def add_token(self, root, tok):
        if tok:
            ET.SubElement(root, "{%s}nextToken" % NS).text = tok
        return root

    def bad_token(self, p):
        return self.error("InvalidParameterValue", "Invalid value '%s' for nextToken" % p.get("NextToken"))

    def error(self, code, msg, status=400):
        return status, self.vec.error_doc(code, msg)

    # -- instances --
    def advance(self, inst):
        """Each DescribeInstances moves a transitional state one step on."""
        nxt = {"pending": "running", "shutting-down": "terminated", "stopping": "stopped"}
        if inst["state"] in nxt:
            if inst["state"] == "pending" and inst["polls"] < 1:
                inst["polls"] += 1
                return
            if inst["state"] == "shutting-down" and inst.get("down_polls", 0) > 0:
                inst["down_polls"] -= 1
                return
            inst["state"] = nxt[inst["state"]]
            if inst["state"] == "terminated":
                self.terminated(inst)

    def terminated(self, inst):
        """What EC2 does when an instance is gone: its elastic IPs are
        disassociated; its groups stay in use while its interface lingers."""
        inst["terminated_seq"] = self.shared.seq
        for a in self.addresses.values():
            if a.get("instance") == inst["id"]:
                a["instance"] = a["association"] = None
        for gid in inst["groups"]:
            if gid in self.groups:
                self.groups[gid]["linger"] = self.args.eni_linger

    def render_instances(self, root_name, insts, reservation_wrap):
        if reservation_wrap:
            root = self.vec.load("DescribeInstances-stopped-with-ips")
            rset = child(root, "reservationSet")
            tmpl_res = copy.deepcopy(rset[0])
            for r in list(rset):
                rset.remove(r)
            for inst in insts:
                res = copy.deepcopy(tmpl_res)
                child(res, "reservationId").text = "r-" + inst["id"][2:]
                iset = child(res, "instancesSet")
                item = iset[0]
                self.fill_instance(item, inst)
                rset.append(res)
            return root
        return root

    def fill_instance(self, item, inst):
        child(item, "instanceId").text = inst["id"]
        child(item, "imageId").text = inst["image"]
        child(item, "instanceType").text = inst["type"]
        child(item, "keyName").text = inst["key"] or ""
        st = child(item, "instanceState")
        child(st, "name").text = inst["state"]
        child(st, "code").text = str(STATE_CODES[inst["state"]])
        child(item, "clientToken").text = inst["token"]
        priv, pub = child(item, "privateIpAddress"), child(item, "ipAddress")
        show_priv = inst["state"] != "terminated"
        show_pub = inst["state"] == "running" or (inst["state"] == "pending" and False)
        priv.text = inst["private"] if show_priv else None
        pub.text = inst["public"] if show_pub else None
        if not show_priv:
            item.remove(priv)
        if not show_pub:
            item.remove(pub)
        if inst["state"] != "stopped":
            for name in ("stateReason",):
                e = child(item, name)
                if e is not None:
                    item.remove(e)
            child(item, "reason").text = None
        tagset = child(item, "tagSet")
        for k, v in inst["tags"].items():
            it = ET.SubElement(tagset, "{%s}item" % NS)
            ET.SubElement(it, "{%s}key" % NS).text = k
            ET.SubElement(it, "{%s}value" % NS).text = v
        gset = child(item, "groupSet")
        for g in list(gset):
            gset.remove(g)
        for gid in inst["groups"]:
            it = ET.SubElement(gset, "{%s}item" % NS)
            ET.SubElement(it, "{%s}groupId" % NS).text = gid
            ET.SubElement(it, "{%s}groupName" % NS).text = self.groups.get(gid, {}).get("name", "")

    def state_change(self, action, ids, new_state, allowed_from):
        file = {"TerminateInstances": "TerminateInstances", "StopInstances": "StopInstances",
                "StartInstances": "StartInstances"}[action]
        for iid in ids:
            if iid not in self.instances:
                return self.error("InvalidInstanceID.NotFound",
                                  "The instance ID '%s' does not exist" % iid)
        root = self.vec.load(file)
        iset = child(root, "instancesSet")
        tmpl = copy.deepcopy(iset[0])
        for it in list(iset):
            iset.remove(it)
        for iid in ids:
            inst = self.instances[iid]
            prev = inst["state"]
            if prev in allowed_from:
                inst["state"] = new_state
                if new_state == "shutting-down":
                    inst["down_polls"] = self.args.terminate_polls
            it = copy.deepcopy(tmpl)
            child(it, "instanceId").text = iid
            cur = child(it, "currentState")
            if cur is None:
                cur = child(it, "shutdownState")  # the recorded TerminateInstances's element
            child(cur, "name").text = inst["state"]
            child(cur, "code").text = str(STATE_CODES[inst["state"]])
            pv = child(it, "previousState")
            child(pv, "name").text = prev
            child(pv, "code").text = str(STATE_CODES[prev])
            iset.append(it)
        return 200, root

    # -- dispatcher --
    def handle(self, action, p):
        h = getattr(self, "op_" + action, None)
        if h is None:
            return self.error("ImcTestViolation", "the test endpoint does not serve %s" % action)
        return h(p)

    def op_RunInstances(self, p):
        token = p.get("ClientToken")
        if token and token in self.tokens:
            inst = self.instances[self.tokens[token]]
            if inst["image"] != p["ImageId"] or inst["type"] != p.get("InstanceType", "m1.small"):
                return self.error("IdempotentParameterMismatch",
                                  "Arguments on this idempotent request are inconsistent with arguments used in previous request(s).")
        else:
            if p.get("MinCount") != "1" or p.get("MaxCount") != "1":
                return self.error("ImcTestViolation", "the test endpoint launches one instance per call")
            if not p.get("ImageId", "").startswith("ami-"):
                return self.error("InvalidAMIID.Malformed", "Invalid id: \"%s\"" % p.get("ImageId"))
            if self.args.bad_ami and p["ImageId"] == self.args.bad_ami:
                return self.error("InvalidAMIID.NotFound", "The image id '[%s]' does not exist" % p["ImageId"])
            key = p.get("KeyName")
            if key and key not in self.keys:
                return self.error("InvalidKeyPair.NotFound", "The key pair '%s' does not exist" % key)
            groups = self.listed(p, "SecurityGroupId")
            for g in groups:
                if g not in self.groups:
                    return self.error("InvalidGroup.NotFound", "The security group '%s' does not exist" % g)
            if self.shared.next_pool >= len(self.vec.pool):
                return self.error("InsufficientInstanceCapacity",
                                  "the recorded responses hold only %d instances" % len(self.vec.pool))
            iid, priv, pub = self.vec.pool[self.shared.next_pool]
            self.shared.next_pool += 1
            inst = {"id": iid, "private": priv, "public": pub, "state": "pending", "polls": 0,
                    "image": p["ImageId"], "type": p.get("InstanceType", "m1.small"),
                    "key": key, "token": token or "", "groups": groups,
                    "tags": self.tags(p, "instance"), "new": True,
                    "disks": len(self.listed(p, "BlockDeviceMapping.1.DeviceName"))}
            self.instances[iid] = inst
            if token:
                self.tokens[token] = iid
        root = self.vec.load("RunInstances")
        item = child(child(root, "instancesSet"), "item")
        child(item, "instanceId").text = inst["id"]
        child(item, "imageId").text = inst["image"]
        child(item, "instanceType").text = inst["type"]
        child(item, "keyName").text = inst["key"] or ""
        st = child(item, "instanceState")
        child(st, "name").text = inst["state"]
        child(st, "code").text = str(STATE_CODES[inst["state"]])
        return 200, root

    def op_DescribeInstances(self, p):
        ids = self.listed(p, "InstanceId")
        flt = self.filters(p)
        for name in flt:
            if not (name.startswith("tag:") or name in ("instance-state-name", "client-token")):
                return self.error("ImcTestViolation", "the test endpoint does not filter on '%s'" % name)
        for iid in ids:
            if iid not in self.instances:
                return self.error("InvalidInstanceID.NotFound", "The instance ID '%s' does not exist" % iid)
        if ids and self.shared.not_found_left > 0 and any(self.instances[i]["new"] for i in ids):
            self.shared.not_found_left -= 1
            return self.error("InvalidInstanceID.NotFound",
                              "The instance IDs '%s' do not exist" % ", ".join(ids))
        if ids and ("NextToken" in p or "MaxResults" in p):
            return self.error("InvalidParameterCombination",
                              "The parameter instancesSet cannot be used with the parameter maxResults")
        if "NextToken" in p:
            page = self.paginate(p, [])
            if page is None:
                return self.bad_token(p)
            sel = [self.instances[i] for i in page[0]]
            return 200, self.add_token(self.render_instances("DescribeInstancesResponse", sel, True), page[1])
        sel = []
        for iid, inst in self.instances.items():
            if ids and iid not in ids:
                continue
            inst["new"] = False
            self.advance(inst)
            if not self.match_tags(inst["tags"], flt):
                continue
            if "instance-state-name" in flt and inst["state"] not in flt["instance-state-name"]:
                continue
            if "client-token" in flt and inst["token"] not in flt["client-token"]:
                continue
            sel.append(inst)
        if ids:
            return 200, self.render_instances("DescribeInstancesResponse", sel, True)
        page, tok = self.paginate(p, [i["id"] for i in sel])
        sel = [self.instances[i] for i in page]
        return 200, self.add_token(self.render_instances("DescribeInstancesResponse", sel, True), tok)

    def op_TerminateInstances(self, p):
        return self.state_change("TerminateInstances", self.listed(p, "InstanceId"), "shutting-down",
                                 ("pending", "running", "stopping", "stopped"))

    def op_StopInstances(self, p):
        return self.state_change("StopInstances", self.listed(p, "InstanceId"), "stopping",
                                 ("pending", "running"))

    def op_StartInstances(self, p):
        r = self.state_change("StartInstances", self.listed(p, "InstanceId"), "pending", ("stopped",))
        for iid in self.listed(p, "InstanceId"):
            if iid in self.instances:
                self.instances[iid]["polls"] = 0
        return r

    def op_RebootInstances(self, p):
        for iid in self.listed(p, "InstanceId"):
            if iid not in self.instances:
                return self.error("InvalidInstanceID.NotFound", "The instance ID '%s' does not exist" % iid)
        return 200, self.vec.load("RebootInstances")

    def op_DescribeImages(self, p):
        root = self.vec.load("DescribeImages-by-image-ids")
        ids = self.listed(p, "ImageId")
        items = child(root, "imagesSet")
        for it in list(items)[1:]:
            items.remove(it)
        if ids:
            child(items[0], "imageId").text = ids[0]
        return 200, root

    def op_CreateSecurityGroup(self, p):
        name = p["GroupName"]
        if any(g["name"] == name for g in self.groups.values()):
            return self.error("InvalidGroup.Duplicate", "The security group '%s' already exists" % name)
        gid = "sg-%08x" % self.shared.next_group
        self.shared.next_group += 1
        self.groups[gid] = {"name": name, "desc": p["GroupDescription"],
                            "tags": self.tags(p, "security-group"), "perms": [], "linger": 0}
        root = self.vec.load("CreateSecurityGroup")
        child(root, "groupId").text = gid
        return 200, root

    def op_DescribeSecurityGroups(self, p):
        flt = self.filters(p)
        for name in flt:
            if not (name.startswith("tag:") or name == "group-name"):
                return self.error("ImcTestViolation", "the test endpoint does not filter on '%s'" % name)
        root = self.vec.load("DescribeSecurityGroups")
        info = child(root, "securityGroupInfo")
        tmpl = copy.deepcopy(info[0])
        for it in list(info):
            info.remove(it)
        if "NextToken" in p:
            page = self.paginate(p, [])
            if page is None:
                return self.bad_token(p)
        else:
            sel = []
            for gid, g in self.groups.items():
                # EC2 filter values take * and ? wildcards
                if "group-name" in flt and not any(fnmatch.fnmatchcase(g["name"], v)
                                                   for v in flt["group-name"]):
                    continue
                if not self.match_tags(g["tags"], flt):
                    continue
                sel.append(gid)
            page = self.paginate(p, sel)
        for gid in page[0]:
            g = self.groups.get(gid)
            if g is None:
                continue
            it = copy.deepcopy(tmpl)
            child(it, "groupId").text = gid
            child(it, "groupName").text = g["name"]
            child(it, "groupDescription").text = g["desc"]
            perms = child(it, "ipPermissions")
            for x in list(perms):
                perms.remove(x)
            tagset = child(it, "tagSet")
            for k, v in g["tags"].items():
                t = ET.SubElement(tagset, "{%s}item" % NS)
                ET.SubElement(t, "{%s}key" % NS).text = k
                ET.SubElement(t, "{%s}value" % NS).text = v
            info.append(it)
        return 200, self.add_token(root, page[1])

    def op_AuthorizeSecurityGroupIngress(self, p):
        gid = p.get("GroupId")
        if gid not in self.groups:
            return self.error("InvalidGroup.NotFound", "The security group '%s' does not exist" % gid)
        perm = {k: v for k, v in p.items() if k.startswith("IpPermissions.")}
        key = json.dumps(sorted(perm.items()))
        if key in self.groups[gid]["perms"]:
            return self.error("InvalidPermission.Duplicate", "the specified rule already exists")
        self.groups[gid]["perms"].append(key)
        return 200, self.vec.load("AuthorizeSecurityGroupIngress")

    def op_DeleteSecurityGroup(self, p):
        gid = p.get("GroupId")
        if gid not in self.groups:
            return self.error("InvalidGroup.NotFound", "The security group '%s' does not exist" % gid)
        for inst in self.instances.values():
            if gid in inst["groups"] and inst["state"] != "terminated":
                return self.error("DependencyViolation",
                                  "resource %s has a dependent object" % gid)
        if self.groups[gid]["linger"] > 0:
            self.groups[gid]["linger"] -= 1
            return self.error("DependencyViolation", "resource %s has a dependent object" % gid)
        del self.groups[gid]
        return 200, self.vec.load("DeleteSecurityGroup")

    def op_ImportKeyPair(self, p):
        name = p["KeyName"]
        if name in self.keys:
            return self.error("InvalidKeyPair.Duplicate", "The keypair '%s' already exists." % name)
        material = base64.b64decode(p["PublicKeyMaterial"]).decode()
        if not material.startswith("ssh-"):
            return self.error("InvalidKey.Format", "Key is not in valid OpenSSH public key format")
        self.keys[name] = {"tags": self.tags(p, "key-pair"), "material": material}
        root = self.vec.load("ImportKeyPair")
        child(root, "keyName").text = name
        return 200, root

    def op_DeleteKeyPair(self, p):
        self.keys.pop(p.get("KeyName"), None)
        return 200, self.vec.load("DeleteKeyPair")

    def op_DescribeKeyPairs(self, p):
        flt = self.filters(p)
        for name in flt:
            if not (name.startswith("tag:") or name == "key-name"):
                return self.error("ImcTestViolation", "the test endpoint does not filter on '%s'" % name)
        names = self.listed(p, "KeyName")
        for n in names:
            if n not in self.keys:
                return self.error("InvalidKeyPair.NotFound", "The key pair '%s' does not exist" % n)
        root = self.vec.load("DescribeKeyPairs")
        ks = child(root, "keySet")
        tmpl = copy.deepcopy(ks[0])
        for it in list(ks):
            ks.remove(it)
        for name, k in self.keys.items():
            if names and name not in names:
                continue
            if "key-name" in flt and not any(fnmatch.fnmatchcase(name, v) for v in flt["key-name"]):
                continue
            if not self.match_tags(k["tags"], flt):
                continue
            it = copy.deepcopy(tmpl)
            child(it, "keyName").text = name
            tagset = ET.SubElement(it, "{%s}tagSet" % NS)
            for tk, tv in k["tags"].items():
                t = ET.SubElement(tagset, "{%s}item" % NS)
                ET.SubElement(t, "{%s}key" % NS).text = tk
                ET.SubElement(t, "{%s}value" % NS).text = tv
            ks.append(it)
        return 200, root

    # -- elastic IPs (only seeded: imc allocates none) --
    def op_DescribeAddresses(self, p):
        flt = self.filters(p)
        for name in flt:
            if not name.startswith("tag:"):
                return self.error("ImcTestViolation", "the test endpoint does not filter on '%s'" % name)
        root = self.vec.load("DescribeAddresses")
        aset = child(root, "addressesSet")
        tmpl = copy.deepcopy(aset[0])
        for it in list(aset):
            aset.remove(it)
        for aid, a in self.addresses.items():
            if not self.match_tags(a["tags"], flt):
                continue
            it = copy.deepcopy(tmpl)
            child(it, "publicIp").text = a["ip"]
            child(it, "allocationId").text = aid
            if a.get("instance"):
                child(it, "instanceId").text = a["instance"]
                child(it, "associationId").text = a["association"]
                child(it, "privateIpAddress").text = self.instances[a["instance"]]["private"]
            else:
                for name in ("instanceId", "associationId", "networkInterfaceId",
                             "networkInterfaceOwnerId", "privateIpAddress"):
                    it.remove(child(it, name))
            tagset = ET.SubElement(it, "{%s}tagSet" % NS)
            for tk, tv in a["tags"].items():
                t = ET.SubElement(tagset, "{%s}item" % NS)
                ET.SubElement(t, "{%s}key" % NS).text = tk
                ET.SubElement(t, "{%s}value" % NS).text = tv
            aset.append(it)
        return 200, root

    def op_DisassociateAddress(self, p):
        assoc = p.get("AssociationId")
        for a in self.addresses.values():
            if assoc and a.get("association") == assoc:
                a["instance"] = a["association"] = None
                return 200, self.vec.load("DisassociateAddress")
        return self.error("InvalidAssociationID.NotFound", "The association ID '%s' does not exist" % assoc)

    def op_ReleaseAddress(self, p):
        aid = p.get("AllocationId")
        if aid not in self.addresses:
            return self.error("InvalidAllocationID.NotFound", "The allocation ID '%s' does not exist" % aid)
        if self.addresses[aid].get("instance"):
            return self.error("InvalidIPAddress.InUse", "Address %s is in use." % self.addresses[aid]["ip"])
        del self.addresses[aid]
        return 200, self.vec.load("ReleaseAddress")

    def op_ModifyInstanceAttribute(self, p):
        iid = p["InstanceId"]
        if iid not in self.instances or self.instances[iid]["state"] == "terminated":
            return self.error("InvalidInstanceID.NotFound", "The instance ID '%s' does not exist" % iid)
        inst = self.instances[iid]
        if "InstanceType.Value" not in p:
            return self.error("ImcTestViolation", "the test endpoint only modifies InstanceType")
        if inst["state"] != "stopped":
            return self.error("IncorrectInstanceState",
                              "The instance '%s' is not in the 'stopped' state." % iid)
        new = p["InstanceType.Value"]
        if new in (self.args.bad_type or []):
            return self.error("InvalidInstanceAttributeValue",
                              "Value (%s) for parameter instanceType is invalid." % new)
        inst["type"] = new
        # the recorded requestId/return reply, under this action's root
        root = self.vec.load("RebootInstances")
        root.tag = "{%s}ModifyInstanceAttributeResponse" % NS
        return 200, root

    # -- test control --
    def seed(self, spec):
        made = {"instances": [], "groups": [], "keys": [], "addresses": []}
        for g in spec.get("groups", []):
            gid = "sg-%08x" % self.shared.next_group
            self.shared.next_group += 1
            self.groups[gid] = {"name": g["name"], "desc": g.get("desc", "seeded"),
                                "tags": g.get("tags", {}), "perms": [], "linger": 0}
            made["groups"].append(gid)
        for k in spec.get("keys", []):
            self.keys[k["name"]] = {"tags": k.get("tags", {}), "material": "ssh-ed25519 seeded"}
            made["keys"].append(k["name"])
        for i in spec.get("instances", []):
            if self.shared.next_pool >= len(self.vec.pool):
                raise ValueError("the recorded responses hold only %d instances" % len(self.vec.pool))
            iid, priv, pub = self.vec.pool[self.shared.next_pool]
            self.shared.next_pool += 1
            gids = [g for g, v in self.groups.items() if v["name"] in i.get("groups", [])]
            self.instances[iid] = {"id": iid, "private": priv, "public": pub,
                                   "state": i.get("state", "running"), "polls": 1,
                                   "image": i.get("image", "ami-0abc1234"), "type": i.get("type", "t3.micro"),
                                   "key": i.get("key"), "token": i.get("token", ""), "groups": gids,
                                   "tags": i.get("tags", {}), "new": False, "disks": 0}
            made["instances"].append(iid)
        for a in spec.get("addresses", []):
            aid = "eipalloc-%08x" % self.shared.next_address
            self.shared.next_address += 1
            inst = made["instances"][a["instance"]] if "instance" in a else None
            self.addresses[aid] = {"ip": "192.0.2.%d" % (len(self.addresses) + 10), "tags": a.get("tags", {}),
                                   "instance": inst,
                                   "association": "eipassoc-%s" % aid[9:] if inst else None}
            made["addresses"].append(aid)
        return made

    def leftovers(self):
        return {"instances": sorted(i for i, v in self.instances.items() if v["state"] != "terminated"),
                "security_groups": sorted(g["name"] for g in self.groups.values()),
                "key_pairs": sorted(self.keys),
                "addresses": sorted(self.addresses),
                "launched": len(self.instances),
                "all": {i: {"state": v["state"], "type": v["type"], "tags": v["tags"],
                            "terminated_seq": v.get("terminated_seq")}
                        for i, v in self.instances.items()}}


def leftovers(clouds):
    """Everything left, summed over regions, plus the per-region detail."""
    out = {"instances": [], "security_groups": [], "key_pairs": [], "addresses": [], "launched": 0,
           "all": {}, "regions": {}}
    for region, c in sorted(clouds.items()):
        left = c.leftovers()
        out["regions"][region] = left
        for k in ("instances", "security_groups", "key_pairs", "addresses"):
            out[k] += left[k]
        out["launched"] += left["launched"]
        out["all"].update(left["all"])
    return out


def write_state(srv):
    with open(srv.args.state + ".tmp", "w") as f:
        json.dump(leftovers(srv.clouds), f)
    os.replace(srv.args.state + ".tmp", srv.args.state)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, root):
        body = ET.tostring(root, encoding="UTF-8", xml_declaration=True)
        self.send_response(status)
        self.send_header("Content-Type", "text/xml;charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply(400, self.server.vec.error_doc("ImcTestViolation", "EC2 requests are POSTs"))

    def do_POST(self):
        if self.path == "/imc-test/seed":
            return self.seed()
        if self.path == "/imc-test/inject":
            spec = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode().strip()
            with self.server.lock:
                self.server.shared.inject(spec)
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with self.server.lock:
            status, root, hang = self.post()
        if hang:
            # The action was carried out; its reply never comes (the client
            # is meant to be killed meanwhile). Tell the test, then hold.
            with open(self.server.args.hang_fifo, "w") as f:
                f.write("%s\n" % hang)
            threading.Event().wait(600)
            return
        self.reply(status, root)

    def seed(self):
        srv = self.server
        spec = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        with srv.lock:
            region = spec.get("region", "us-east-1")
            cloud = srv.clouds.setdefault(region, Cloud(srv.vec, srv.args, srv.shared))
            try:
                status, made = 200, cloud.seed(spec)
            except (KeyError, ValueError, IndexError) as e:
                status, made = 400, {"error": str(e)}
            write_state(srv)
        body = json.dumps(made).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def post(self):
        srv = self.server
        args = srv.args
        m = re.search(r"Credential=[^/]+/\d{8}/([^/]+)/", self.headers.get("Authorization", ""))
        region = m.group(1) if m else "unsigned"
        cloud = srv.clouds.setdefault(region, Cloud(srv.vec, args, srv.shared))
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        violations = []
        ctype = self.headers.get("Content-Type", "")
        if not ctype.startswith("application/x-www-form-urlencoded"):
            violations.append("Content-Type is '%s'" % ctype)
        if self.path != "/":
            violations.append("path is '%s', not '/'" % self.path)
        # AWS's encoding is strict RFC 3986: never '+' for a space.
        if b"+" in body:
            violations.append("'+' in the form body (AWS wants %20)")
        pairs = urllib.parse.parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=True)
        p = {}
        for k, v in pairs:
            if k in p:
                violations.append("parameter '%s' repeated" % k)
            p[k] = v
        action = p.pop("Action", "")
        if p.pop("Version", None) != "2016-11-15":
            violations.append("Version is not 2016-11-15")
        ops = cloud.vec.model["operations"]
        if action not in ops:
            violations.append("Action '%s' is not in the model" % action)
        else:
            check_shape(cloud.vec.model["shapes"], ops[action]["input"]["shape"], p, "", violations)
        bad_sig = sigv4_check(self, body, args.access_key, args.secret_key, args.token)
        if bad_sig:
            violations.append("SigV4: " + bad_sig)
        srv.shared.seq += 1
        entry = {"seq": srv.shared.seq, "action": action, "region": region, "params": p}
        if violations:
            status, root = Cloud.error(cloud, "ImcTestViolation", "; ".join(violations))
            entry["violations"] = violations
        else:
            seen = srv.shared.calls[action] = srv.shared.calls.get(action, 0) + 1
            inj = next((i for i in srv.shared.injections
                        if i["action"] == action and i["count"] > 0 and seen >= i["from"]), None)
            if inj and not inj["after"]:
                inj["count"] -= 1
                status, root = cloud.error(inj["code"], "injected by the test", inj["status"])
                entry["injected"] = inj["code"]
            else:
                status, root = cloud.handle(action, p)
                if inj:
                    inj["count"] -= 1
                    status, root = cloud.error(inj["code"], "injected by the test (after acting)",
                                               inj["status"])
                    entry["injected"] = inj["code"] + " (after)"
        entry["status"] = status
        if status != 200:
            entry["code"] = findall_local(root, "Code")[0].text
        with open(args.log, "a") as f:
            f.write(json.dumps(entry) + "\n")
        write_state(srv)
        hang = None
        if status == 200 and args.hang:
            act, _, nth = args.hang.partition(":")
            if act == action:
                srv.shared.hang_seen += 1
                if srv.shared.hang_seen == int(nth or 1):
                    hang = action
        return status, root, hang


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--state", required=True)
    ap.add_argument("--access-key", required=True)
    ap.add_argument("--secret-key", required=True)
    ap.add_argument("--token")
    ap.add_argument("--inject", action="append")
    ap.add_argument("--not-found-first", type=int, default=0)
    ap.add_argument("--bad-ami")
    ap.add_argument("--bad-type", action="append", help="an instance type ModifyInstanceAttribute refuses")
    ap.add_argument("--page-size", type=int, default=0, help="items per Describe page (0: one page)")
    ap.add_argument("--terminate-polls", type=int, default=0,
                    help="DescribeInstances polls an instance spends in shutting-down")
    ap.add_argument("--eni-linger", type=int, default=0,
                    help="DependencyViolation answers a group still gives once its instances are terminated")
    ap.add_argument("--hang", help="ACTION[:N]: carry out the Nth ACTION, then never answer")
    ap.add_argument("--hang-fifo", help="written when --hang holds a reply")
    args = ap.parse_args()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.lock = threading.Lock()
    srv.vec = Vectors(args.vectors)
    srv.shared = Shared(args)
    srv.clouds = {}
    srv.args = args
    with open(args.state, "w") as f:
        json.dump(leftovers(srv.clouds), f)
    sys.stdout.write("%d\n" % srv.server_address[1])
    sys.stdout.flush()
    sys.stdout.close()
    os.close(1)
    srv.serve_forever()


if __name__ == "__main__":
    main()
