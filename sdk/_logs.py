"""What the SDK logs about its requests, on the standard `logging` logger ``sdk``.

At INFO, one line per request (its operation, method, path, status, request id and elapsed time)
and one per retry (sdk/_retry.py); at DEBUG, also the request's and the answer's headers, with
every credential redacted. Like any library, the SDK attaches no handler of its own: an
application's logging configuration decides what is shown. Setting ``$SPOOL_LOG`` to ``info`` or
``debug`` is the shortcut for a quick look (as ``$OPENAI_LOG`` is for openai-python): the first
client made then attaches one stderr handler to ``sdk`` at that level.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable

import httpx

from ._exceptions import ConfigurationError

__all__ = [
    "LOG_ENV",
    "REDACTED",
    "configure_logging",
    "log_failure",
    "log_response",
    "logger",
    "redacted_headers",
]

LOG_ENV = "SPOOL_LOG"
REDACTED = "<redacted>"

logger = logging.getLogger("sdk")

_LEVELS = {"info": logging.INFO, "debug": logging.DEBUG}
# Header names that say they hold a credential, such as X-Api-Key, Spool-Signature, Cookie or
# Proxy-Authorization: redacted from debug logs whatever service or proxy sends them.
_SECRET_PARTS = ("auth", "cookie", "key", "password", "secret", "signature", "token")

_configured: set[int] = set()
_configuring = threading.Lock()


def configure_logging() -> None:
    """Apply ``$SPOOL_LOG``, if set: the ``sdk`` logger at that level with one stderr handler,
    attached once however many clients are made.

    Raises:
        ConfigurationError: ``$SPOOL_LOG`` is set to something other than info or debug.
    """
    value = os.environ.get(LOG_ENV, "").strip().lower()
    if not value:
        return
    level = _LEVELS.get(value)
    if level is None:
        raise ConfigurationError(f"${LOG_ENV} must be info or debug, got {value!r}")
    with _configuring:
        if level in _configured:
            return
        logger.setLevel(level)
        if not _configured:
            handler = logging.StreamHandler()
            handler.setFormatter(
                logging.Formatter(
                    "[%(asctime)s - %(name)s - %(levelname)s] %(message)s",
                    datefmt="%Y-%m-%d %H:%M:%S",
                )
            )
            logger.addHandler(handler)
        _configured.add(level)


def redacted_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """`headers` with the value of each that may hold a credential replaced by REDACTED."""
    shown: dict[str, str] = {}
    for name, value in headers:
        lowered = name.lower()
        secret = any(part in lowered for part in _SECRET_PARTS)
        shown[name] = REDACTED if secret else value
    return shown


def log_response(what: str, response: httpx.Response, elapsed: float) -> None:
    """Log one answered request at INFO (and its headers at DEBUG); `elapsed` in seconds."""
    request = response.request
    logger.info(
        "%s %s %s -> %d in %.1f ms (request %s)",
        what,
        request.method,
        request.url.raw_path.decode("ascii", "replace"),
        response.status_code,
        elapsed * 1000,
        response.headers.get("x-request-id", "-"),
    )
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug(
            "%s request headers: %s", what, redacted_headers(request.headers.multi_items())
        )
        logger.debug(
            "%s response headers: %s", what, redacted_headers(response.headers.multi_items())
        )


def log_failure(what: str, request: httpx.Request, elapsed: float, error: Exception) -> None:
    """Log a request that got no answer at INFO (and its headers at DEBUG)."""
    logger.info(
        "%s %s %s -> no answer after %.1f ms: %s",
        what,
        request.method,
        request.url.raw_path.decode("ascii", "replace"),
        elapsed * 1000,
        error,
    )
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug(
            "%s request headers: %s", what, redacted_headers(request.headers.multi_items())
        )
