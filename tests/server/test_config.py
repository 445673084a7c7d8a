"""Loading settings (server/config.py): token files, $SPOOL_TOKENS, the development mode and the
delivery engine's and the metrics' settings.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from pathlib import Path

import pytest

from server.config import (
    DEFAULT_DEV_TOKEN,
    DEFAULT_LEASE_MARGIN_SECONDS,
    DEFAULT_LOGS_RETENTION_SECONDS,
    ConfigError,
    RateLimit,
    Settings,
    load_settings,
)
from server.delivery import DeliverySettings

YAML_CONFIG = """
tokens:
  - id: billing
    token_env: BILLING_TOKEN
    quota: 1000
    rate_limit: {per_second: 5, burst: 10}
    permissions:
      - {resource: queue, name: "billing-*", actions: [publish, consume]}
      - {resource: message, name: "https://hooks.example.com/*", actions: [publish]}
  - id: ops
    token: ops-secret
    permissions:
      - {resource: "*", actions: [admin]}
destinations:
  allow: [localhost, 10.0.0.0/8]
signing_keys: {current: key-now, next: key-later}
idempotency_ttl_seconds: 60
message_deduplication_window_seconds: 0
"""


def test_a_yaml_file_gives_tokens_permissions_and_limits(tmp_path: Path) -> None:
    """Every documented key of the file is read, secrets from the environment when asked."""
    path = tmp_path / "spool.yaml"
    path.write_text(YAML_CONFIG)
    settings = load_settings(
        store_url="redis://r", config_path=path, environ={"BILLING_TOKEN": "billing-secret"}
    )
    billing, ops = settings.tokens
    assert (billing.id, billing.secret, billing.quota) == ("billing", "billing-secret", 1000)
    assert billing.rate_limit == RateLimit(per_second=5, burst=10)
    assert [(rule.resource, rule.name) for rule in billing.permissions] == [
        ("queue", "billing-*"),
        ("message", "https://hooks.example.com/*"),
    ]
    assert billing.permissions[0].actions == {"publish", "consume"}
    assert (ops.secret, ops.permissions[0].name) == ("ops-secret", "*")
    assert settings.store_url == "redis://r"
    assert not settings.development
    assert settings.allowed_destinations == ("localhost", "10.0.0.0/8")
    assert (settings.signing_keys.current, settings.signing_keys.next) == ("key-now", "key-later")
    assert settings.idempotency_ttl_seconds == 60
    assert settings.message_dedup_window_seconds == 0


def test_spool_config_names_the_file(tmp_path: Path) -> None:
    """$SPOOL_CONFIG is used when no path is passed; JSON files work too."""
    path = tmp_path / "spool.json"
    path.write_text(json.dumps({"tokens": [{"id": "a", "token": "s", "permissions": []}]}))
    settings = load_settings(environ={"SPOOL_CONFIG": str(path)})
    assert [token.id for token in settings.tokens] == ["a"]


@pytest.mark.parametrize(
    "document",
    [
        [{"id": "a", "token": "s", "permissions": []}],
        {"tokens": [{"id": "a", "token": "s", "permissions": []}]},
    ],
)
def test_spool_tokens_takes_a_list_or_the_file_shape(document: object) -> None:
    """$SPOOL_TOKENS holds JSON: a list of tokens or an object with ``tokens``."""
    settings = load_settings(environ={"SPOOL_TOKENS": json.dumps(document)})
    assert [token.secret for token in settings.tokens] == ["s"]


def test_without_configuration_the_dev_mode_has_one_full_token(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """No configuration means development mode, with a warning and one full-access token."""
    with caplog.at_level(logging.WARNING, logger="spool.server"):
        settings = load_settings(environ={})
    assert settings.development
    (token,) = settings.tokens
    assert token.secret == DEFAULT_DEV_TOKEN
    assert token.permissions[0].resource == "*"
    assert token.permissions[0].actions == {"publish", "consume", "admin"}
    assert "development mode" in caplog.text
    assert DEFAULT_DEV_TOKEN not in caplog.text


def test_the_dev_token_can_be_chosen() -> None:
    """$SPOOL_DEV_TOKEN replaces the default development token."""
    settings = load_settings(environ={"SPOOL_DEV_TOKEN": "mine"})
    assert settings.tokens[0].secret == "mine"


def test_environment_adds_destinations_and_signing_keys() -> None:
    """$SPOOL_ALLOW_DESTINATIONS and the two signing key variables are read in any mode."""
    settings = load_settings(
        environ={
            "SPOOL_ALLOW_DESTINATIONS": "localhost, 127.0.0.1 ,",
            "SPOOL_SIGNING_KEY": "k1",
            "SPOOL_NEXT_SIGNING_KEY": "k2",
        }
    )
    assert settings.allowed_destinations == ("localhost", "127.0.0.1")
    assert (settings.signing_keys.current, settings.signing_keys.next) == ("k1", "k2")


@pytest.mark.parametrize(
    "entry", ["bad entry", "http://example.com", "10.0.0.0/33", "-leading-dash.example"]
)
def test_a_bad_allowed_destination_in_the_environment_is_a_config_error(entry: str) -> None:
    """A $SPOOL_ALLOW_DESTINATIONS entry the destination policy cannot read is refused by name."""
    with pytest.raises(ConfigError) as raised:
        load_settings(environ={"SPOOL_ALLOW_DESTINATIONS": f"localhost, {entry}"})
    message = str(raised.value)
    assert message.startswith("$SPOOL_ALLOW_DESTINATIONS: ")
    assert f"{entry!r} is not a hostname, an IP address or a network" in message


@pytest.mark.parametrize("entry", ["bad entry", "", "example.com:8080"])
def test_a_bad_allowed_destination_in_the_file_is_a_config_error(
    tmp_path: Path, entry: str
) -> None:
    """A ``destinations.allow`` entry the destination policy cannot read names the file and key."""
    path = tmp_path / "spool.yaml"
    token = {"id": "a", "token": "s", "permissions": []}
    path.write_text(json.dumps({"tokens": [token], "destinations": {"allow": ["::1", entry]}}))
    with pytest.raises(ConfigError) as raised:
        load_settings(config_path=path, environ={})
    message = str(raised.value)
    assert message.startswith(f"{path}: destinations.allow: ")
    assert repr(entry) in message


def test_generated_signing_keys_are_warned_about_outside_dev_mode(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A configured deployment without signing keys gets random ones and a warning."""
    with caplog.at_level(logging.WARNING, logger="spool.server"):
        settings = load_settings(
            environ={"SPOOL_TOKENS": '[{"id": "a", "token": "s", "permissions": []}]'}
        )
    assert settings.signing_keys.current != settings.signing_keys.next
    assert "signing keys" in caplog.text


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"tokens": []}, "tokens"),
        ({"tokens": [{"id": "a", "permissions": []}]}, "exactly one of `token` and `token_env`"),
        (
            {"tokens": [{"id": "a", "token": "s", "token_env": "X", "permissions": []}]},
            "exactly one",
        ),
        ({"tokens": [{"id": "a", "token": "s", "permissions": [], "quota": -1}]}, "quota"),
        (
            {
                "tokens": [
                    {
                        "id": "a",
                        "token": "s",
                        "permissions": [{"resource": "topic", "actions": ["publish"]}],
                    }
                ]
            },
            "resource",
        ),
        (
            {
                "tokens": [
                    {
                        "id": "a",
                        "token": "s",
                        "permissions": [{"resource": "queue", "actions": ["delete"]}],
                    }
                ]
            },
            "actions",
        ),
        ({"tokens": [{"id": "a", "token": "s", "permissions": []}], "extra": 1}, "extra"),
        ({"tokens": [{"id": "a", "token_env": "UNSET_VARIABLE", "permissions": []}]}, "UNSET"),
        (
            {
                "tokens": [
                    {"id": "a", "token": "s1", "permissions": []},
                    {"id": "a", "token": "s2", "permissions": []},
                ]
            },
            "unique",
        ),
        (
            {
                "tokens": [
                    {"id": "a", "token": "hunter2", "permissions": []},
                    {"id": "b", "token": "hunter2", "permissions": []},
                ]
            },
            "same secret",
        ),
        (
            {
                "tokens": [
                    {
                        "id": "a",
                        "token": "s",
                        "permissions": [
                            {
                                "resource": "message",
                                "name": "ftp://files.example.com/*",
                                "actions": ["publish"],
                            }
                        ],
                    }
                ]
            },
            r"tokens.0.permissions.0.name: .*URL glob 'ftp://files.example.com/\*': the scheme",
        ),
    ],
)
def test_invalid_configurations_say_what_is_wrong(
    tmp_path: Path, document: object, message: str
) -> None:
    """A bad file is a ConfigError naming the field, never a half-loaded configuration."""
    path = tmp_path / "spool.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ConfigError, match=message):
        load_settings(config_path=path, environ={})


