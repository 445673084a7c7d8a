"""`Stream`: one shared definition of a stream for producers and consumers."""

from __future__ import annotations

from dataclasses import dataclass, field

from ._checks import check_count, check_group_name, check_resource_name
from ._codec import Codec
from ._exceptions import InvalidArgumentError
from ._keywords import suggests_init_keywords
from ._limits import MAX_DELIVERIES_MAX, MAXLEN_MAX

__all__ = ["Stream"]


@suggests_init_keywords
@dataclass(frozen=True, slots=True)
class Stream:
    """A stream's name, optional consumer group, optional length cap and optional codec.

    Define it once and import it from both the producer and the consumer so the names cannot drift
    apart. Publishing uses only `name`, `maxlen` and `codec`; consuming also needs `group`.
    Everything is validated here, so a bad definition fails at import time, not at the first
    publish.

    Usage:

    ```python
    ORDERS = sdk.Stream("orders", group="billing", maxlen=100_000)
    ```

    Raises:
        InvalidNameError: `name` or `group` breaks its pattern.
        InvalidArgumentError: `maxlen` is not an int between 0 and 1000000000, or `codec` has
            no `encode()` and `decode()`.
    """

    name: str
    group: str | None = field(default=None, kw_only=True)
    maxlen: int | None = field(default=None, kw_only=True)
    codec: Codec | None = field(default=None, kw_only=True, compare=False)

    def __post_init__(self) -> None:
        check_resource_name(self.name, what="stream")
        if self.group is not None:
            check_group_name(self.group, what="consumer group")
        if self.maxlen is not None:
            check_maxlen(self.maxlen)
        if self.codec is not None and not isinstance(self.codec, Codec):
            raise InvalidArgumentError(
                f"codec must have encode() and decode() methods, got {self.codec!r}"
            )


def check_maxlen(maxlen: int) -> int:
    """`maxlen` if the service accepts it as a length cap.

    Raises:
        InvalidArgumentError: it is not an int between 0 and 1000000000.
    """
    return check_count(maxlen, name="maxlen", minimum=0, maximum=MAXLEN_MAX)


def check_max_deliveries(max_deliveries: int, *, stream: str) -> int:
    """`max_deliveries` if the service accepts it for a consumer group of `stream`: the group's
    dead letters go to the stream `<stream>.dead`, whose name must be valid too.

    Raises:
        InvalidNameError: `<stream>.dead` is not a valid stream name.
        InvalidArgumentError: it is not an int between 1 and 1000000.
    """
    check_resource_name(f"{stream}.dead", what="dead-letter stream")
    return check_count(max_deliveries, name="max_deliveries", minimum=1, maximum=MAX_DELIVERIES_MAX)


def as_stream(stream: str | Stream) -> Stream:
    """`stream` itself, or a plain name made into a validated Stream.

    Raises:
        InvalidNameError: the name is not a valid stream name.
    """
    return stream if isinstance(stream, Stream) else Stream(stream)
