"""The service enforces exactly the permission each operation states in ``x-spool-permission``,
and reads it from the document: it does not start from a document it cannot enforce.

For every operation, on both stores, its own example request is sent: without a token and with an
unknown one (401); with a token holding just the stated permission (it must get past the
permission check: anything but 401 and 403); with a token holding every other permission there is
(other kinds, other actions: 403); and, where the operation names its resource in the path, with
the stated kind and action on other names only (403).
"""

from __future__ import annotations

import contextlib
import copy
import re
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from server.app import create_app, lifespan
from server.config import (
    ALL_ACTIONS,
    SPEC_PATH,
    Action,
    Permission,
    Resource,
    Settings,
    TokenConfig,
)
from server.routes._spec import SpecError
from tests.conftest import TEST_DESTINATIONS, assert_problem
from tests.generated._spec import YAML_DUMPER, Operation, example_request, load_spec, operations

KINDS: tuple[Resource, ...] = ("stream", "queue", "message", "url_group", "schedule")
# Scope token is the caller's own token, which every token may read: nothing to refuse.
SECURED = [
    operation
    for operation in operations()
    if operation.security and operation.raw["x-spool-permission"]["scope"] != "token"
]
OWN_TOKEN = [
    operation
    for operation in operations()
    if operation.security and operation.raw["x-spool-permission"]["scope"] == "token"
]


def _token(token_id: str, rules: Iterable[tuple[Resource, str, frozenset[Action]]]) -> TokenConfig:
    return TokenConfig(
        id=token_id,
        secret=f"secret-{token_id}",
        permissions=tuple(
            Permission(resource=kind, name=name, actions=actions) for kind, name, actions in rules
        ),
    )


def _everything_but(kind: Resource) -> list[tuple[Resource, str, frozenset[Action]]]:
    return [(other, "*", ALL_ACTIONS) for other in KINDS if other != kind]


def _other_names(permission: dict[str, str]) -> TokenConfig | None:
    """A token with the stated kind and action on names that miss the example's, when the
    operation names its resource in the path.
    """
    if permission["scope"] != "path" or permission["action"] == "any":
        return None
    kind: Resource = permission["resource"]  # type: ignore[assignment]
    action: Action = permission["action"]  # type: ignore[assignment]
    return _token("other-names", [(kind, "zz-not-this-one-*", frozenset({action}))])


# What an operation's handler also checks, on what its body names: a schedule's author must be
# allowed to publish where its example publishes (a job on the queue `jobs`).
ALSO_CHECKED: dict[str, list[tuple[Resource, str, frozenset[Action]]]] = {
    "putSchedule": [("queue", "jobs", frozenset({"publish"}))],
}


def _tokens(
    permission: dict[str, str], operation_id: str = ""
) -> tuple[list[TokenConfig], TokenConfig]:
    """The tokens that hold just the stated permission (and what the handler also checks), and
    the one that holds all the others.
    """
    kind: Resource = permission["resource"]  # type: ignore[assignment]
    action = permission["action"]
    also = ALSO_CHECKED.get(operation_id, [])
    if action == "any":
        allowed = [
            _token(f"only-{one}", [(kind, "*", frozenset({one})), *also]) for one in ALL_ACTIONS
        ]
        return allowed, _token("all-other-kinds", _everything_but(kind))
    stated: Action = action  # type: ignore[assignment]
    allowed = [_token("stated", [(kind, "*", frozenset({stated})), *also])]
    others = [*_everything_but(kind), (kind, "*", ALL_ACTIONS - {stated})]
    if permission["scope"] == "every":
        # Covering every URL and group by some glob is still not "every name".
        others += [(kind, "https://*/*", ALL_ACTIONS), (kind, "http://*/*", ALL_ACTIONS)]
    return allowed, _token("all-others", others)


@contextlib.asynccontextmanager
async def _app(
    tokens: list[TokenConfig], store_url: str, spec_path: Path = SPEC_PATH
) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(
        tokens=tuple(tokens),
        store_url=store_url,
        allowed_destinations=TEST_DESTINATIONS,
        spec_path=spec_path,
    )
    app = create_app(settings, services=())
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://spool.test") as client:
            yield client


async def _send(
    client: httpx.AsyncClient,
    operation: Operation,
    secret: str | None,
    *,
    extra_query: dict[str, str] | None = None,
) -> Any:
    """The operation's example request, with ``secret`` as its token and ``extra_query`` added."""
    request = example_request(operation)
    headers = {key: str(value) for key, value in request.header_params.items()}
    if secret is not None:
        headers["Authorization"] = f"Bearer {secret}"
    return await client.request(
        operation.method.upper(),
        request.path,
        params={**request.query_params, **(extra_query or {})},
        headers=headers,
        json=request.body if request.has_body else None,
    )