def test_unreadable_and_unparsable_files_are_config_errors(tmp_path: Path) -> None:
    """A missing file, broken YAML or broken $SPOOL_TOKENS are ConfigErrors."""
    with pytest.raises(ConfigError, match="cannot read"):
        load_settings(config_path=tmp_path / "absent.yaml", environ={})
    broken = tmp_path / "broken.yaml"
    broken.write_text("tokens: [unclosed")
    with pytest.raises(ConfigError, match="neither YAML nor JSON"):
        load_settings(config_path=broken, environ={})
    with pytest.raises(ConfigError, match="SPOOL_TOKENS"):
        load_settings(environ={"SPOOL_TOKENS": "{nope"})
    with pytest.raises(ConfigError, match="SPOOL_NEXT_SIGNING_KEY"):
        load_settings(environ={"SPOOL_SIGNING_KEY": "only-one"})


def test_rate_limit_burst_defaults_to_one_second_of_requests(tmp_path: Path) -> None:
    """A rate limit without burst allows one second's worth of requests at once."""
    path = tmp_path / "spool.json"
    token = {"id": "a", "token": "s", "permissions": [], "rate_limit": {"per_second": 2.5}}
    path.write_text(json.dumps({"tokens": [token]}))
    settings = load_settings(config_path=path, environ={})
    assert settings.tokens[0].rate_limit == RateLimit(per_second=2.5, burst=3)


