#!/usr/bin/env python3
"""tests/docker/fake-dockerd.py: a Docker daemon's error answers on a unix
socket, for the tests of how the docker backend reports them (a real daemon
gives them only with a registry or by chance). Every body comes from
tests/vectors/docker; what is answered is chosen by SCENARIO:

  pull-error  the image is missing (ImageInspect 404) and the pull answers
              200 with the documented progress stream whose last object is
              an error, sent a few bytes at a time
  no-image    the image is there, but container create answers 404 "No such
              image" (ContainerCreate 404); a destroy then finds nothing
              (ContainerDelete 404, empty listings)
  busy        a destroy's container removal answers 409 (ContainerDelete 409)
  server      every call answers 500 {"message": "page not found"}

Each request is appended to LOG as "METHOD PATH".

usage: fake-dockerd.py SOCKET VECTORS SCENARIO LOG
"""
import http.server
import os
import socketserver
import sys

SOCK, VEC, SCENARIO, LOG = sys.argv[1:5]


def vector(name):
    sub = "examples-v1.41" if name.endswith(".json") and name[0].isupper() else "examples-v1.24"
    with open(os.path.join(VEC, sub, name), "rb") as f:
        return f.read()


def pull_stream():
    text = vector("images-create-pull.response.http").decode()
    body = text.split("\n\n", 1)[1]
    # the documentation's literal "..." means "more lines": cut it
    return "".join(l + "\n" for l in body.splitlines() if l.strip() and l.strip() != "...").encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def address_string(self):
        return "unix"

    def answer(self, status, body=b"", ctype="application/json", chunks=0):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if chunks:
            for i in range(0, len(body), chunks):
                self.wfile.write(body[i:i + chunks])
                self.wfile.flush()
        else:
            self.wfile.write(body)

    def route(self, method):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
        path = self.path
        if path.startswith("/v1."):
            path = path[path.index("/", 1):]
        with open(LOG, "a") as f:
            f.write("%s %s\n" % (method, path))
        bare = path.split("?", 1)[0]
        if SCENARIO == "server":
            return self.answer(500, vector("error-body.json"))
        if method == "GET" and bare.startswith("/images/") and bare.endswith("/json"):
            if SCENARIO == "pull-error":
                return self.answer(404, vector("ImageInspect.response-404.json"))
            return self.answer(200, b'{"Id": "sha256:0"}')
        if method == "POST" and bare == "/images/create":
            return self.answer(200, pull_stream(), chunks=7)
        if method == "DELETE" and bare.startswith("/containers/"):
            if SCENARIO == "busy":
                return self.answer(409, vector("ContainerDelete.response-409.json"))
            return self.answer(404, vector("ContainerDelete.response-404.json"))
        if method == "POST" and bare == "/containers/create":
            return self.answer(404, vector("ContainerCreate.response-404.json"))
        if method == "GET" and bare == "/containers/json":
            return self.answer(200, b"[]")
        if method == "GET" and bare == "/volumes":
            return self.answer(200, b'{"Volumes": [], "Warnings": []}')
        if method == "GET" and bare == "/networks":
            return self.answer(200, b"[]")
        return self.answer(404, vector("error-body.json"))

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_DELETE(self):
        self.route("DELETE")


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


if os.path.exists(SOCK):
    os.unlink(SOCK)
srv = Server(SOCK, Handler)
srv.serve_forever()
