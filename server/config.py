"""Service settings: the store, the tokens with their permissions, and the limits.

Tokens come from a YAML or JSON file (``--config PATH`` or ``$SPOOL_CONFIG``) or from
``$SPOOL_TOKENS`` (JSON). Without either the service runs in development mode: one token with every
permission, ``$SPOOL_DEV_TOKEN`` or ``spool-dev-token``. A file looks like::

    tokens:
      - id: billing
        token_env: SPOOL_BILLING_TOKEN      # or `token: <secret>` inline
        quota: 100000                       # optional hard limit on published items
        rate_limit: {per_second: 50, burst: 100}
        permissions:
          - {resource: queue, name: "billing-*", actions: [publish, consume]}
          - {resource: message, name: "https://hooks.example.com/*", actions: [publish]}
    destinations:
      allow: ["127.0.0.1"]                  # destinations exempt from the SSRF refusal
    signing_keys: {current: "...", next: "..."}   # else $SPOOL_SIGNING_KEY/$SPOOL_NEXT_SIGNING_KEY
    delivery:                               # $SPOOL_DELIVERY_LEASE_MARGIN, _POLL_INTERVAL override
      lease_margin_seconds: 30              # a crashed process's message is retried after this
                                            # plus its timeout
      poll_interval_seconds: 0.2            # how often each process looks for due messages
    metrics:                                # GET /metrics (Prometheus); on in development mode
      enabled: true                         # or $SPOOL_METRICS=1, or spool-server --metrics
      token_env: SPOOL_METRICS_TOKEN        # or `token: <secret>`; none leaves /metrics open
      streams: [orders]                     # streams each scrape reads, whatever the cap
      max_streams: 100                      # each scrape reads at most this many others, by name
      max_queues: 100                       # and at most this many queues, by name
    console:                                # the web console at /console; on in development mode
      enabled: true                         # or $SPOOL_CONSOLE=1, or spool-server --console
      session_seconds: 28800                # a sign-in ends this long after it was made (8 h)
      idle_seconds: 3600                    # or after this long without a page or action (1 h)
    docs:                                   # the API reference at /docs (Swagger UI); on by default
      enabled: false                        # or $SPOOL_DOCS=0; the spec stays at /openapi.yaml
    logs:                                   # the messages' events (GET /v1/logs)
      retention_seconds: 604800             # or $SPOOL_LOGS_RETENTION; older ones are pruned

Secrets are kept out of ``repr`` so a logged setting never shows one.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from .destinations import DestinationPolicy
from .globs import check_glob
from .signing import SigningKeys

__all__ = [
    "DEFAULT_DEV_TOKEN",
    "DEFAULT_HTTP_READ_TIMEOUT_SECONDS",
    "DEFAULT_LEASE_MARGIN_SECONDS",
    "DEFAULT_LOGS_RETENTION_SECONDS",
    "DEFAULT_POLL_INTERVAL_SECONDS",
    "DEFAULT_STORE_URL",
    "MAX_METRICS_SCRAPED",
    "MAX_METRICS_STREAMS",
    "SPEC_PATH",
    "Action",
    "ConfigError",
    "MetricsSettings",
    "Permission",
    "RateLimit",
    "Resource",
    "Settings",
    "TokenConfig",
    "load_settings",
]

DEFAULT_STORE_URL = "sqlite:///./.spool/spool.db"
DEFAULT_DEV_TOKEN = "spool-dev-token"
DEV_TOKEN_ID = "dev"
MAX_BODY_BYTES = 1024 * 1024
# A request (headers and body) must arrive whole within this many seconds of its first byte.
DEFAULT_HTTP_READ_TIMEOUT_SECONDS = 30.0
# The messages' events are kept this long (a week), then pruned.
DEFAULT_LOGS_RETENTION_SECONDS = 7 * 24 * 3600.0
# A claim lasts the message's own ``timeout`` plus this margin, the time to publish its callback and
# record the attempt. No other process may claim the message meanwhile, so this margin (beyond the
# timeout) is also how long a message waits to be sent again after its process died mid-attempt.
DEFAULT_LEASE_MARGIN_SECONDS = 30.0
# The fallback look for due messages: the longest a process takes to notice a message that another
# process scheduled (it then wakes at that message's due time, or at once when it is already due).
# Its own publishes, retries and callbacks wake it without waiting for this.
DEFAULT_POLL_INTERVAL_SECONDS = 0.2
# A scrape reads each listed stream from the store; a bound keeps a scrape cheap.
MAX_METRICS_STREAMS = 100
# The most streams (besides the listed ones) or queues a scrape may be configured to read, as a
# scrape reads each of them from the store within a few seconds.
MAX_METRICS_SCRAPED = 1000
# An installed wheel carries the document inside the package; a source checkout has it at the root.
_PACKAGED_SPEC = Path(__file__).resolve().parent / "openapi.yaml"
SPEC_PATH = (
    _PACKAGED_SPEC if _PACKAGED_SPEC.is_file() else _PACKAGED_SPEC.parent.parent / "openapi.yaml"
)

Resource = Literal["stream", "queue", "message", "url_group", "schedule", "*"]
Action = Literal["publish", "consume", "admin"]
ALL_ACTIONS: frozenset[Action] = frozenset({"publish", "consume", "admin"})

logger = logging.getLogger("spool.server")


class ConfigError(ValueError):
    """The configuration cannot be used; the message says which part and why."""


@dataclasses.dataclass(frozen=True, slots=True)
class Permission:
    """Actions a token may take on resources of one kind whose names match a glob."""

    resource: Resource
    name: str
    actions: frozenset[Action]


@dataclasses.dataclass(frozen=True, slots=True)
class RateLimit:
    """A token bucket: ``burst`` requests at once, refilled at ``per_second``."""

    per_second: float
    burst: int


@dataclasses.dataclass(frozen=True, slots=True)
class TokenConfig:
    """One bearer token: its public id, its secret and what it may do."""

    id: str
    secret: str = dataclasses.field(repr=False)
    permissions: tuple[Permission, ...]
    quota: int | None = None
    rate_limit: RateLimit | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class MetricsSettings:
    """Whether ``GET /metrics`` is served, the bearer token it asks for (None: none), the
    streams each scrape reads, and how many other streams and how many queues it reads at most.
    """

    enabled: bool = False
    token: str | None = dataclasses.field(default=None, repr=False)
    streams: tuple[str, ...] = ()
    max_streams: int = 100
    max_queues: int = 100


@dataclasses.dataclass(frozen=True, slots=True)
class Settings:
    """Everything the app needs to serve; built by :func:`load_settings` or directly in tests."""

    tokens: tuple[TokenConfig, ...]
    store_url: str = DEFAULT_STORE_URL
    development: bool = False
    max_body_bytes: int = MAX_BODY_BYTES
    idempotency_ttl_seconds: float = 24 * 3600.0
    message_dedup_window_seconds: float = 600.0
    allowed_destinations: tuple[str, ...] = ()
    signing_keys: SigningKeys = dataclasses.field(default_factory=SigningKeys.generate)
    delivery_lease_margin_seconds: float = DEFAULT_LEASE_MARGIN_SECONDS
    delivery_poll_interval_seconds: float = DEFAULT_POLL_INTERVAL_SECONDS
    http_read_timeout_seconds: float = DEFAULT_HTTP_READ_TIMEOUT_SECONDS
    # The messages' events are pruned once they are older than this (server/log_pruner.py).
    logs_retention_seconds: float = DEFAULT_LOGS_RETENTION_SECONDS
    metrics: MetricsSettings = MetricsSettings()
    # Whether the web console (server/console/) is served at /console.
    console: bool = False
    # A console sign-in ends this long after it was made, or after this long without a visit.
    console_session_seconds: float = 8 * 3600.0
    console_idle_seconds: float = 3600.0
    # Whether the API reference (server/docs/) is served at /docs. The document it renders is public
    # at /openapi.yaml either way, so it is on unless turned off.
    docs: bool = True
    spec_path: Path = SPEC_PATH

    @classmethod
    def development_mode(cls, *, token: str = DEFAULT_DEV_TOKEN, **options: Any) -> Settings:
        """Settings with one full-access token, open metrics and the console, as the embedded
        default runs.
        """
        everything = Permission(resource="*", name="*", actions=ALL_ACTIONS)
        dev_token = TokenConfig(id=DEV_TOKEN_ID, secret=token, permissions=(everything,))
        options.setdefault("metrics", MetricsSettings(enabled=True))
        options.setdefault("console", True)
        return cls(tokens=(dev_token,), development=True, **options)


# The file's shape, checked by pydantic so a typo gets a message naming the field.


class _PermissionFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    resource: Resource
    name: Annotated[str, Field(min_length=1)] = "*"
    actions: Annotated[list[Action], Field(min_length=1)]

    @field_validator("name")
    @classmethod
    def _readable_glob(cls, name: str) -> str:
        check_glob(name)
        return name


class _RateLimitFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    per_second: Annotated[float, Field(gt=0)]
    burst: Annotated[int | None, Field(ge=1)] = None


class _TokenFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: Annotated[str, Field(min_length=1, max_length=128)]
    token: Annotated[str | None, Field(min_length=1)] = None
    token_env: Annotated[str | None, Field(min_length=1)] = None
    quota: Annotated[int | None, Field(ge=0)] = None
    rate_limit: _RateLimitFile | None = None
    permissions: list[_PermissionFile]

    @model_validator(mode="after")
    def _one_secret_source(self) -> _TokenFile:
        if (self.token is None) == (self.token_env is None):
            raise ValueError("give exactly one of `token` and `token_env`")
        return self


class _DestinationsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    allow: list[str] = []


# Strict, so `true` or "30" is refused instead of read as a number; integers are still accepted.
_Seconds = Annotated[float, Field(gt=0, allow_inf_nan=False, strict=True)]


class _DeliveryFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    lease_margin_seconds: _Seconds | None = None
    poll_interval_seconds: _Seconds | None = None


class _LogsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    retention_seconds: _Seconds | None = None


class _HttpFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    read_timeout_seconds: _Seconds | None = None


class _MetricsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: Annotated[bool, Field(strict=True)] = False
    token: Annotated[str | None, Field(min_length=1)] = None
    token_env: Annotated[str | None, Field(min_length=1)] = None
    streams: Annotated[
        list[Annotated[str, Field(min_length=1)]], Field(max_length=MAX_METRICS_STREAMS)
    ] = []
    max_streams: Annotated[int, Field(strict=True, ge=0, le=MAX_METRICS_SCRAPED)] = 100
    max_queues: Annotated[int, Field(strict=True, ge=0, le=MAX_METRICS_SCRAPED)] = 100

    @model_validator(mode="after")
    def _at_most_one_secret_source(self) -> _MetricsFile:
        if self.token is not None and self.token_env is not None:
            raise ValueError("give at most one of `token` and `token_env`")
        return self


class _ConsoleFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: Annotated[bool, Field(strict=True)] = False
    session_seconds: _Seconds | None = None
    idle_seconds: _Seconds | None = None


class _DocsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: Annotated[bool, Field(strict=True)] = True


class _SigningKeysFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    current: Annotated[str, Field(min_length=1)]
    next: Annotated[str, Field(min_length=1)]


class _ConfigFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tokens: Annotated[list[_TokenFile], Field(min_length=1)]
    destinations: _DestinationsFile = _DestinationsFile()
    signing_keys: _SigningKeysFile | None = None
    delivery: _DeliveryFile = _DeliveryFile()
    http: _HttpFile = _HttpFile()
    logs: _LogsFile = _LogsFile()
    metrics: _MetricsFile = _MetricsFile()
    console: _ConsoleFile = _ConsoleFile()
    docs: _DocsFile = _DocsFile()
    idempotency_ttl_seconds: Annotated[float | None, Field(gt=0)] = None
    message_deduplication_window_seconds: Annotated[float | None, Field(ge=0)] = None


def load_settings(
    *,
    store_url: str = DEFAULT_STORE_URL,
    config_path: str | os.PathLike[str] | None = None,
    metrics: bool = False,
    console: bool = False,
    docs: bool | None = None,
    environ: Mapping[str, str] = os.environ,
) -> Settings:
    """Settings from ``config_path``, else ``$SPOOL_CONFIG``, else ``$SPOOL_TOKENS``, else the
    development mode. ``$SPOOL_ALLOW_DESTINATIONS`` (comma-separated) adds allowed destinations;
    ``$SPOOL_SIGNING_KEY`` and ``$SPOOL_NEXT_SIGNING_KEY`` give the signing keys unless the file
    does. ``$SPOOL_DELIVERY_LEASE_MARGIN`` and ``$SPOOL_DELIVERY_POLL_INTERVAL`` (seconds) override
    the file's ``delivery`` section, ``$SPOOL_HTTP_READ_TIMEOUT`` its ``http.read_timeout_seconds``
    and ``$SPOOL_LOGS_RETENTION`` its ``logs.retention_seconds``. Every allowed destination is
    checked here, as the destination policy reads it.

    ``GET /metrics`` is served when ``metrics`` is true (``spool-server --metrics``),
    ``$SPOOL_METRICS`` is ``1`` or ``true``, the file's ``metrics.enabled`` is true, or in
    development mode unless ``$SPOOL_METRICS`` is ``0`` or ``false``. Its token is the file's
    ``metrics.token`` or ``metrics.token_env``, else ``$SPOOL_METRICS_TOKEN``.

    The web console is served at ``/console`` the same way: when ``console`` is true
    (``spool-server --console``), ``$SPOOL_CONSOLE`` is ``1`` or ``true``, the file's
    ``console.enabled`` is true, or in development mode unless ``$SPOOL_CONSOLE`` is ``0`` or
    ``false``.

    The API reference is served at ``/docs`` unless turned off: ``docs`` when given (true or
    false), else ``$SPOOL_DOCS`` when set (``0`` or ``false`` turns it off), else the file's
    ``docs.enabled`` (true unless the file says otherwise), in development mode too.
    """
    extra_allowed = _allowed_destinations(
        [
            item.strip()
            for item in environ.get("SPOOL_ALLOW_DESTINATIONS", "").split(",")
            if item.strip()
        ],
        source="$SPOOL_ALLOW_DESTINATIONS",
    )
    environment_keys = _signing_keys_from(environ)
    lease_margin = _seconds_from(environ, "SPOOL_DELIVERY_LEASE_MARGIN")
    poll_interval = _seconds_from(environ, "SPOOL_DELIVERY_POLL_INTERVAL")
    read_timeout = _seconds_from(environ, "SPOOL_HTTP_READ_TIMEOUT")
    logs_retention = _seconds_from(environ, "SPOOL_LOGS_RETENTION")
    metrics_switch = True if metrics else _switch_from(environ, "SPOOL_METRICS")
    metrics_token = environ.get("SPOOL_METRICS_TOKEN") or None
    console_switch = True if console else _switch_from(environ, "SPOOL_CONSOLE")
    docs_switch = docs if docs is not None else _switch_from(environ, "SPOOL_DOCS")
    path = config_path if config_path is not None else environ.get("SPOOL_CONFIG") or None
    if path is not None:
        document = _read_file(Path(path))
        source = str(path)
    elif environ.get("SPOOL_TOKENS"):
        document = _parse_tokens_variable(environ["SPOOL_TOKENS"])
        source = "$SPOOL_TOKENS"
    else:
        logger.warning(
            "no token configuration (--config, $SPOOL_CONFIG or $SPOOL_TOKENS): development mode, "
            "one full-access token from $SPOOL_DEV_TOKEN or the default; never expose this"
        )
        token = environ.get("SPOOL_DEV_TOKEN") or DEFAULT_DEV_TOKEN
        return Settings.development_mode(
            token=token,
            store_url=store_url,
            allowed_destinations=extra_allowed,
            # Fresh keys are what development wants; no warning for them.
            signing_keys=environment_keys or SigningKeys.generate(),
            delivery_lease_margin_seconds=lease_margin or DEFAULT_LEASE_MARGIN_SECONDS,
            delivery_poll_interval_seconds=poll_interval or DEFAULT_POLL_INTERVAL_SECONDS,
            http_read_timeout_seconds=read_timeout or DEFAULT_HTTP_READ_TIMEOUT_SECONDS,
            logs_retention_seconds=logs_retention or DEFAULT_LOGS_RETENTION_SECONDS,
            metrics=MetricsSettings(
                enabled=metrics_switch is not False, token=metrics_token, streams=()
            ),
            console=console_switch is not False,
            docs=docs_switch is not False,
        )
    try:
        parsed = _ConfigFile.model_validate(document)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in issue['loc']) or '(top level)'}: {issue['msg']}"
            for issue in error.errors(include_url=False)
        )
        raise ConfigError(f"{source}: {problems}") from None
    tokens = tuple(_token(entry, source=source, environ=environ) for entry in parsed.tokens)
    _check_unique(tokens, source=source)
    file_allowed = _allowed_destinations(
        parsed.destinations.allow, source=f"{source}: destinations.allow"
    )
    defaults = Settings(tokens=())
    if parsed.signing_keys is not None:
        signing_keys = SigningKeys(
            current=parsed.signing_keys.current, next=parsed.signing_keys.next
        )
    else:
        signing_keys = environment_keys or _generated_signing_keys()
    return Settings(
        tokens=tokens,
        store_url=store_url,
        allowed_destinations=(*file_allowed, *extra_allowed),
        signing_keys=signing_keys,
        idempotency_ttl_seconds=parsed.idempotency_ttl_seconds or defaults.idempotency_ttl_seconds,
        message_dedup_window_seconds=(
            defaults.message_dedup_window_seconds
            if parsed.message_deduplication_window_seconds is None
            else parsed.message_deduplication_window_seconds
        ),
        delivery_lease_margin_seconds=(
            lease_margin or parsed.delivery.lease_margin_seconds or DEFAULT_LEASE_MARGIN_SECONDS
        ),
        delivery_poll_interval_seconds=(
            poll_interval or parsed.delivery.poll_interval_seconds or DEFAULT_POLL_INTERVAL_SECONDS
        ),
        http_read_timeout_seconds=(
            read_timeout or parsed.http.read_timeout_seconds or DEFAULT_HTTP_READ_TIMEOUT_SECONDS
        ),
        logs_retention_seconds=(
            logs_retention or parsed.logs.retention_seconds or DEFAULT_LOGS_RETENTION_SECONDS
        ),
        metrics=_metrics(
            parsed.metrics,
            switch=metrics_switch,
            token=metrics_token,
            source=source,
            environ=environ,
        ),
        console=parsed.console.enabled if console_switch is None else console_switch,
        console_session_seconds=(
            parsed.console.session_seconds or defaults.console_session_seconds
        ),
        console_idle_seconds=parsed.console.idle_seconds or defaults.console_idle_seconds,
        docs=parsed.docs.enabled if docs_switch is None else docs_switch,
    )


def _metrics(
    section: _MetricsFile,
    *,
    switch: bool | None,
    token: str | None,
    source: str,
    environ: Mapping[str, str],
) -> MetricsSettings:
    if section.token_env is not None:
        token = environ.get(section.token_env) or None
        if token is None:
            raise ConfigError(
                f"{source}: metrics.token_env reads ${section.token_env}, which is unset or empty"
            )
    elif section.token is not None:
        token = section.token
    return MetricsSettings(
        enabled=section.enabled if switch is None else switch,
        token=token,
        streams=tuple(dict.fromkeys(section.streams)),
        max_streams=section.max_streams,
        max_queues=section.max_queues,
    )


def _switch_from(environ: Mapping[str, str], name: str) -> bool | None:
    text = environ.get(name, "").strip().lower()
    if not text:
        return None
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"${name} must be 1 or 0 (true or false), got {text!r}")


def _allowed_destinations(entries: Sequence[str], *, source: str) -> tuple[str, ...]:
    # The policy's own parser decides, so what passes here is exactly what the app accepts later.
    try:
        DestinationPolicy(entries)
    except ValueError as error:
        raise ConfigError(f"{source}: {error}") from None
    return tuple(entries)


def _signing_keys_from(environ: Mapping[str, str]) -> SigningKeys | None:
    current = environ.get("SPOOL_SIGNING_KEY", "")
    following = environ.get("SPOOL_NEXT_SIGNING_KEY", "")
    if not current and not following:
        return None
    if not current or not following:
        raise ConfigError("set both $SPOOL_SIGNING_KEY and $SPOOL_NEXT_SIGNING_KEY, or neither")
    return SigningKeys(current=current, next=following)


def _seconds_from(environ: Mapping[str, str], name: str) -> float | None:
    text = environ.get(name, "").strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:
        raise ConfigError(f"${name} must be a positive, finite number of seconds, got {text!r}")
    return seconds


def _generated_signing_keys() -> SigningKeys:
    logger.warning(
        "no signing keys configured: using fresh random ones, so receivers must fetch them again "
        "after every restart (set signing_keys in the config file or $SPOOL_SIGNING_KEY and "
        "$SPOOL_NEXT_SIGNING_KEY)"
    )
    return SigningKeys.generate()


def _read_file(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read the config file {path}: {error.strerror}") from None
    try:
        # YAML is a superset of JSON, so one parser reads both kinds of file.
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ConfigError(f"{path} is neither YAML nor JSON: {error}") from None


def _parse_tokens_variable(text: str) -> object:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"$SPOOL_TOKENS is not JSON: {error}") from None
    # A bare list of tokens is accepted as well as the file's `{"tokens": [...]}` shape.
    return {"tokens": document} if isinstance(document, list) else document


def _token(entry: _TokenFile, *, source: str, environ: Mapping[str, str]) -> TokenConfig:
    if entry.token_env is not None:
        secret = environ.get(entry.token_env, "")
        if not secret:
            raise ConfigError(
                f"{source}: token {entry.id!r} reads ${entry.token_env}, which is unset or empty"
            )
    else:
        secret = entry.token or ""
    rate_limit = None
    if entry.rate_limit is not None:
        burst = entry.rate_limit.burst or max(1, math.ceil(entry.rate_limit.per_second))
        rate_limit = RateLimit(per_second=entry.rate_limit.per_second, burst=burst)
    return TokenConfig(
        id=entry.id,
        secret=secret,
        permissions=tuple(
            Permission(resource=rule.resource, name=rule.name, actions=frozenset(rule.actions))
            for rule in entry.permissions
        ),
        quota=entry.quota,
        rate_limit=rate_limit,
    )


def _check_unique(tokens: tuple[TokenConfig, ...], *, source: str) -> None:
    ids = [token.id for token in tokens]
    repeated = sorted({token_id for token_id in ids if ids.count(token_id) > 1})
    if repeated:
        raise ConfigError(f"{source}: token ids must be unique; repeated: {', '.join(repeated)}")
    if len({token.secret for token in tokens}) != len(tokens):
        # Which ones is not said: naming them would hint at the secrets.
        raise ConfigError(f"{source}: two tokens have the same secret")