def test_development_settings_can_be_built_directly() -> None:
    """Settings.development_mode is what tests and the embedded default use."""
    settings = Settings.development_mode(token="t", store_url="sqlite:///x.db")
    assert settings.development
    assert settings.tokens[0].secret == "t"
    assert settings.max_body_bytes == 1024 * 1024


def test_duplicate_secrets_are_refused_without_naming_them(tmp_path: Path) -> None:
    """The error about two equal secrets does not quote the secret."""
    path = tmp_path / "spool.json"
    tokens: list[dict[str, object]] = [
        {"id": name, "token": "hunter2", "permissions": []} for name in ("a", "b")
    ]
    path.write_text(json.dumps({"tokens": tokens}))
    with pytest.raises(ConfigError) as raised:
        load_settings(config_path=path, environ={})
    assert "hunter2" not in str(raised.value)


def test_delivery_settings_default_to_the_engines_own() -> None:
    """Without a ``delivery`` section or variables the engine's defaults apply, in any mode."""
    engine_defaults = {field.name: field.default for field in dataclasses.fields(DeliverySettings)}
    for settings in (
        load_settings(environ={}),
        load_settings(environ={"SPOOL_TOKENS": '[{"id": "a", "token": "s", "permissions": []}]'}),
    ):
        assert settings.delivery_lease_margin_seconds == engine_defaults["lease_margin"]
        assert settings.delivery_poll_interval_seconds == engine_defaults["poll_interval"]


def test_the_file_sets_the_delivery_lease_margin_and_poll_interval(tmp_path: Path) -> None:
    """``delivery.lease_margin_seconds`` and ``delivery.poll_interval_seconds`` are read."""
    path = tmp_path / "spool.yaml"
    path.write_text(
        "tokens: [{id: a, token: s, permissions: []}]\n"
        "delivery: {lease_margin_seconds: 2, poll_interval_seconds: 0.05}\n"
    )
    settings = load_settings(config_path=path, environ={})
    assert settings.delivery_lease_margin_seconds == 2
    assert settings.delivery_poll_interval_seconds == 0.05


