"""The configuration the fault suite's servers run with: one token that may do everything."""

from __future__ import annotations

from typing import Any

__all__ = ["CONFIG", "TOKEN"]

TOKEN = "faults-token"
CONFIG: dict[str, Any] = {
    "tokens": [
        {
            "id": "all",
            "token": TOKEN,
            "permissions": [{"resource": "*", "actions": ["publish", "consume", "admin"]}],
        }
    ],
    # Messages go to a loopback address nothing listens on; they are never due during a test.
    "destinations": {"allow": ["127.0.0.0/8"]},
}