@pytest.mark.parametrize("operation", SECURED, ids=[op.operation_id for op in SECURED])
async def test_the_service_enforces_the_stated_permission(
    operation: Operation, store_url: str
) -> None:
    """The stated permission is enough; no token, an unknown one, every other permission
    together, or the stated one on other names is not.
    """
    permission = operation.raw["x-spool-permission"]
    allowed, denied = _tokens(permission, operation.operation_id)
    other_names = _other_names(permission)
    refused = [denied] if other_names is None else [denied, other_names]
    async with _app([*allowed, *refused], store_url) as client:
        for secret in (None, "not-a-known-token"):
            assert_problem(await _send(client, operation, secret), 401, "unauthenticated")
        for token in allowed:
            response = await _send(client, operation, token.secret)
            assert response.status_code not in (401, 403), (token.id, response.text)
        for token in refused:
            response = await _send(client, operation, token.secret)
            assert_problem(response, 403, "permission_denied")


# What a token with no permission at all is told, for every operation's own example: the kind, the
# action and, for scope path, the name it lacks.
REFUSALS_OF_NO_PERMISSION = {
    "listStreams": "token 'nothing' has no permission on streams",
    "getStream": "token 'nothing' may not consume on stream 'events'",
    "deleteStream": "token 'nothing' may not admin on stream 'events'",
    "rangeEntries": "token 'nothing' may not consume on stream 'events'",
    "appendEntry": "token 'nothing' may not publish on stream 'events'",
    "appendEntries": "token 'nothing' may not publish on stream 'events'",
    "trimStream": "token 'nothing' may not admin on stream 'events'",
    "createGroup": "token 'nothing' may not consume on stream 'events'",
    "deleteGroup": "token 'nothing' may not consume on stream 'events'",
    "readGroup": "token 'nothing' may not consume on stream 'events'",
    "ackEntries": "token 'nothing' may not consume on stream 'events'",
    "claimEntries": "token 'nothing' may not consume on stream 'events'",
    "listPending": "token 'nothing' may not consume on stream 'events'",
    "listQueues": "token 'nothing' has no permission on queues",
    "getQueue": "token 'nothing' has no permission on queue 'jobs'",
    "putQueue": "token 'nothing' may not admin on queue 'jobs'",
    "deleteQueue": "token 'nothing' may not admin on queue 'jobs'",
    "listJobs": "token 'nothing' may not consume on queue 'jobs'",
    "publishJob": "token 'nothing' may not publish on queue 'jobs'",
    "publishJobs": "token 'nothing' may not publish on queue 'jobs'",
    "leaseJobs": "token 'nothing' may not consume on queue 'jobs'",
    "getJob": "token 'nothing' may not consume on queue 'jobs'",
    "ackJob": "token 'nothing' may not consume on queue 'jobs'",
    "ackJobs": "token 'nothing' may not consume on queue 'jobs'",
    "nackJob": "token 'nothing' may not consume on queue 'jobs'",
    "releaseJob": "token 'nothing' may not consume on queue 'jobs'",
    "releaseJobs": "token 'nothing' may not consume on queue 'jobs'",
    "extendLease": "token 'nothing' may not consume on queue 'jobs'",
    "retryJob": "token 'nothing' may not admin on queue 'jobs'",
    "deleteJob": "token 'nothing' may not admin on queue 'jobs'",
    "publishMessage": "token 'nothing' may not publish on messages",
    "publishMessages": "token 'nothing' may not publish on messages",
    "listMessages": "token 'nothing' may not consume on messages",
    "listLogs": "token 'nothing' may not consume on messages",
    "getMessage": "token 'nothing' may not consume on messages",
    "cancelMessage": "token 'nothing' may not publish on messages",
    "listUrlGroups": "token 'nothing' has no permission on URL groups",
    "getUrlGroup": "token 'nothing' has no permission on url_group 'partners'",
    "putUrlGroup": "token 'nothing' may not admin on url_group 'partners'",
    "deleteUrlGroup": "token 'nothing' may not admin on url_group 'partners'",
    "listDeadLetters": "token 'nothing' may not consume on messages",
    "deleteDeadLetter": "token 'nothing' may not admin on messages",
    "retryDeadLetter": "token 'nothing' may not admin on messages",
    "retryDeadLetters": "token 'nothing' may not admin on messages",
    "deleteDeadLetters": "token 'nothing' may not admin on messages",
    "listSchedules": "token 'nothing' has no permission on schedules",
    "getSchedule": "token 'nothing' has no permission on schedule 'nightly-report'",
    "putSchedule": "token 'nothing' may not admin on schedule 'nightly-report'",
    "deleteSchedule": "token 'nothing' may not admin on schedule 'nightly-report'",
    "pauseSchedule": "token 'nothing' may not admin on schedule 'nightly-report'",
    "resumeSchedule": "token 'nothing' may not admin on schedule 'nightly-report'",
    "getSigningKeys": (
        "token 'nothing' needs admin on every message (name '*') to read the signing keys"
    ),
    "listFlowControlKeys": "token 'nothing' needs consume on every message (name '*')",
    "getFlowControl": "token 'nothing' needs consume on every message (name '*')",
    "pauseFlowControl": "token 'nothing' needs admin on every message (name '*')",
    "resumeFlowControl": "token 'nothing' needs admin on every message (name '*')",
    "resetFlowControl": "token 'nothing' needs admin on every message (name '*')",
}