def test_the_environment_overrides_the_delivery_section(tmp_path: Path) -> None:
    """The two delivery variables win over the file, and work in development mode too."""
    path = tmp_path / "spool.yaml"
    path.write_text(
        "tokens: [{id: a, token: s, permissions: []}]\n"
        "delivery: {lease_margin_seconds: 2, poll_interval_seconds: 0.05}\n"
    )
    environ = {"SPOOL_DELIVERY_LEASE_MARGIN": " 1.5 ", "SPOOL_DELIVERY_POLL_INTERVAL": "0.5"}
    for settings in (
        load_settings(config_path=path, environ=environ),
        load_settings(environ=environ),
    ):
        assert settings.delivery_lease_margin_seconds == 1.5
        assert settings.delivery_poll_interval_seconds == 0.5
    only_margin = load_settings(config_path=path, environ={"SPOOL_DELIVERY_LEASE_MARGIN": "7"})
    assert only_margin.delivery_lease_margin_seconds == 7
    assert only_margin.delivery_poll_interval_seconds == 0.05


@pytest.mark.parametrize(
    ("delivery", "message"),
    [
        (
            {"lease_margin_seconds": 0},
            "delivery.lease_margin_seconds: Input should be greater than 0",
        ),
        ({"poll_interval_seconds": -1}, "delivery.poll_interval_seconds: Input should be greater"),
        ({"lease_margin_seconds": "inf"}, "delivery.lease_margin_seconds: Input should be a valid"),
        (
            {"poll_interval_seconds": True},
            "delivery.poll_interval_seconds: Input should be a valid",
        ),
        ({"lease_margin_seconds": "30"}, "delivery.lease_margin_seconds: Input should be a valid"),
        ({"lease_margin": 30}, "delivery.lease_margin: Extra inputs are not permitted"),
    ],
)
def test_a_bad_delivery_section_is_a_config_error(
    tmp_path: Path, delivery: dict[str, object], message: str
) -> None:
    """Delivery seconds must be positive finite numbers; the error names the file and the key."""
    path = tmp_path / "spool.json"
    token = {"id": "a", "token": "s", "permissions": []}
    path.write_text(json.dumps({"tokens": [token], "delivery": delivery}))
    with pytest.raises(ConfigError) as raised:
        load_settings(config_path=path, environ={})
    assert str(raised.value).startswith(f"{path}: ")
    assert message in str(raised.value)


def test_an_infinite_delivery_setting_in_yaml_is_a_config_error(tmp_path: Path) -> None:
    """YAML's ``.inf`` is a float, but not a usable number of seconds."""
    path = tmp_path / "spool.yaml"
    path.write_text(
        "tokens: [{id: a, token: s, permissions: []}]\ndelivery: {lease_margin_seconds: .inf}\n"
    )
    with pytest.raises(
        ConfigError, match="delivery.lease_margin_seconds: Input should be a finite number"
    ):
        load_settings(config_path=path, environ={})


@pytest.mark.parametrize(
    "variable", ["SPOOL_DELIVERY_LEASE_MARGIN", "SPOOL_DELIVERY_POLL_INTERVAL"]
)
@pytest.mark.parametrize("value", ["0", "-2", "nan", "inf", "30s", "true"])
def test_a_bad_delivery_variable_is_a_config_error(variable: str, value: str) -> None:
    """A delivery variable that is not a positive finite number of seconds is refused by name."""
    with pytest.raises(ConfigError) as raised:
        load_settings(environ={variable: value})
    assert str(raised.value) == (
        f"${variable} must be a positive, finite number of seconds, got {value!r}"
    )


