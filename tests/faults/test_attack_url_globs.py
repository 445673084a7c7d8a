"""The attack on URL-glob permissions, against a real service: a token allowed only
``http://<host>/a/*`` tries to publish outside ``/a/`` by percent-encoding dot segments and
separators, and gets ``403 permission_denied`` for each; a URL whose encoded dots stay inside
``/a/`` is delivered as it was given, to a path every reading of which is inside ``/a/``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

import httpx
import pytest

from tests._eventually import eventually
from tests._loopback import ReceiverFactory
from tests.conftest import TEST_DESTINATIONS, ServerProcess, assert_problem

pytestmark = pytest.mark.slow

TOKEN = "attack-url-globs-token"
# Published an hour ahead: the refused ones are never written, the accepted one never attempted.
HOST = "http://hooks.example.com"
ESCAPES = [
    "/a/../b/secret",
    "/a/%2e%2e/b/secret",
    "/a/%2E%2E/b/secret",
    "/a/%2e%2E/b/secret",
    "/a/.%2e/b/secret",
    "/a/%2e./b/secret",
    "/a/%2e%2e%2fb/secret",
    "/a/%2E%2E%2Fb/secret",
    "/a/x%2f..%2f..%2fb/secret",
    "/a/..%5cb/secret",
    "/a/..\\b/secret",
    "/a/%252e%252e/b/secret",
    "/a/%25%32%65%25%32%65/b/secret",
    "/a/..;/b/secret",
    "/a/..%3b/b/secret",
    "/a/%2e%2e/b/secret?next=/a/",
    "/a/x/%2e%2e/%2e%2e/b/secret",
    "/b//../a/secret",
    "/b/%2e%2e/../a/secret",
    "/a/%2e%2e",
]


def _config(glob: str, allow: list[str]) -> dict[str, Any]:
    return {
        "tokens": [
            {
                "id": "hooks-a",
                "token": TOKEN,
                "permissions": [
                    {"resource": "message", "name": glob, "actions": ["publish", "consume"]}
                ],
            }
        ],
        "destinations": {"allow": allow},
    }


async def test_encoded_dot_segments_and_separators_are_refused(
    spool_server: Callable[..., ServerProcess], store_url: str
) -> None:
    """Every encoded way out of ``/a/`` is 403 ``permission_denied`` naming the URL, as the plain
    ``..`` is; a URL inside ``/a/`` is accepted.
    """
    server = spool_server(store_url, config=_config(f"{HOST}/a/*", list(TEST_DESTINATIONS)))
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(base_url=server.base_url, headers=headers) as client:
        accepted: dict[str, str] = {}
        for path in ESCAPES:
            url = HOST + path
            response = await client.post(
                "/v1/messages", json={"url": url, "body": 1, "delay": 3600}
            )
            if response.status_code != 403:
                accepted[path] = response.text
                continue
            problem = assert_problem(response, 403, "permission_denied")
            assert problem["detail"] == f"token 'hooks-a' may not publish on message {url!r}"
        assert accepted == {}
        inside = await client.post(
            "/v1/messages", json={"url": f"{HOST}/a/b/%2e%2e/ok", "body": 1, "delay": 3600}
        )
        assert inside.status_code == 202, inside.text


def _resolved(path: str) -> str:
    segments: list[str] = []
    for segment in path.split("/")[1:]:
        if segment == "..":
            segments = segments[:-1]
        elif segment != ".":
            segments.append(segment)
    return "/" + "/".join(segments)


async def test_a_covered_url_is_delivered_as_given_and_stays_under_the_glob(
    spool_server: Callable[..., ServerProcess],
    store_url: str,
    loopback_receiver: ReceiverFactory,
) -> None:
    """The URL checked is the URL sent: its receiver gets the encoded dots as published, and
    reads the path inside ``/a/`` whether it decodes them or not.
    """
    receiver = await loopback_receiver()
    origin = receiver.url.removesuffix("/hook")
    server = spool_server(store_url, config=_config(f"{origin}/a/*", ["127.0.0.0/8"]))
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(base_url=server.base_url, headers=headers) as client:
        refused = await client.post(
            "/v1/messages", json={"url": f"{origin}/a/%2e%2e/hook", "body": 1}
        )
        assert_problem(refused, 403, "permission_denied")
        sent = await client.post(
            "/v1/messages", json={"url": f"{origin}/a/b/%2e%2e/hook", "body": 1}
        )
        assert sent.status_code == 202, sent.text
        await eventually(lambda: receiver.requests)
    assert receiver.requests == 1
    request_line = receiver.heads[0].split(b"\r\n", 1)[0].decode("ascii")
    match = re.fullmatch(r"POST (\S+) HTTP/1\.1", request_line)
    assert match is not None, request_line
    assert match.group(1) == "/a/b/%2e%2e/hook"
    assert _resolved(match.group(1)) == "/a/b/%2e%2e/hook"
    assert _resolved(unquote(match.group(1))) == "/a/hook"