@pytest.mark.parametrize("operation", OWN_TOKEN, ids=[op.operation_id for op in OWN_TOKEN])
async def test_every_token_may_read_itself(operation: Operation, store_url: str) -> None:
    """Scope token lets a token with no permission at all through; no token, or an unknown
    one, is still 401.
    """
    nothing = _token("nothing", [])
    async with _app([nothing], store_url) as client:
        for secret in (None, "not-a-known-token"):
            assert_problem(await _send(client, operation, secret), 401, "unauthenticated")
        response = await _send(client, operation, nothing.secret)
        assert response.status_code == 200, response.text


def test_the_document_reads_a_token_with_scope_token_only() -> None:
    """getToken is the one operation of scope token, stated as resource `*` and action any."""
    assert [(op.operation_id, op.raw["x-spool-permission"]) for op in OWN_TOKEN] == [
        ("getToken", {"resource": "*", "action": "any", "scope": "token"})
    ]


async def test_a_refusal_says_what_the_token_lacks(sqlite_store_url: str) -> None:
    """Every secured operation is listed, and its 403 reads as clients have always seen it."""
    assert sorted(REFUSALS_OF_NO_PERMISSION) == sorted(op.operation_id for op in SECURED)
    nothing = _token("nothing", [])
    async with _app([nothing], sqlite_store_url) as client:
        for operation in SECURED:
            response = await _send(client, operation, nothing.secret)
            problem = assert_problem(response, 403, "permission_denied")
            assert problem["detail"] == REFUSALS_OF_NO_PERMISSION[operation.operation_id]


async def test_a_refusal_on_a_destination_or_a_message_names_it(sqlite_store_url: str) -> None:
    """With permission on some messages, a publish elsewhere names the URL or group, and reading
    or cancelling someone else's message names the message.
    """
    admin = _token("admin", [(kind, "*", ALL_ACTIONS) for kind in KINDS])
    hooks = _token("hooks", [("message", "https://example.com/hooks/*", ALL_ACTIONS)])
    async with _app([admin, hooks], sqlite_store_url) as client:
        as_admin = {"Authorization": f"Bearer {admin.secret}"}
        as_hooks = {"Authorization": f"Bearer {hooks.secret}"}
        elsewhere = {"url": "https://other.example.com/", "body": 1}
        sent = await client.post("/v1/messages", json=elsewhere, headers=as_admin)
        message_id = sent.json()["messages"][0]["message_id"]
        refusals = {
            "token 'hooks' may not publish on message 'https://other.example.com/'": (
                await client.post("/v1/messages", json=elsewhere, headers=as_hooks)
            ),
            "token 'hooks' may not publish on message 'partners'": await client.post(
                "/v1/messages/batch",
                json={"messages": [{"url_group": "partners", "body": 1}]},
                headers=as_hooks,
            ),
            f"token 'hooks' may not consume on message {message_id!r}": await client.get(
                f"/v1/messages/{message_id}", headers=as_hooks
            ),
            f"token 'hooks' may not publish on message {message_id!r}": await client.post(
                f"/v1/messages/{message_id}/cancel", headers=as_hooks
            ),
        }
        for detail, response in refusals.items():
            assert assert_problem(response, 403, "permission_denied")["detail"] == detail


