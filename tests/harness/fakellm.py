"""A real local HTTP server that speaks the chat-completions protocol, for the harness tests.

``FakeLLM(brain)`` serves ``POST /v1/chat/completions`` on 127.0.0.1 (a free port) in a
thread. ``brain(request, index)`` decides each answer; it returns one of

* ``Reply(text)`` — a normal completion (usage from :func:`scripted_pi.fake_usage`);
* ``Status(code, retry_after=None)`` — an HTTP error (429, 500, 400 ...);
* ``Sleep(seconds)`` — answer nothing for that long (a time-out for the client);
* ``Garbage(body)`` — a 200 answer whose body is not a completion;
* ``Trickle(gap, seconds)`` — a 200 completion whose body comes a byte every ``gap``
  seconds for ``seconds``, then the rest at once (a stalled gateway's keep-alive bytes: no
  single read waits long, the whole answer does).

Every request is recorded (``requests``) so tests can check the contract. ``die()``
stops the server for good (connections are refused afterwards).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.harness.scripted_pi import fake_usage


@dataclass
class Reply:
    text: str | list  # a list: the content as parts ([{"type": "text", "text": ...}], some gateways)
    usage: dict | None = None
    model: str | None = None  # the model id the provider says answered (default: the requested one)


@dataclass
class Status:
    code: int
    retry_after: float | None = None
    body: dict | None = None  # the error's JSON (default: a scripted message)


@dataclass
class Sleep:
    seconds: float


@dataclass
class Garbage:
    body: str = "this is not JSON {"


@dataclass
class Trickle:
    gap: float
    seconds: float


Brain = Callable[[dict, int], Any]


class FakeLLM:
    """The server (see the module docstring). Use as a context manager."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []  # each request's headers, names lower-cased
        self.answers: list[str] = []
        self.paths: list[str] = []  # each request's path, with its query
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server API
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                if outer.dead:  # a kept-alive connection outlives the listening socket
                    self.close_connection = True
                    return
                with outer.lock:
                    outer.paths.append(self.path)
                if not self.path.split("?")[0].endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                request = json.loads(body)
                with outer.lock:
                    index = len(outer.requests)
                    outer.requests.append(request)
                    outer.headers.append({k.lower(): v for k, v in self.headers.items()})
                answer = outer.brain(request, index)
                with outer.lock:
                    outer.answers.append(type(answer).__name__)
                if isinstance(answer, Sleep):
                    time.sleep(answer.seconds)
                    try:
                        self._send(200, _completion(request, "```python\ntime.next_month()\n```", None))
                    except OSError:
                        pass
                    return
                if outer.dead:
                    self.close_connection = True
                    return
                if isinstance(answer, Status):
                    headers = {"retry-after": str(answer.retry_after)} if answer.retry_after is not None else {}
                    body = answer.body or {"error": {"message": f"scripted status {answer.code}", "type": "test"}}
                    self._send(answer.code, body, headers)
                    return
                if isinstance(answer, Trickle):
                    data = json.dumps(_completion(request, "```python\ntime.next_month()\n```", None)).encode()
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    end, sent = time.monotonic() + answer.seconds, 0
                    try:
                        while sent < len(data) - 1 and time.monotonic() < end and not outer.dead:
                            self.wfile.write(data[sent : sent + 1])
                            self.wfile.flush()
                            sent += 1
                            time.sleep(answer.gap)
                        self.wfile.write(data[sent:])
                    except OSError:
                        pass  # the client gave up
                    return
                if isinstance(answer, Garbage):
                    data = answer.body.encode()
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                self._send(200, _completion(request, answer.text, answer.usage, index, answer.model))

            def _send(self, code: int, payload: dict, headers: dict | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.dead = False

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FakeLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.die()

    def die(self) -> None:
        """Stop serving and close the socket (later requests are refused)."""
        if not self.dead:
            self.dead = True
            self.server.shutdown()
            self.server.server_close()


def _completion(request: dict, text: str, usage: dict | None, index: int = 0, model: str | None = None) -> dict:
    return {
        "id": f"chatcmpl-test-{index}",
        "object": "chat.completion",
        "created": 0,
        "model": model or request.get("model", "test"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": usage if usage is not None else fake_usage(request.get("messages", [])),
    }
