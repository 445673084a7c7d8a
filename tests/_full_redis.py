"""A private Redis with a small ``maxmemory`` under ``noeviction``, which tests fill until it
refuses writes (``-OOM``) and then free again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator

import pytest
import redis

from tests.conftest import _free_ports

__all__ = ["FullRedis", "small_redis"]

# Small enough to fill in well under a second, large enough for an empty Redis (about 1 MB) and
# the store's scripts, keys and connections.
MAXMEMORY = "4mb"
_FILLER_PREFIX = "filler:"
# The value of each filler key; the last one that fits leaves less room than one more store write.
_FILLER_BYTES = 16 * 1024
_START_SECONDS = 30.0
_HELD_UNDER_BYTES = 256 * 1024


@dataclasses.dataclass
class FullRedis:
    """The private Redis: its URL (database 0) and a client of its own, outside any store."""

    url: str
    client: redis.Redis

    maxmemory: int

    def fill(self) -> None:
        """Write filler keys until Redis refuses one for ``maxmemory``, then hold it full."""
        written = 0
        while True:
            try:
                self.client.set(f"{_FILLER_PREFIX}{written}", b"x" * _FILLER_BYTES)
            except redis.exceptions.OutOfMemoryError:
                break
            written += 1
        self.hold_full()

    def hold_full(self) -> None:
        """Lower ``maxmemory`` a little under what Redis uses now. A refused command leaves as
        much room as its own arguments took, and Redis shrinks idle buffers as it goes; held under
        by a margin, no small write finds room until something is freed.
        """
        used = int(self.client.info("memory")["used_memory"])
        self.client.config_set("maxmemory", used - _HELD_UNDER_BYTES)

    def free(self) -> None:
        """Delete every filler key (DEL is allowed over ``maxmemory``: it only frees) and give
        Redis back its own ``maxmemory``.
        """
        fillers = list(self.client.scan_iter(match=f"{_FILLER_PREFIX}*", count=1000))
        if fillers:
            self.client.delete(*fillers)
        self.client.config_set("maxmemory", self.maxmemory)

    def free_one(self) -> None:
        """Delete one filler key: just under ``maxmemory`` again, with room for little."""
        self.client.delete(next(self.client.scan_iter(match=f"{_FILLER_PREFIX}*", count=1000)))

    def store_keys(self) -> dict[bytes, bytes | None]:
        """Every key that is not a filler, with its DUMP: what a refused write must not change."""
        return {
            key: self.client.dump(key)
            for key in self.client.scan_iter(count=1000)
            if not key.startswith(_FILLER_PREFIX.encode())
        }


@contextlib.contextmanager
def small_redis(maxmemory: str = MAXMEMORY) -> Iterator[FullRedis]:
    """Start ``redis-server`` on a free loopback port with ``maxmemory`` and ``noeviction``,
    nothing saved, and stop it afterwards. Skips without the binary (or, with
    SPOOL_REQUIRE_REDIS=1 as in CI, fails).
    """
    if shutil.which("redis-server") is None:
        reason = "needs redis-server on PATH to start a Redis with a small maxmemory"
        if os.environ.get("SPOOL_REQUIRE_REDIS") == "1":
            pytest.fail(f"SPOOL_REQUIRE_REDIS=1 but {reason}")
        pytest.skip(reason)
    (port,) = _free_ports(1)
    with tempfile.TemporaryDirectory(prefix="spool-full-redis-") as directory:
        command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1"]
        command += ["--maxmemory", maxmemory, "--maxmemory-policy", "noeviction"]
        command += ["--save", "", "--appendonly", "no", "--dir", directory]
        command += ["--logfile", "redis.log"]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        client = redis.Redis(host="127.0.0.1", port=port)
        try:
            deadline = time.monotonic() + _START_SECONDS
            while True:
                try:
                    client.ping()
                    break
                except redis.exceptions.ConnectionError:
                    if time.monotonic() > deadline or process.poll() is not None:
                        pytest.fail(f"redis-server on port {port} never answered PING")
                    time.sleep(0.05)
            limit = int(str(client.config_get("maxmemory")["maxmemory"]))
            yield FullRedis(url=f"redis://127.0.0.1:{port}/0", client=client, maxmemory=limit)
        finally:
            client.close()
            process.terminate()
            process.wait(timeout=30)