async def test_what_is_checked_before_the_permission(sqlite_store_url: str) -> None:
    """The batch path's other methods are 405 even without a token; a token comes before the
    names in the path, and every name in the path before the permission.
    """
    nothing = _token("nothing", [])
    async with _app([nothing], sqlite_store_url) as client:
        for method in ("GET", "DELETE"):
            response = await client.request(method, "/v1/messages/batch")
            assert_problem(response, 405, "method_not_allowed")
            assert response.headers["allow"] == "POST"
        no_token = await client.delete("/v1/streams/events/groups/bad name")
        assert_problem(no_token, 401, "unauthenticated")
        as_nothing = {"Authorization": f"Bearer {nothing.secret}"}
        for method, path in (
            ("DELETE", "/v1/streams/events/groups/bad name"),
            ("GET", "/v1/queues/jobs/jobs/bad id"),
            ("GET", "/v1/messages/bad id"),
            ("DELETE", "/v1/dead-letters/bad id"),
        ):
            response = await client.request(method, path, headers=as_nothing)
            assert_problem(response, 400, "invalid_name")


SpecEdit = Callable[[dict[str, Any]], None]


def _edited_spec(tmp_path: Path, edit: SpecEdit) -> Path:
    """openapi.yaml with ``edit`` made to it, written under ``tmp_path``."""
    spec = copy.deepcopy(load_spec())
    edit(spec)
    path = tmp_path / "openapi.yaml"
    path.write_text(yaml.dump(spec, Dumper=YAML_DUMPER, sort_keys=False), encoding="utf-8")
    return path


def _permission_of(spec: dict[str, Any], path: str, method: str) -> dict[str, str]:
    stated: dict[str, str] = spec["paths"][path][method]["x-spool-permission"]
    return stated


def _without_permission(spec: dict[str, Any]) -> None:
    del spec["paths"]["/v1/streams/{stream}"]["delete"]["x-spool-permission"]


def _health_secured(spec: dict[str, Any]) -> None:
    del spec["paths"]["/v1/health"]["get"]["security"]


def _unknown_action(spec: dict[str, Any]) -> None:
    _permission_of(spec, "/v1/queues/{queue}", "put")["action"] = "write"


def _extra_key(spec: dict[str, Any]) -> None:
    _permission_of(spec, "/v1/queues/{queue}", "put")["name"] = "jobs"


def _path_scope_without_the_name(spec: dict[str, Any]) -> None:
    _permission_of(spec, "/v1/queues", "get")["scope"] = "path"


def _every_name_with_any_action(spec: dict[str, Any]) -> None:
    _permission_of(spec, "/v1/signing-keys", "get")["action"] = "any"


def _token_scope_on_a_kind(spec: dict[str, Any]) -> None:
    _permission_of(spec, "/v1/token", "get")["resource"] = "queue"


def _operation_gone(spec: dict[str, Any]) -> None:
    del spec["paths"]["/v1/signing-keys"]


def _operation_renamed(spec: dict[str, Any]) -> None:
    spec["paths"]["/v1/streams/{stream}"]["get"]["operationId"] = "fetchStream"


def _secured_operation_made_public(spec: dict[str, Any]) -> None:
    spec["paths"]["/v1/streams/{stream}"]["delete"]["security"] = []


def _public_operation_secured(spec: dict[str, Any]) -> None:
    health = spec["paths"]["/v1/health"]["get"]
    del health["security"]
    health["x-spool-permission"] = {"resource": "stream", "action": "consume", "scope": "every"}


UNENFORCEABLE: list[tuple[SpecEdit, str]] = [
    (
        _without_permission,
        ": deleteStream (DELETE /v1/streams/{stream}) needs a token but states no x-spool-permission",
    ),
    (_health_secured, ": getHealth (GET /v1/health) needs a token but states no"),
    (
        _unknown_action,
        ": putQueue (PUT /v1/queues/{queue}): x-spool-permission action 'write' is not one of "
        "publish, consume, admin, any",
    ),
    (_extra_key, ": putQueue (PUT /v1/queues/{queue}): x-spool-permission must have exactly"),
    (
        _path_scope_without_the_name,
        ": listQueues (GET /v1/queues): scope path checks the queue named in the path, but the path "
        "has no {queue} parameter",
    ),
    (_every_name_with_any_action, ": getSigningKeys (GET /v1/signing-keys): scope every needs"),
    (
        _token_scope_on_a_kind,
        ": getToken (GET /v1/token): scope token needs resource '*' and action any",
    ),
    (
        _operation_gone,
        " has no operation GET /v1/signing-keys, which the service serves with get_signing_keys",
    ),
    (
        _operation_renamed,
        ": GET /v1/streams/{stream} is fetchStream, but the service serves it with get_stream",
    ),
    (
        _secured_operation_made_public,
        ": deleteStream (DELETE /v1/streams/{stream}) needs no token, but the service serves it "
        "to token holders only",
    ),
    (
        _public_operation_secured,
        ": getHealth (GET /v1/health) needs a token, but the service serves it to anyone",
    ),
]


