"""Bearer tokens and permissions (server/auth.py), through the app and directly."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable

import pytest

from server.auth import Principal, TokenRegistry
from server.config import Action, Permission, Resource, Settings, TokenConfig
from server.problems import ProblemError
from tests.conftest import TEST_DESTINATIONS, RunningApp, assert_problem

AppFactory = Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]]
TokenClients = Callable[[TokenConfig], contextlib.AbstractAsyncContextManager[RunningApp]]
HOOK = "https://example.com/hooks/a"


def _token(token_id: str, *rules: tuple[Resource, str, tuple[Action, ...]]) -> TokenConfig:
    return TokenConfig(
        id=token_id,
        secret=f"secret-{token_id}",
        permissions=tuple(
            Permission(resource=resource, name=name, actions=frozenset(actions))
            for resource, name, actions in rules
        ),
    )


ADMIN = _token("admin", ("*", "*", ("publish", "consume", "admin")))
BILLING = _token(
    "billing",
    ("queue", "billing-*", ("publish", "consume")),
    ("stream", "orders", ("consume",)),
    ("message", "https://example.com/hooks/*", ("publish", "consume")),
    ("message", "partners", ("publish",)),
    ("url_group", "partners", ("consume",)),
)
NOTHING = _token("nothing")


@pytest.fixture
async def apps(app_factory: AppFactory, store_url: str) -> AsyncIterator[TokenClients]:
    """Clients of one app (one store), each presenting a given token."""
    settings = Settings(
        tokens=(ADMIN, BILLING, NOTHING),
        store_url=store_url,
        allowed_destinations=TEST_DESTINATIONS,
    )
    async with app_factory(settings, token=ADMIN.secret) as admin:

        @contextlib.asynccontextmanager
        async def as_token(token: TokenConfig) -> AsyncIterator[RunningApp]:
            previous = admin.client.headers["Authorization"]
            admin.client.headers["Authorization"] = f"Bearer {token.secret}"
            try:
                yield admin
            finally:
                admin.client.headers["Authorization"] = previous

        yield as_token


@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", "Bearer ", "Basic c2VjcmV0", "Bearer wrong-token", "secret-admin"],
)
async def test_missing_or_unknown_tokens_are_401(
    app_factory: AppFactory, store_url: str, authorization: str | None
) -> None:
    """No token, another scheme or an unknown token is 401 unauthenticated with a challenge."""
    settings = Settings(tokens=(ADMIN,), store_url=store_url)
    async with app_factory(settings, token=None) as running:
        headers = {} if authorization is None else {"Authorization": authorization}
        response = await running.client.get("/v1/queues", headers=headers)
        assert_problem(response, 401, "unauthenticated")
        assert response.headers["www-authenticate"].startswith("Bearer")


async def test_the_scheme_is_case_insensitive(app_factory: AppFactory, store_url: str) -> None:
    """``bearer`` works like ``Bearer``, as RFC 9110 wants."""
    settings = Settings(tokens=(ADMIN,), store_url=store_url)
    async with app_factory(settings, token=None) as running:
        response = await running.client.get(
            "/v1/queues", headers={"Authorization": f"bearer {ADMIN.secret}"}
        )
        assert response.status_code == 200


async def test_401_comes_before_validation(api: RunningApp) -> None:
    """A request without a token learns nothing about its body or names: it is 401 first."""
    response = await api.client.post(
        "/v1/streams/bad name/entries", content=b"{", headers={"Authorization": ""}
    )
    assert_problem(response, 401, "unauthenticated")


async def test_health_and_the_document_need_no_token(api: RunningApp) -> None:
    """The two public operations answer without a token."""
    for path in ("/v1/health", "/openapi.yaml"):
        assert (await api.client.get(path, headers={"Authorization": ""})).status_code == 200


async def test_actions_are_checked_per_resource(apps: TokenClients) -> None:
    """A token may do exactly what its permissions name, and gets 403 permission_denied else."""
    async with apps(ADMIN) as running:
        for queue in ("billing-eu", "other"):
            await running.client.put(f"/v1/queues/{queue}", json={})
        await running.client.post("/v1/streams/orders/entries", json={"body": 1})
    async with apps(BILLING) as running:
        client = running.client
        allowed = await client.post("/v1/queues/billing-eu/jobs", json={"topic": "t", "payload": 1})
        assert allowed.status_code == 202
        assert (await client.get("/v1/streams/orders")).status_code == 200
        refused = [
            await client.post("/v1/queues/other/jobs", json={"topic": "t", "payload": 1}),
            await client.delete("/v1/queues/billing-eu"),
            await client.put("/v1/queues/billing-new", json={}),
            await client.post("/v1/streams/orders/entries", json={"body": 1}),
            await client.get("/v1/streams/events"),
            await client.get("/v1/signing-keys"),
            await client.put("/v1/url-groups/partners", json={"endpoints": [{"url": HOOK}]}),
        ]
        for response in refused:
            problem = assert_problem(response, 403, "permission_denied")
            assert "billing" in problem["detail"]


async def test_permission_is_checked_before_the_body(apps: TokenClients) -> None:
    """A refused publish is 403 even with a broken body: the body is never looked at."""
    async with apps(BILLING) as running:
        response = await running.client.post("/v1/queues/other/jobs", content=b"{broken")
        assert_problem(response, 403, "permission_denied")


async def test_message_permissions_match_the_destination_url(
    apps: TokenClients,
) -> None:
    """For messages the glob is matched against the URL, or the group name for URL groups."""
    async with apps(ADMIN) as running:
        await running.client.put("/v1/url-groups/partners", json={"endpoints": [{"url": HOOK}]})
        await running.client.put("/v1/url-groups/others", json={"endpoints": [{"url": HOOK}]})
    async with apps(BILLING) as running:
        client = running.client
        ok = await client.post("/v1/messages", json={"url": HOOK, "body": 1})
        assert ok.status_code == 202
        elsewhere = await client.post(
            "/v1/messages", json={"url": "https://other.example.com/", "body": 1}
        )
        assert_problem(elsewhere, 403, "permission_denied")
        group = await client.post("/v1/messages", json={"url_group": "partners", "body": 1})
        assert group.status_code == 202
        other_group = await client.post("/v1/messages", json={"url_group": "others", "body": 1})
        assert_problem(other_group, 403, "permission_denied")
        message_id = ok.json()["messages"][0]["message_id"]
        assert (await client.get(f"/v1/messages/{message_id}")).status_code == 200


async def test_message_status_needs_permission_on_that_message(
    apps: TokenClients,
) -> None:
    """A token that may read messages to one URL cannot read messages sent elsewhere."""
    async with apps(ADMIN) as running:
        response = await running.client.post(
            "/v1/messages", json={"url": "https://other.example.com/", "body": 1}
        )
        message_id = response.json()["messages"][0]["message_id"]
    async with apps(BILLING) as running:
        assert_problem(
            await running.client.get(f"/v1/messages/{message_id}"), 403, "permission_denied"
        )
        cancelled = await running.client.post(f"/v1/messages/{message_id}/cancel")
        assert_problem(cancelled, 403, "permission_denied")
    async with apps(ADMIN) as running:
        shown = await running.client.get(f"/v1/messages/{message_id}")
        assert shown.json()["state"] == "scheduled"


async def test_a_token_without_any_permission_learns_nothing(apps: TokenClients) -> None:
    """With no permission at all every operation is 403, even on things that do not exist."""
    async with apps(NOTHING) as running:
        client = running.client
        missing_message = "msg_01JDX4Q5Z8K2M3N4P5Q6R7S8T9"
        for response in (
            await client.get("/v1/queues"),
            await client.get("/v1/url-groups"),
            await client.get("/v1/dead-letters"),
            await client.get(f"/v1/messages/{missing_message}"),
            await client.delete(f"/v1/dead-letters/{missing_message}"),
            await client.get("/v1/queues/ghost"),
            await client.get("/v1/url-groups/ghost"),
        ):
            assert_problem(response, 403, "permission_denied")


async def test_lists_show_only_what_the_token_may_see(apps: TokenClients) -> None:
    """listQueues and listUrlGroups leave out resources the token has no permission on."""
    async with apps(ADMIN) as running:
        for queue in ("billing-eu", "other"):
            await running.client.put(f"/v1/queues/{queue}", json={})
        for group in ("partners", "others"):
            await running.client.put(f"/v1/url-groups/{group}", json={"endpoints": [{"url": HOOK}]})
    async with apps(BILLING) as running:
        queues = (await running.client.get("/v1/queues")).json()["queues"]
        assert [queue["name"] for queue in queues] == ["billing-eu"]
        groups = (await running.client.get("/v1/url-groups")).json()["url_groups"]
        assert [group["name"] for group in groups] == ["partners"]
        assert (await running.client.get("/v1/url-groups/partners")).status_code == 200
        assert (await running.client.get("/v1/queues/billing-eu")).status_code == 200


def test_principal_globs_and_kinds() -> None:
    """Globs match names, ``*`` resources cover every kind, and no action implies another."""
    principal = Principal(
        token_id="t",
        permissions=(
            Permission(resource="queue", name="jobs-?", actions=frozenset({"publish"})),
            Permission(resource="*", name="shared", actions=frozenset({"consume"})),
        ),
    )
    assert principal.allows("queue", "jobs-1", "publish")
    assert not principal.allows("queue", "jobs-10", "publish")
    assert not principal.allows("queue", "jobs-1", "admin")
    assert principal.allows("stream", "shared", "consume")
    assert principal.allows_any_action("url_group", "shared")
    assert principal.may_act_on_kind("queue", "publish")
    assert not principal.may_act_on_kind("message", "publish")
    assert not principal.allows_every_name("queue", "publish")


def test_registry_never_shows_the_secret() -> None:
    """The principal a token authenticates as, and its config's repr, hold no secret."""
    registry = TokenRegistry((ADMIN, BILLING))
    principal = registry.authenticate(f"Bearer {BILLING.secret}")
    assert principal.token_id == "billing"
    assert BILLING.secret not in repr(principal)
    assert BILLING.secret not in repr(BILLING)
    with pytest.raises(ProblemError) as refused:
        registry.authenticate("Bearer secret-bill")
    assert refused.value.status == 401


