#!/usr/bin/env python3
"""Aryl's default inference replica: a tiny PyTorch model served over HTTP.

The ApplicationMaster starts one per container and gives it its port in ARYL_SERVE_PORT (and its
container id in ARYL_SERVE_REPLICA). Endpoints:

  POST /predict   {"inputs": [[f, ...], ...]} (rows of 16 numbers; an empty body is one random row)
                  -> {"outputs": [[...4 numbers...], ...], "replica": "<container id>"}
  GET  /health    200 {"status": "ok"} once the model is loaded
  GET  /metrics   Prometheus text: aryl_serve_requests_total (answered /predict requests),
                  aryl_serve_errors_total (refused ones), aryl_serve_request_seconds_sum

The model runs on CPU with one thread; on a GPU node a real server (Triton, vLLM, TorchServe) takes
this script's place as the replica command (see the module's README). It exits on SIGTERM.
"""
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import torch

IN_FEATURES = 16
OUT_FEATURES = 4
MAX_BODY = 1 << 20

torch.set_num_threads(1)
torch.manual_seed(0)
MODEL = torch.nn.Sequential(
    torch.nn.Linear(IN_FEATURES, 64), torch.nn.ReLU(), torch.nn.Linear(64, OUT_FEATURES)
).eval()
REPLICA = os.environ.get("ARYL_SERVE_REPLICA", "local")

_lock = threading.Lock()
_requests = 0
_errors = 0
_seconds = 0.0


def _count(ok, seconds):
    global _requests, _errors, _seconds
    with _lock:
        if ok:
            _requests += 1
            _seconds += seconds
        else:
            _errors += 1


def predict(body):
    """The model's outputs for a request body; ValueError for a body it cannot read."""
    if body.strip():
        request = json.loads(body)
        rows = request.get("inputs") if isinstance(request, dict) else None
        if not isinstance(rows, list) or not rows or not all(
            isinstance(r, list) and len(r) == IN_FEATURES for r in rows
        ):
            raise ValueError('"inputs" must be a non-empty list of rows of %d numbers' % IN_FEATURES)
        x = torch.tensor(rows, dtype=torch.float32)
    else:
        x = torch.randn(1, IN_FEATURES)
    with torch.no_grad():
        return MODEL(x).tolist()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _send(self, code, body, content_type="application/json"):
        data = body.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/health":
            self._send(200, '{"status": "ok"}')
        elif self.path == "/metrics":
            with _lock:
                text = (
                    "# HELP aryl_serve_requests_total Answered /predict requests.\n"
                    "# TYPE aryl_serve_requests_total counter\n"
                    "aryl_serve_requests_total %d\n"
                    "# HELP aryl_serve_errors_total Refused /predict requests.\n"
                    "# TYPE aryl_serve_errors_total counter\n"
                    "aryl_serve_errors_total %d\n"
                    "# HELP aryl_serve_request_seconds_sum Time spent answering.\n"
                    "# TYPE aryl_serve_request_seconds_sum counter\n"
                    "aryl_serve_request_seconds_sum %f\n" % (_requests, _errors, _seconds)
                )
            self._send(200, text, "text/plain; version=0.0.4")
        else:
            self._send(404, json.dumps({"error": "not found: " + self.path}))

    def do_POST(self):
        if self.path != "/predict":
            self._send(404, json.dumps({"error": "not found: " + self.path}))
            return
        started = time.monotonic()
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            _count(False, 0)
            self._send(413, json.dumps({"error": "body over %d bytes" % MAX_BODY}))
            return
        body = self.rfile.read(length).decode("utf-8") if length else ""
        try:
            outputs = predict(body)
        except (ValueError, TypeError) as e:
            _count(False, 0)
            self._send(400, json.dumps({"error": str(e)}))
            return
        _count(True, time.monotonic() - started)
        self._send(200, json.dumps({"outputs": outputs, "replica": REPLICA}))

    def log_message(self, fmt, *args):
        pass  # one line per request would fill the container's log


def main():
    port = int(os.environ.get("ARYL_SERVE_PORT", "0"))
    server = ThreadingHTTPServer(("0.0.0.0", port), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    print("serving %s on port %d" % (REPLICA, server.server_address[1]), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