@pytest.mark.parametrize(
    ("edit", "error"), UNENFORCEABLE, ids=[edit.__name__[1:] for edit, _ in UNENFORCEABLE]
)
def test_the_service_does_not_start_from_a_document_it_cannot_enforce(
    tmp_path: Path, edit: SpecEdit, error: str
) -> None:
    """An operation that needs a token but states no permission or one the service cannot apply,
    and a route whose operation the document lacks, names otherwise or keeps public when the route
    does not (or the other way round), stop the app from being built, naming the document and the
    operation.
    """
    spec_path = _edited_spec(tmp_path, edit)
    with pytest.raises(SpecError, match=re.escape(f"{spec_path}{error}")):
        create_app(Settings(tokens=(), spec_path=spec_path), services=())


def _append_needs_admin(spec: dict[str, Any]) -> None:
    _permission_of(spec, "/v1/streams/{stream}/entries", "post")["action"] = "admin"


def _publishing_messages_needs_consume(spec: dict[str, Any]) -> None:
    _permission_of(spec, "/v1/messages", "post")["action"] = "consume"


async def test_the_service_enforces_what_the_document_says_not_what_it_said(
    tmp_path: Path, sqlite_store_url: str
) -> None:
    """With appendEntry changed from publish to admin in the document, publish is refused and
    admin is enough: the permission is read from the document the app is built from.
    """
    publisher = _token("publisher", [("stream", "*", frozenset({"publish"}))])
    admin = _token("admin", [("stream", "*", frozenset({"admin"}))])
    spec_path = _edited_spec(tmp_path, _append_needs_admin)
    async with _app([publisher, admin], sqlite_store_url, spec_path) as client:
        entry = {"body": 1}
        refused = await client.post(
            "/v1/streams/events/entries",
            json=entry,
            headers={"Authorization": f"Bearer {publisher.secret}"},
        )
        problem = assert_problem(refused, 403, "permission_denied")
        assert problem["detail"] == "token 'publisher' may not admin on stream 'events'"
        appended = await client.post(
            "/v1/streams/events/entries",
            json=entry,
            headers={"Authorization": f"Bearer {admin.secret}"},
        )
        assert appended.status_code == 201, appended.text


async def test_a_handler_checks_the_body_against_the_documented_action(
    tmp_path: Path, sqlite_store_url: str
) -> None:
    """With publishMessage changed from publish to consume in the document, both the check made
    before the body is read and the check of each destination in it ask for consume.
    """
    publisher = _token("publisher", [("message", "*", frozenset({"publish"}))])
    hooks = _token("hooks", [("message", "https://example.com/hooks/*", frozenset({"consume"}))])
    spec_path = _edited_spec(tmp_path, _publishing_messages_needs_consume)
    async with _app([publisher, hooks], sqlite_store_url, spec_path) as client:
        as_publisher = {"Authorization": f"Bearer {publisher.secret}"}
        as_hooks = {"Authorization": f"Bearer {hooks.secret}"}
        hook = {"url": "https://example.com/hooks/a", "body": 1}
        refused = await client.post("/v1/messages", json=hook, headers=as_publisher)
        problem = assert_problem(refused, 403, "permission_denied")
        assert problem["detail"] == "token 'publisher' may not consume on messages"
        accepted = await client.post("/v1/messages", json=hook, headers=as_hooks)
        assert accepted.status_code == 202, accepted.text
        elsewhere = {"url": "https://other.example.com/", "body": 1}
        refused = await client.post("/v1/messages", json=elsewhere, headers=as_hooks)
        problem = assert_problem(refused, 403, "permission_denied")
        assert problem["detail"] == (
            "token 'hooks' may not consume on message 'https://other.example.com/'"
        )