async def test_a_url_glob_never_reaches_from_the_path_into_the_host(
    app_factory: AppFactory, store_url: str
) -> None:
    """``https://*.example.com/*`` lets a token publish to a subdomain, not to another host whose
    path merely contains the domain.
    """
    subdomains = _token("subdomains", ("message", "https://*.example.com/*", ("publish",)))
    settings = Settings(
        tokens=(subdomains,), store_url=store_url, allowed_destinations=TEST_DESTINATIONS
    )
    async with app_factory(settings, token=subdomains.secret) as running:
        allowed = await running.client.post(
            "/v1/messages", json={"url": "https://hooks.example.com/a", "body": "x"}
        )
        assert allowed.status_code == 202, allowed.text
        refused = await running.client.post(
            "/v1/messages", json={"url": "https://evil.com/a.example.com/x", "body": "x"}
        )
        assert_problem(refused, 403, "permission_denied")


def test_each_token_authenticates_as_one_principal() -> None:
    """A token's principal carries its permissions and limits, and is made once, not per request."""
    registry = TokenRegistry((ADMIN, BILLING))
    first = registry.authenticate(f"Bearer {BILLING.secret}")
    assert registry.authenticate(f"bearer {BILLING.secret}") is first
    assert (first.permissions, first.quota, first.rate_limit) == (
        BILLING.permissions,
        BILLING.quota,
        BILLING.rate_limit,
    )
    assert registry.authenticate(f"Bearer {ADMIN.secret}").token_id == ADMIN.id
