#!/usr/bin/python3
"""tests/differential/gen/httpd.py PORT ROOT: the uri cases' HTTP server,
on 127.0.0.1 in the sandbox's network namespace.

Paths: /status/NNN answers NNN; /redirect/NNN/REST redirects (NNN) to
/REST; /json a JSON document; /echo a JSON document of the request
(method, path, body and the headers a case sets or a client chooses);
/auth wants basic credentials user:pass; /file/NAME ROOT/NAME; anything
else 404. The Date and Server headers are fixed, so that the headers
uri returns are the same for both tools' runs.
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ECHOED = ("Transfer-Encoding", 'Content-Type', 'User-Agent', 'Authorization', 'X-Case', 'Content-Length', 'Accept')


class Handler(BaseHTTPRequestHandler):
    server_version = 'imc-test'
    sys_version = ''

    def date_time_string(self, timestamp=None):
        return 'Thu, 01 Jan 2026 00:00:00 GMT'

    def log_message(self, *args):
        pass

    def answer(self, code, body=b'', ctype='text/plain', extra=()):
        self.send_response(code)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(body)

    def handle_any(self):
        n = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(n) if n else b''
        parts = self.path.split('?', 1)[0].strip('/').split('/')
        if parts[0] == 'status' and len(parts) > 1 and parts[1].isdigit():
            self.answer(int(parts[1]), ('status %s\n' % parts[1]).encode())
        elif parts[0] == 'redirect' and len(parts) > 1 and parts[1].isdigit():
            self.answer(int(parts[1]), b'', extra=[('Location', '/' + '/'.join(parts[2:]))])
        elif parts[0] == 'json':
            self.answer(200, b'{"a": 1, "b": [true, null, "x"]}', 'application/json')
        elif parts[0] == 'echo':
            doc = {'method': self.command, 'path': self.path, 'body': body.decode('utf-8', 'replace'),
                   'headers': {k: self.headers[k] for k in ECHOED if self.headers.get(k) is not None}}
            self.answer(200, json.dumps(doc, sort_keys=True).encode(), 'application/json')
        elif parts[0] == 'auth':
            if self.headers.get('Authorization') == 'Basic dXNlcjpwYXNz':
                self.answer(200, b'welcome\n')
            else:
                self.answer(401, b'who?\n', extra=[('WWW-Authenticate', 'Basic realm="t"')])
        elif parts[0] == 'file' and len(parts) == 2 and os.path.isfile(os.path.join(ROOT, parts[1])):
            self.answer(200, open(os.path.join(ROOT, parts[1]), 'rb').read(), 'application/octet-stream')
        else:
            self.answer(404, b'not found\n')

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = do_OPTIONS = handle_any


if __name__ == '__main__':
    ROOT = sys.argv[2]
    srv = ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), Handler)
    # listening: the sandbox waits for this line before a tool runs
    print('ready', flush=True)
    srv.serve_forever()