ADMIN: frozenset[Action] = frozenset({"admin"})
# Which permissions read the signing keys: one that covers every message by the glob `*`, on
# messages or on every kind. No URL glob does, not even one covering every URL, since a message is
# also named by its URL group; nor do globs that together cover every name.
SIGNING_KEY_READERS: dict[str, list[tuple[Resource, str, frozenset[Action]]]] = {
    "admin-on-every-message": [("message", "*", ADMIN)],
    "admin-on-every-kind": [("*", "*", ADMIN)],
    "every-action-on-every-message": [("message", "*", ALL_ACTIONS)],
}
NOT_SIGNING_KEY_READERS: dict[str, list[tuple[Resource, str, frozenset[Action]]]] = {
    "admin-on-https": [("message", "https://*", ADMIN)],
    "admin-on-one-host": [("message", "http://host.example/*", ADMIN)],
    "admin-on-every-url": [("message", "*://*:*", ADMIN)],
    "admin-on-every-url-and-path": [("message", "*://*:*/*", ADMIN)],
    "admin-on-every-url-and-group-name": [("message", "*://*:*", ADMIN), ("message", "?*", ADMIN)],
    "admin-on-every-group-name": [("message", "*?", ADMIN)],
    "publish-and-consume-on-every-message": [("message", "*", ALL_ACTIONS - ADMIN)],
    "admin-on-every-url-group": [("url_group", "*", ADMIN)],
}


async def test_the_signing_keys_need_admin_on_every_message(sqlite_store_url: str) -> None:
    """getSigningKeys' scope every: admin on `*`, for messages or every kind, reads the keys;
    admin on a URL glob, on every URL, or on every URL and every group name by two globs does not.
    """
    readers = [_token(token_id, rules) for token_id, rules in SIGNING_KEY_READERS.items()]
    others = [_token(token_id, rules) for token_id, rules in NOT_SIGNING_KEY_READERS.items()]
    async with _app([*readers, *others], sqlite_store_url) as client:
        for token in readers:
            response = await client.get(
                "/v1/signing-keys", headers={"Authorization": f"Bearer {token.secret}"}
            )
            assert response.status_code == 200, (token.id, response.text)
            assert sorted(response.json()) == ["current", "next", "standard_webhooks"]
        for token in others:
            response = await client.get(
                "/v1/signing-keys", headers={"Authorization": f"Bearer {token.secret}"}
            )
            problem = assert_problem(response, 403, "permission_denied")
            assert problem["detail"] == (
                f"token {token.id!r} needs admin on every message (name '*') to read the signing "
                "keys"
            ), token.id


def test_the_document_says_which_permissions_read_the_signing_keys() -> None:
    """getSigningKeys' description names the permissions the test above finds enough and says
    that no URL glob is.
    """
    (operation,) = [op for op in operations() if op.operation_id == "getSigningKeys"]
    assert operation.raw["x-spool-permission"] == {
        "resource": "message",
        "action": "admin",
        "scope": "every",
    }
    description = " ".join(operation.raw["description"].split())
    for stated in (
        "`admin` on every message, that is on messages named exactly `*`",
        "or on every kind (resource `*`) named `*`",
        "No URL glob is enough, not even `*://*:*`",
    ):
        assert stated in description


EVERY_SECURED = [*SECURED, *OWN_TOKEN]


@pytest.mark.parametrize("operation", EVERY_SECURED, ids=[op.operation_id for op in EVERY_SECURED])
async def test_a_query_parameter_the_operation_does_not_take_is_400(
    operation: Operation, sqlite_store_url: str
) -> None:
    """Once the token and the permission pass, a query parameter that the document does not give
    the operation is refused before the handler runs, naming the closest one it does take; the
    operation's own parameters beside it do not hide it.
    """
    everything = _token("everything", [(kind, "*", ALL_ACTIONS) for kind in KINDS])
    async with _app([everything], sqlite_store_url) as client:
        response = await _send(
            client, operation, everything.secret, extra_query={"lable": "signup"}
        )
    problem = assert_problem(response, 400, "malformed_request")
    assert "unknown query parameter 'lable'" in problem["detail"]
    takes_label = any(
        parameter["in"] == "query" and parameter["name"] == "label"
        for parameter in operation.parameters
    )
    assert ("did you mean 'label'?" in problem["detail"]) is takes_label


async def test_the_public_operations_ignore_their_query(sqlite_store_url: str) -> None:
    """Health checks and the document are fetched with whatever query a prober or a cache adds."""
    async with _app([], sqlite_store_url) as client:
        for path in ("/v1/health", "/openapi.yaml", "/docs"):
            response = await client.get(path, params={"t": "1"})
            assert response.status_code == 200, (path, response.text)
