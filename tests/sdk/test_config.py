"""Where a client's settings come from, how they are checked, and that secrets stay hidden."""

from __future__ import annotations

import httpx
import pytest

import sdk
from sdk._config import redact_url, resolve_settings
from tests.sdk._support import API_KEY, BASE_URL


def settings(**overrides: object) -> object:
    """resolve_settings with defaults for what a test does not care about."""
    arguments: dict[str, object] = {
        "base_url": BASE_URL,
        "api_key": None,
        "timeout": 10.0,
        "max_retries": 3,
    }
    arguments.update(overrides)
    return resolve_settings(**arguments)  # type: ignore[arg-type]


def test_arguments_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Explicit base_url and api_key beat $SPOOL_BASE_URL and $SPOOL_API_KEY."""
    monkeypatch.setenv("SPOOL_BASE_URL", "http://from-env.test")
    monkeypatch.setenv("SPOOL_API_KEY", "env-key")
    resolved = resolve_settings(
        base_url="http://arg.test", api_key="arg-key", timeout=1.0, max_retries=0
    )
    assert (resolved.base_url, resolved.api_key) == ("http://arg.test", "arg-key")


def test_the_environment_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without arguments the environment variables are used."""
    monkeypatch.setenv("SPOOL_BASE_URL", "http://from-env.test/")
    monkeypatch.setenv("SPOOL_API_KEY", "env-key")
    resolved = resolve_settings(base_url=None, api_key=None, timeout=1.0, max_retries=0)
    assert (resolved.base_url, resolved.api_key) == ("http://from-env.test", "env-key")


def test_an_http_clients_base_url_comes_before_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A client built around an httpx.Client with a base URL talks to that URL."""
    monkeypatch.setenv("SPOOL_BASE_URL", "http://from-env.test")
    with httpx.Client(base_url="http://from-http-client.test") as http:
        client = sdk.Client(http_client=http)
        assert "from-http-client.test" in repr(client)


def test_a_missing_base_url_is_a_clear_configuration_error() -> None:
    """No argument and no environment variable: a ConfigurationError naming both fixes."""
    with pytest.raises(sdk.ConfigurationError, match="SPOOL_BASE_URL") as raised:
        sdk.Client()
    assert isinstance(raised.value, ValueError)


@pytest.mark.parametrize(
    "url", ["ftp://spool.test", "spool.test", "http://", "http://:80", "http://[::1"]
)
def test_a_bad_base_url_is_refused(url: str) -> None:
    """Only http(s) URLs with a host are accepted."""
    with pytest.raises(sdk.ConfigurationError):
        sdk.Client(url)


@pytest.mark.parametrize("key", ["with space", "trailing-newline\n", "tab\tkey", "ünicode"])
def test_a_malformed_api_key_is_refused_without_echoing_it(key: str) -> None:
    """A key that cannot be a header is refused, and the message never contains it."""
    with pytest.raises(sdk.ConfigurationError) as raised:
        sdk.Client(BASE_URL, key)
    assert key.strip() not in str(raised.value)


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf"), True, "10"])
def test_a_bad_timeout_is_refused(timeout: object) -> None:
    """The timeout is a positive, finite number of seconds (or an httpx.Timeout)."""
    with pytest.raises(sdk.ConfigurationError):
        sdk.Client(BASE_URL, timeout=timeout)  # type: ignore[arg-type]


@pytest.mark.parametrize("max_retries", [-1, 1.5, True, None])
def test_bad_max_retries_are_refused(max_retries: object) -> None:
    """max_retries is an int >= 0."""
    with pytest.raises(sdk.ConfigurationError):
        sdk.Client(BASE_URL, max_retries=max_retries)  # type: ignore[arg-type]


def test_the_default_timeout_is_ten_seconds() -> None:
    """The generated client has no timeout; the SDK always sets one."""
    assert settings().timeout == httpx.Timeout(10.0)  # type: ignore[attr-defined]
    custom = httpx.Timeout(3.0, connect=1.0)
    assert settings(timeout=custom).timeout is custom  # type: ignore[attr-defined]


def test_a_given_http_client_keeps_its_own_base_url_headers_and_timeout() -> None:
    """The SDK leaves a caller's httpx.Client as it is (its requests carry the base URL, key and
    timeout: tests/sdk/test_client.py) and leaves it open on close.
    """
    http = httpx.Client()
    client = sdk.Client(BASE_URL, API_KEY, timeout=4.0, http_client=http)
    assert http.base_url == httpx.URL("")
    assert "Authorization" not in http.headers
    assert http.timeout == httpx.Timeout(5.0)
    sdk.Client(BASE_URL, API_KEY, http_client=http).close()
    assert http.event_hooks == {"request": [], "response": []}  # answers are read, not hooked
    client.close()
    assert not http.is_closed
    http.close()


@pytest.mark.parametrize(
    ("client_class", "http_class"),
    [(sdk.Client, httpx.AsyncClient), (sdk.AsyncClient, httpx.Client)],
)
def test_the_wrong_kind_of_http_client_is_refused(client_class: type, http_class: type) -> None:
    """A Client needs an httpx.Client, an AsyncClient an httpx.AsyncClient."""
    with pytest.raises(sdk.ConfigurationError):
        client_class(BASE_URL, http_client=http_class())


def test_a_bad_codec_is_refused() -> None:
    """The codec needs encode() and decode()."""
    with pytest.raises(sdk.ConfigurationError):
        sdk.Client(BASE_URL, codec=object())  # type: ignore[arg-type]


@pytest.mark.parametrize("client_class", [sdk.Client, sdk.AsyncClient])
def test_repr_hides_the_api_key_and_url_credentials(client_class: type) -> None:
    """repr shows where the client points and whether it has a key, never the key itself."""
    client = client_class("https://user:password@spool.test/?token=abc", API_KEY)
    text = repr(client)
    assert API_KEY not in text
    assert "password" not in text and "abc" not in text
    assert text == f"{client_class.__name__}(base_url='https://spool.test/', api_key='***')"
    assert API_KEY not in repr(vars(client))


def test_redact_url_drops_user_info_query_and_fragment() -> None:
    """Credentials hidden in a URL never reach reprs, logs or messages."""
    assert redact_url("https://u:p@host:8443/hooks/a?sig=1#frag") == "https://host:8443/hooks/a"
    assert redact_url("not a url\x00") == "<invalid URL>"
