"""URL groups: named sets of URLs that one message publish fans out to."""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from typing import TYPE_CHECKING, Unpack

from . import _endpoints
from ._arguments import UrlEndpoint
from ._checks import check_resource_name
from ._config import RequestOptions
from ._exceptions import InvalidArgumentError
from ._http import (
    AsyncTransport,
    Call,
    SyncTransport,
    make_call,
    optional,
)
from ._keywords import takes_request_options
from ._message_options import check_url

if TYPE_CHECKING:
    from generated.models import (
        UrlGroup as GeneratedUrlGroup,
    )

    from ._types import UrlGroup

__all__ = ["AsyncUrlGroups", "UrlGroups"]


class _UrlGroupCalls:
    """Builds the URL group calls."""

    @staticmethod
    def upsert(name: str, endpoints: Iterable[str | UrlEndpoint]) -> Call[UrlGroup]:
        """One putUrlGroup call.

        Raises:
            InvalidNameError: `name` is not a valid URL group name.
            InvalidArgumentError: no endpoint, or an endpoint URL that is not an http:// or
                https:// URL with a host and no user info.
        """
        from generated.models import UrlEndpoint as GeneratedUrlEndpoint, UrlGroupSettings
        from generated.types import UNSET

        generated = []
        for item_or_url in endpoints:
            item = item_or_url if isinstance(item_or_url, UrlEndpoint) else UrlEndpoint(item_or_url)
            generated.append(
                GeneratedUrlEndpoint(
                    url=check_url(item.url, name="endpoint url"),
                    name=UNSET if item.name is None else item.name,
                )
            )
        if not generated:
            raise InvalidArgumentError("a URL group needs at least one endpoint")
        return make_call(
            _endpoints.put_url_group,
            _url_group,
            check_resource_name(name, what="URL group"),
            body=UrlGroupSettings(endpoints=generated),
        )

    @staticmethod
    def get(name: str) -> Call[UrlGroup]:
        """One getUrlGroup call.

        Raises:
            InvalidNameError: `name` is not a valid URL group name.
        """
        return make_call(
            _endpoints.get_url_group, _url_group, check_resource_name(name, what="URL group")
        )

    @staticmethod
    def list() -> Call[builtins.list[UrlGroup]]:
        """One listUrlGroups call."""
        return make_call(
            _endpoints.list_url_groups,
            lambda result: [_url_group(group) for group in result.url_groups],
        )

    @staticmethod
    def delete(name: str) -> Call[None]:
        """One deleteUrlGroup call.

        Raises:
            InvalidNameError: `name` is not a valid URL group name.
        """
        return make_call(
            _endpoints.delete_url_group, lambda _: None, check_resource_name(name, what="URL group")
        )


class UrlGroups:
    """URL groups of a `Client` (`client.url_groups`): named sets of URLs to publish to at once.

    Every method that sends a request also takes the per-call `timeout=`, `max_retries=` and
    `extra_headers=` (`RequestOptions`), which apply to its requests alone; a bad one is a
    ConfigurationError, raised before anything is sent.

    Each method names its own errors below. Invalid arguments raise InvalidArgumentError (or its
    subclass InvalidNameError) before any request is sent. Any request may also fail with
    AuthenticationError (401), PermissionDeniedError (403) and, once the client's retries are
    used up, RateLimitError (429), InternalServerError (5xx) or APIConnectionError.
    """

    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    @takes_request_options
    def upsert(
        self, name: str, endpoints: Iterable[str | UrlEndpoint], **options: Unpack[RequestOptions]
    ) -> UrlGroup:
        """Create the group or replace its endpoints; messages already published keep theirs.

        Returns:
            The UrlGroup as it now is.

        Raises:
            InvalidNameError: `name` is not a valid URL group name.
            InvalidArgumentError: no endpoint, or an endpoint URL that is not an http:// or
                https:// URL with a host and no user info.
            PermissionDeniedError: an endpoint's destination is not allowed
                (`destination_not_allowed`), or the token lacks `admin` on the group.
        """
        return self._transport.send(_UrlGroupCalls.upsert(name, endpoints), options)

    @takes_request_options
    def get(self, name: str, **options: Unpack[RequestOptions]) -> UrlGroup:
        """The group's endpoints.

        Returns:
            The UrlGroup.

        Raises:
            InvalidNameError: `name` is not a valid URL group name.
            NotFoundError: the group does not exist.
        """
        return self._transport.send(_UrlGroupCalls.get(name), options)

    @takes_request_options
    def list(self, **options: Unpack[RequestOptions]) -> builtins.list[UrlGroup]:
        """Every URL group the token may see, by name.

        Returns:
            A list of UrlGroup.

        Raises:
            PermissionDeniedError: the token has no permission on any URL group.
        """
        return self._transport.send(_UrlGroupCalls.list(), options)

    @takes_request_options
    def delete(self, name: str, **options: Unpack[RequestOptions]) -> None:
        """Delete the group; publishing to it afterwards is NotFoundError.

        Messages published to it already keep their URLs.

        Raises:
            InvalidNameError: `name` is not a valid URL group name.
            NotFoundError: the group does not exist.
        """
        self._transport.send(_UrlGroupCalls.delete(name), options)