def test_an_empty_delivery_variable_counts_as_unset() -> None:
    """An empty variable leaves the default, as the other variables do."""
    settings = load_settings(
        environ={"SPOOL_DELIVERY_LEASE_MARGIN": "", "SPOOL_DELIVERY_POLL_INTERVAL": " "}
    )
    assert settings.delivery_lease_margin_seconds == DEFAULT_LEASE_MARGIN_SECONDS


OPS_ONLY = {
    "tokens": [
        {
            "id": "ops",
            "token": "ops-secret",
            "permissions": [{"resource": "*", "actions": ["admin"]}],
        }
    ]
}


def test_metrics_are_on_in_development_mode_only_by_default(tmp_path: Path) -> None:
    """Development mode serves open metrics; a configured service none until enabled."""
    development = load_settings(environ={})
    assert development.metrics.enabled
    assert development.metrics.token is None
    config = tmp_path / "spool.json"
    config.write_text(json.dumps(OPS_ONLY))
    assert not load_settings(config_path=config, environ={}).metrics.enabled
    assert not load_settings(environ={"SPOOL_METRICS": "0"}).metrics.enabled


@pytest.mark.parametrize(
    ("switch", "environ"),
    [(True, {}), (False, {"SPOOL_METRICS": "1"}), (False, {"SPOOL_METRICS": " true "})],
)
def test_the_flag_or_the_environment_turns_metrics_on(
    tmp_path: Path, switch: bool, environ: dict[str, str]
) -> None:
    """``--metrics`` (``metrics=True``) or ``$SPOOL_METRICS`` enables them; the flag wins."""
    config = tmp_path / "spool.json"
    config.write_text(json.dumps({**OPS_ONLY, "metrics": {"enabled": False}}))
    settings = load_settings(config_path=config, metrics=switch, environ=environ)
    assert settings.metrics.enabled


def test_the_file_enables_metrics_with_a_token_and_streams(tmp_path: Path) -> None:
    """``metrics`` in the file: the switch, the token from the environment, the streams once each."""
    config = tmp_path / "spool.json"
    section = {"enabled": True, "token_env": "SCRAPE_TOKEN", "streams": ["orders", "orders", "a"]}
    config.write_text(json.dumps({**OPS_ONLY, "metrics": section}))
    settings = load_settings(config_path=config, environ={"SCRAPE_TOKEN": "scrape-secret"})
    assert settings.metrics.enabled
    assert settings.metrics.token == "scrape-secret"
    assert settings.metrics.streams == ("orders", "a")
    assert "scrape-secret" not in repr(settings)
    inline = {**OPS_ONLY, "metrics": {"enabled": True, "token": "inline-secret"}}
    config.write_text(json.dumps(inline))
    environ = {"SPOOL_METRICS_TOKEN": "from-environment"}
    assert load_settings(config_path=config, environ=environ).metrics.token == "inline-secret"
    config.write_text(json.dumps({**OPS_ONLY, "metrics": {"enabled": True}}))
    assert load_settings(config_path=config, environ=environ).metrics.token == "from-environment"


@pytest.mark.parametrize(
    ("section", "environ", "message"),
    [
        ({"token_env": "UNSET_TOKEN"}, {}, "metrics.token_env reads $UNSET_TOKEN"),
        ({"token": "a", "token_env": "B"}, {"B": "b"}, "at most one of `token` and `token_env`"),
        ({"enabled": "yes"}, {}, "metrics.enabled"),
        ({"streams": [""]}, {}, "metrics.streams.0"),
        ({"streams": [f"s{n}" for n in range(101)]}, {}, "metrics.streams"),
        ({"enabled": True}, {"SPOOL_METRICS": "maybe"}, "$SPOOL_METRICS must be 1 or 0"),
    ],
)
def test_a_bad_metrics_setting_is_a_config_error(
    tmp_path: Path, section: dict[str, object], environ: dict[str, str], message: str
) -> None:
    """Each mistake in the metrics section names itself."""
    config = tmp_path / "spool.json"
    config.write_text(json.dumps({**OPS_ONLY, "metrics": section}))
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_settings(config_path=config, environ=environ)


