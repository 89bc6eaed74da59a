#!/usr/bin/env python3
"""t4080-uri-server.py: the HTTP server t4080 sends the uri module's requests
to, on loopback. It binds an ephemeral port, prints it on stdout (the test
reads that line, so it never waits by sleeping) and serves until killed:
  /json              a JSON document (application/json)
  /vnd               JSON as application/vnd.api+json
  /text              text/plain
  /status/N          status N with a text body
  /redir/N?to=PATH   a redirect N to PATH (relative when PATH has no '/')
  /loop              a redirect to itself
  /echo              JSON of the method, the request's body and headers
  /cookie            sets two cookies and redirects to /json
  /auth              basic authentication, user "u" password "sekret"
  /gzip              a gzip Content-Encoding body (sent unasked)
  /noloc             a 302 without Location
  /dup               a header given twice
  anything else      the files of the directory given as argv[1]
"""
import base64
import gzip
import json
import os
import sys
from functools import partial
from http.server import HTTPServer, SimpleHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit


class Handler(SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def send_body(self, code, body, ctype='text/plain', extra=()):
        if isinstance(body, str):
            body = body.encode()
        self.send_response(code)
        self.send_header('Content-Type', ctype)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(body)

    def route(self):
        u = urlsplit(self.path)
        q = parse_qs(u.query)
        p = u.path
        n = int(self.headers.get('Content-Length') or 0)
        data = self.rfile.read(n) if n else b''
        if p == '/json':
            return self.send_body(200, json.dumps({'a': 1, 'b': [True, None, 'x']}), 'application/json')
        if p == '/vnd':
            return self.send_body(200, '{"v": 2}', 'application/vnd.api+json; charset=utf-8')
        if p == '/text':
            return self.send_body(200, 'plain text\n')
        if p.startswith('/status/'):
            c = int(p.split('/')[2])
            return self.send_body(c, 'status %d\n' % c)
        if p.startswith('/redir/'):
            c = int(p.split('/')[2])
            return self.send_body(c, 'moved\n', extra=[('Location', q.get('to', ['/json'])[0])])
        if p == '/loop':
            return self.send_body(302, '', extra=[('Location', '/loop')])
        if p == '/noloc':
            return self.send_body(302, 'no location\n')
        if p == '/echo':
            hdr = {k.lower(): v for k, v in self.headers.items()
                   if k.lower() in ('content-type', 'x-test', 'authorization', 'cookie',
                                    'user-agent', 'cache-control')}
            return self.send_body(200, json.dumps({'method': self.command, 'body': data.decode(),
                                                   'headers': hdr}), 'application/json')
        if p == '/cookie':
            self.send_response(302)
            self.send_header('Set-Cookie', 'sid=abc; Path=/')
            self.send_header('Set-Cookie', 'lang=en; Path=/')
            self.send_header('Location', '/echo')
            self.send_header('Content-Length', '0')
            self.end_headers()
            return None
        if p == '/auth':
            want = 'Basic ' + base64.b64encode(b'u:sekret').decode()
            if self.headers.get('Authorization') != want:
                return self.send_body(401, 'auth\n', extra=[('WWW-Authenticate', 'Basic realm="t"')])
            return self.send_body(200, '{"auth": "ok"}', 'application/json')
        if p == '/gzip':
            return self.send_body(200, gzip.compress(b'zipped\n', mtime=0), 'text/plain',
                                  extra=[('Content-Encoding', 'gzip')])
        if p == '/dup':
            return self.send_body(200, 'dup\n', extra=[('X-Dup', 'one'), ('X-Dup', 'two')])
        return False

    def do_GET(self):
        if self.route() is False:
            super().do_GET()

    def do_HEAD(self):
        if self.route() is False:
            super().do_HEAD()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_GET


def main():
    srv = HTTPServer(('127.0.0.1', 0), partial(Handler, directory=sys.argv[1]))
    print(srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == '__main__':
    main()
