"""A sealed evaluation and the environment's HTTP proxy (a QA pass on the harness): a proxy
on this machine can answer every request of a sealed run, whatever ``--base-url`` says, so
it is checked as a ``--base-url`` on this machine is (refused when its user may read the
seal file, unless ``--trust-local-endpoint``), and the client uses exactly the proxy that
was checked (``NO_PROXY`` respected). Through the real ``pibench agent`` command, with the
fake chat-completions server as the proxy (it answers a proxied ``POST http://HOST/v1/...``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from pibench_tui.harness.backends import environment_proxy
from tests.harness.fakellm import FakeLLM, Reply
from tests.headless.conftest import pibench_command

NEXT = "```python\ntime.next_month()\n```"
#: An address of TEST-NET-2 (RFC 5737): never this machine, never answering.
REMOTE = "http://198.51.100.7:8000/v1"
PROXY_VARS = [v for k in ("http", "https", "all", "no") for v in (f"{k}_proxy", f"{k.upper()}_PROXY")]


def _seal(folder: Path) -> Path:
    path = folder / "seal.json"
    subprocess.run(
        [*pibench_command(), "seal", "--count", "1", "--out", str(path)], check=True, capture_output=True, timeout=60
    )
    return path


def _agent(tmp: Path, seal: Path, proxy_env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARS}
    env.update(proxy_env, PIBENCH_HOME=str(tmp / "home"), PIBENCH_TEST_NO_KEY="")
    return subprocess.run(
        [*pibench_command(), "agent", "--model", "m", "--base-url", REMOTE, "--api-key-env", "PIBENCH_TEST_NO_KEY"]
        + ["--scenario", "short-12", "--seeds", f"@{seal}", "--out", str(tmp / "runs"), "--max-turns", "1"]
        + ["--retries", "0", "--request-timeout", "5", *extra],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        env=env,
    )


def test_a_sealed_run_refuses_a_local_proxy_that_may_read_the_seal(tmp_path):
    """``HTTP_PROXY`` (or ``all_proxy`` without a scheme) naming a server on this machine run
    by a user who may read the seal file (the test's own): the sealed run is refused before
    any request (exit 1, naming the proxy variable; the proxy saw nothing). Before, the
    proxy answered every request of the sealed career, with no refusal and no note. With
    ``--trust-local-endpoint`` the career plays through that proxy, with a note."""
    seal = _seal(tmp_path)
    with FakeLLM(lambda req, i: Reply(NEXT)) as proxy:
        hostport = f"127.0.0.1:{proxy.port}"
        for env in ({"HTTP_PROXY": f"http://{hostport}"}, {"all_proxy": hostport}):
            run = _agent(tmp_path, seal, env)
            assert run.returncode == 1, run.stderr
            assert "a sealed evaluation is refused: requests to --base-url" in run.stderr, run.stderr
            assert f"the proxy {next(iter(env)).upper()} http://{hostport} listens as uid" in run.stderr
            assert proxy.requests == [] and not (tmp_path / "runs" / "m").exists()
        trusted = _agent(tmp_path, seal, {"HTTP_PROXY": f"http://{hostport}"}, "--trust-local-endpoint")
        assert trusted.returncode == 0, trusted.stderr
        assert f"go through the proxy HTTP_PROXY=http://{hostport}, served on this machine" in trusted.stderr
        assert len(proxy.requests) >= 12  # the endpoint check and one reply a month, all through the proxy


def test_a_sealed_run_does_not_use_a_proxy_no_proxy_excludes(tmp_path):
    """``NO_PROXY`` naming the ``--base-url`` host: the local proxy is neither refused nor
    used (the client goes to the host directly: here the endpoint check fails, since the
    host never answers), as the environment says."""
    seal = _seal(tmp_path)
    with FakeLLM(lambda req, i: Reply(NEXT)) as proxy:
        run = _agent(
            tmp_path, seal, {"HTTP_PROXY": f"http://127.0.0.1:{proxy.port}", "NO_PROXY": "localhost,198.51.100.7"}
        )
    assert run.returncode == 1, run.stderr
    assert "proxy" not in run.stderr and "endpoint check" in run.stderr, run.stderr
    assert proxy.requests == []


@pytest.mark.parametrize(
    ("env", "url", "expected"),
    [
        ({"HTTPS_PROXY": "http://p:1"}, "https://api.x/v1", ("HTTPS_PROXY", "http://p:1")),
        ({"HTTPS_PROXY": "http://p:1"}, "http://api.x/v1", None),
        ({"https_proxy": "p:2", "HTTPS_PROXY": "http://p:1"}, "https://api.x/v1", ("HTTPS_PROXY", "http://p:2")),
        ({"ALL_PROXY": "socks5://p:3"}, "http://api.x/v1", ("ALL_PROXY", "socks5://p:3")),
        ({"ALL_PROXY": "http://p:3", "NO_PROXY": "x"}, "http://api.x/v1", None),
        ({"ALL_PROXY": "http://p:3", "NO_PROXY": "*"}, "http://api.y/v1", None),
        ({"ALL_PROXY": "http://p:3", "NO_PROXY": "other.x"}, "http://api.x/v1", ("ALL_PROXY", "http://p:3")),
    ],
)
def test_the_environment_proxy_of_a_url(monkeypatch, env, url, expected):
    """Which proxy a request goes through: by scheme, else ALL_PROXY, any case (lower case
    wins), a scheme added when missing, NO_PROXY's hosts, domains and ``*`` excluded."""
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert environment_proxy(url) == expected