class AsyncUrlGroups:
    """URL groups of an `AsyncClient` (`aclient.url_groups`), awaited; see `UrlGroups`.

    Every method that sends a request also takes the per-call `timeout=`, `max_retries=` and
    `extra_headers=` (`RequestOptions`), which apply to its requests alone; a bad one is a
    ConfigurationError, raised before anything is sent.

    Each method names its own errors below. Invalid arguments raise InvalidArgumentError (or its
    subclass InvalidNameError) before any request is sent. Any request may also fail with
    AuthenticationError (401), PermissionDeniedError (403) and, once the client's retries are
    used up, RateLimitError (429), InternalServerError (5xx) or APIConnectionError.
    """

    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    @takes_request_options
    async def upsert(
        self, name: str, endpoints: Iterable[str | UrlEndpoint], **options: Unpack[RequestOptions]
    ) -> UrlGroup:
        """Create the group or replace its endpoints; messages already published keep theirs.

        Returns:
            The UrlGroup as it now is.

        Raises:
            InvalidNameError: `name` is not a valid URL group name.
            InvalidArgumentError: no endpoint, or an endpoint URL that is not an http:// or
                https:// URL with a host and no user info.
            PermissionDeniedError: an endpoint's destination is not allowed
                (`destination_not_allowed`), or the token lacks `admin` on the group.
        """
        return await self._transport.send(_UrlGroupCalls.upsert(name, endpoints), options)

    @takes_request_options
    async def get(self, name: str, **options: Unpack[RequestOptions]) -> UrlGroup:
        """The group's endpoints.

        Returns:
            The UrlGroup.

        Raises:
            InvalidNameError: `name` is not a valid URL group name.
            NotFoundError: the group does not exist.
        """
        return await self._transport.send(_UrlGroupCalls.get(name), options)

    @takes_request_options
    async def list(self, **options: Unpack[RequestOptions]) -> builtins.list[UrlGroup]:
        """Every URL group the token may see, by name.

        Returns:
            A list of UrlGroup.

        Raises:
            PermissionDeniedError: the token has no permission on any URL group.
        """
        return await self._transport.send(_UrlGroupCalls.list(), options)

    @takes_request_options
    async def delete(self, name: str, **options: Unpack[RequestOptions]) -> None:
        """Delete the group; publishing to it afterwards is NotFoundError.

        Messages published to it already keep their URLs.

        Raises:
            InvalidNameError: `name` is not a valid URL group name.
            NotFoundError: the group does not exist.
        """
        await self._transport.send(_UrlGroupCalls.delete(name), options)


def _url_group(group: GeneratedUrlGroup) -> UrlGroup:
    from ._types import UrlGroup

    return UrlGroup(
        name=group.name,
        endpoints=[
            UrlEndpoint(url=endpoint.url, name=optional(endpoint.name))
            for endpoint in group.endpoints
        ],
        created_at=group.created_at,
        updated_at=group.updated_at,
    )