def test_the_console_is_on_in_development_mode_only_by_default(tmp_path: Path) -> None:
    """Development mode serves the console; a configured service not until enabled."""
    assert load_settings(environ={}).console
    config = tmp_path / "spool.json"
    config.write_text(json.dumps(OPS_ONLY))
    assert not load_settings(config_path=config, environ={}).console
    assert not load_settings(environ={"SPOOL_CONSOLE": "0"}).console


@pytest.mark.parametrize(
    ("switch", "section", "environ", "expected"),
    [
        (True, {"enabled": False}, {}, True),
        (False, {"enabled": False}, {"SPOOL_CONSOLE": "1"}, True),
        (False, {"enabled": True}, {}, True),
        (False, {"enabled": True}, {"SPOOL_CONSOLE": "off"}, False),
        (True, {"enabled": False}, {"SPOOL_CONSOLE": "0"}, True),
    ],
)
def test_the_flag_the_environment_or_the_file_turns_the_console_on(
    tmp_path: Path,
    switch: bool,
    section: dict[str, object],
    environ: dict[str, str],
    expected: bool,
) -> None:
    """``--console`` (``console=True``) wins, then ``$SPOOL_CONSOLE``, then ``console.enabled``."""
    config = tmp_path / "spool.json"
    config.write_text(json.dumps({**OPS_ONLY, "console": section}))
    assert load_settings(config_path=config, console=switch, environ=environ).console is expected


@pytest.mark.parametrize(
    ("section", "environ", "message"),
    [
        ({"enabled": "yes"}, {}, "console.enabled"),
        ({"enabled": True, "token": "x"}, {}, "console.token"),
        ({}, {"SPOOL_CONSOLE": "maybe"}, "$SPOOL_CONSOLE must be 1 or 0"),
        ({"session_seconds": 0}, {}, "console.session_seconds"),
        ({"idle_seconds": "60"}, {}, "console.idle_seconds"),
    ],
)
def test_a_bad_console_setting_is_a_config_error(
    tmp_path: Path, section: dict[str, object], environ: dict[str, str], message: str
) -> None:
    """Each mistake in the console section names itself."""
    config = tmp_path / "spool.json"
    config.write_text(json.dumps({**OPS_ONLY, "console": section}))
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_settings(config_path=config, environ=environ)


def test_the_file_sets_how_long_a_console_session_lasts(tmp_path: Path) -> None:
    """``console.session_seconds`` and ``console.idle_seconds``; eight hours and one without."""
    config = tmp_path / "spool.json"
    config.write_text(json.dumps(OPS_ONLY))
    default = load_settings(config_path=config, environ={})
    assert (default.console_session_seconds, default.console_idle_seconds) == (28800, 3600)
    section = {"enabled": True, "session_seconds": 600, "idle_seconds": 1.5}
    config.write_text(json.dumps({**OPS_ONLY, "console": section}))
    settings = load_settings(config_path=config, environ={})
    assert (settings.console_session_seconds, settings.console_idle_seconds) == (600, 1.5)


def test_the_logs_retention_comes_from_the_file_or_the_environment(tmp_path: Path) -> None:
    """``logs.retention_seconds`` sets how long events are kept, ``$SPOOL_LOGS_RETENTION``
    overrides it, and either way a week is the default.
    """
    path = tmp_path / "spool.yaml"
    path.write_text(
        "tokens: [{id: a, token: secret, permissions: []}]\nlogs: {retention_seconds: 3600}\n"
    )
    assert load_settings(config_path=path, environ={}).logs_retention_seconds == 3600
    environ = {"SPOOL_LOGS_RETENTION": "60"}
    assert load_settings(config_path=path, environ=environ).logs_retention_seconds == 60
    assert load_settings(environ=environ).logs_retention_seconds == 60
    assert (
        load_settings(environ={}).logs_retention_seconds
        == DEFAULT_LOGS_RETENTION_SECONDS
        == 7 * 86400
    )
    path.write_text(
        "tokens: [{id: a, token: secret, permissions: []}]\nlogs: {retention_seconds: 0}\n"
    )
    with pytest.raises(ConfigError, match="logs.retention_seconds: Input should be greater"):
        load_settings(config_path=path, environ={})
