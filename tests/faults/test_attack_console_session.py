"""Attacks on the console's session, against the real service (``python -m server``) on each store:
a cookie replayed after signing out, by the visitor or by whoever copied it; a session outliving
its lifetime or idle time when the client ignores Max-Age; a session made by one worker process
used on another; and a session outliving a restart that removed or changed its token.

Every request names the cookie itself in a ``Cookie`` header, as a replaying attacker would, so no
client-side cookie handling (Max-Age, clearing) can hide what the service allows.
"""

from __future__ import annotations

import copy
import re
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.conftest import ServerProcess
from tests.faults._config import CONFIG, TOKEN

pytestmark = pytest.mark.slow

_CSRF = re.compile(r'name="csrf" value="([0-9a-f]+)"')
# New connections per check on two workers: each is served by whichever worker accepts it, so a
# session known to one process only would be refused about half the time.
_CONNECTIONS = 24


def _config(**console: Any) -> dict[str, Any]:
    config = copy.deepcopy(CONFIG)
    config["console"] = {"enabled": True, **console}
    return config


class _Visitor:
    """Requests to one service naming one cookie, each on a new connection."""

    def __init__(self, base_url: str, cookie: str) -> None:
        self.base_url = base_url
        self.cookie = cookie

    def get(self, path: str) -> httpx.Response:
        return self._send("GET", path)

    def post(self, path: str, form: dict[str, str]) -> httpx.Response:
        return self._send("POST", path, form)

    def _send(self, method: str, path: str, form: dict[str, str] | None = None) -> httpx.Response:
        with httpx.Client(base_url=self.base_url, timeout=30) as client:
            return client.request(
                method, path, data=form, headers={"Cookie": f"spool_console={self.cookie}"}
            )


def _sign_in(server: ServerProcess, token: str = TOKEN) -> tuple[_Visitor, str]:
    """A signed-in visitor and the form token of its session."""
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        response = client.post("/console/sign-in", data={"token": token})
    assert response.status_code == 303, response.text
    cookie = response.cookies["spool_console"]
    visitor = _Visitor(server.base_url, cookie)
    page = visitor.get("/console/streams")
    assert page.status_code == 200, page.text
    found = _CSRF.search(page.text)
    assert found is not None
    return visitor, found.group(1)


def _refused(response: httpx.Response) -> bool:
    """Sent to the sign-in form: the service no longer knows the session."""
    return (
        response.status_code == 303
        and urlsplit(response.headers["location"]).path == "/console/sign-in"
    )


def _length(server: ServerProcess, stream: str = "orders") -> int:
    with httpx.Client(
        base_url=server.base_url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30
    ) as api:
        length: int = api.get(f"/v1/streams/{stream}").json()["length"]
        return length


def _append(server: ServerProcess, stream: str = "orders") -> None:
    with httpx.Client(
        base_url=server.base_url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30
    ) as api:
        assert api.post(f"/v1/streams/{stream}/entries", json={"body": 1}).status_code == 201


@pytest.fixture
def server(spool_server: Callable[..., ServerProcess], store_url: str) -> Iterator[ServerProcess]:
    yield spool_server(store_url, config=_config())


def test_a_cookie_replayed_after_sign_out_reads_nothing_and_trims_nothing(
    server: ServerProcess,
) -> None:
    """The visitor signs out; the same cookie, with the form token its pages carried, is then sent
    to sign in for a page and for a trim, and the stream keeps its entry.
    """
    _append(server)
    visitor, csrf = _sign_in(server)
    assert visitor.post("/console/sign-out", {"csrf": csrf}).status_code == 303
    assert _refused(visitor.get("/console/streams/orders"))
    assert _refused(visitor.post("/console/streams/orders/trim", {"maxlen": "0", "csrf": csrf}))
    assert visitor.get("/console/live/queues").status_code == 401
    assert _length(server) == 1


def test_a_copied_cookie_dies_with_its_owners_sign_out(server: ServerProcess) -> None:
    """Another client holding a copy of the cookie reads pages while the session lives; once its
    owner signs out, the copy is refused too.
    """
    _append(server)
    owner, csrf = _sign_in(server)
    thief = _Visitor(server.base_url, owner.cookie)
    assert thief.get("/console/streams/orders").status_code == 200
    assert owner.post("/console/sign-out", {"csrf": csrf}).status_code == 303
    assert _refused(thief.get("/console/streams/orders"))
    assert _refused(thief.post("/console/streams/orders/trim", {"maxlen": "0", "csrf": csrf}))
    assert _length(server) == 1


def test_the_service_ends_a_session_at_its_lifetime(
    spool_server: Callable[..., ServerProcess], store_url: str
) -> None:
    """A session of 3 s, visited every second, is refused once its 3 s are up, though the client
    keeps sending the cookie past its Max-Age.
    """
    server = spool_server(store_url, config=_config(session_seconds=3))
    _append(server)
    started = time.monotonic()
    visitor, csrf = _sign_in(server)
    while time.monotonic() - started < 1.5:
        assert visitor.get("/console/streams").status_code == 200
        time.sleep(0.5)
    time.sleep(max(0.0, started + 3.5 - time.monotonic()))
    assert _refused(visitor.get("/console/streams"))
    assert _refused(visitor.post("/console/streams/orders/trim", {"maxlen": "0", "csrf": csrf}))
    assert _length(server) == 1


def test_the_service_ends_a_session_left_idle(
    spool_server: Callable[..., ServerProcess], store_url: str
) -> None:
    """A session with 3 s of idle time lives on while visited every second, and ends 3 s after
    the last visit.
    """
    server = spool_server(store_url, config=_config(idle_seconds=3))
    visitor, _ = _sign_in(server)
    for _ in range(4):
        time.sleep(1)
        assert visitor.get("/console/streams").status_code == 200
    time.sleep(3.5)
    assert _refused(visitor.get("/console/streams"))


def test_a_session_serves_every_worker_process_and_ends_for_all(
    spool_server: Callable[..., ServerProcess], store_url: str
) -> None:
    """On a service of two worker processes, a session made by one is known to both: every page
    on a fresh connection is served; after signing out every one is refused.
    """
    server = spool_server(store_url, config=_config(), workers=2)
    visitor, csrf = _sign_in(server)
    served = [visitor.get("/console/streams").status_code for _ in range(_CONNECTIONS)]
    assert served == [200] * _CONNECTIONS
    assert visitor.post("/console/sign-out", {"csrf": csrf}).status_code == 303
    refused = [_refused(visitor.get("/console/streams")) for _ in range(_CONNECTIONS)]
    assert refused == [True] * _CONNECTIONS


def test_a_session_outlives_a_restart_but_not_its_token(
    spool_server: Callable[..., ServerProcess], store_url: str
) -> None:
    """Started again on the same store, the service still knows the session; started with the
    token's secret changed, it refuses it, and also once the old secret is back.
    """
    first = spool_server(store_url, config=_config())
    visitor, _ = _sign_in(first)
    first.stop()
    again = spool_server(store_url, config=_config())
    visitor.base_url = again.base_url
    assert visitor.get("/console/streams").status_code == 200
    again.stop()
    rotated = _config()
    rotated["tokens"][0]["token"] = "faults-token-2"
    changed = spool_server(store_url, config=rotated)
    visitor.base_url = changed.base_url
    assert _refused(visitor.get("/console/streams"))
    changed.stop()
    restored = spool_server(store_url, config=_config())
    visitor.base_url = restored.base_url
    assert _refused(visitor.get("/console/streams"))
