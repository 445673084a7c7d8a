"""The base class of the pydantic models ``make generate`` writes from openapi.yaml (its
datamodel-codegen ``--base-class``), which holds a request body to one rule of the document's JSON
Schema that pydantic does not share: ``null`` is a value only where the schema admits it.

datamodel-codegen writes a field that may be left out as ``X | None = None``, the None standing
for "absent", so pydantic takes an explicit ``null`` there. The schema does not: only the "any
JSON value" fields (``body``, ``payload``) and a required field whose type lists null (none in a
request) may hold it. The rule holds in a validation given :data:`REQUEST_BODY` as its context,
because the service's own documents, which these models also read, write null for absent values.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from types import NoneType, UnionType
from typing import Annotated, Any, Final, Self, Union, get_args, get_origin

from pydantic import BaseModel, RootModel, ValidationInfo, model_validator
from pydantic_core import PydanticCustomError
from typing_extensions import TypeAliasType

__all__ = ["NULL_REFUSED", "REQUEST_BODY", "SchemaModel", "refuses_null"]

REQUEST_BODY: Final = object()
"""The validation context under which a request body's nulls are refused."""

NULL_REFUSED: Final = "null_refused"
"""The error type of an object holding a refused null."""


class SchemaModel(BaseModel):
    """A model of openapi.yaml: refuses ``null`` where the schema does not admit it (a field the
    schema types, left out or given a value of its type), in a :data:`REQUEST_BODY` validation.
    """

    @model_validator(mode="after")
    def _null_is_no_value(self, info: ValidationInfo) -> Self:
        # Once per object and after its fields are read, not once per field before: a validator
        # before them would see Python objects where pydantic read JSON (and strict mode refuses a
        # date-time text as a Python value), one per field costs a call for each. So the error
        # only says that this object holds a refused null: refuses_null says which field does,
        # also for an object whose other fields were invalid, where this never runs.
        if info.context is REQUEST_BODY:
            names = _optional_typed_fields(type(self))
            if names:
                for name in self.model_fields_set & names:
                    if getattr(self, name) is None:
                        raise PydanticCustomError(NULL_REFUSED, "Input should not be null")
        return self


# Both read at a model's first validation, not when its class is made: a forward reference may
# stand for a type until then.
@functools.cache
def _optional_typed_fields(model: type[BaseModel]) -> frozenset[str]:
    """The fields that refuse null although their type admits None: None stands for "absent"."""
    return frozenset(
        name
        for name in _fields_refusing_null(model)
        if NoneType in get_args(model.model_fields[name].annotation)
    )


@functools.cache
def _fields_refusing_null(model: type[BaseModel]) -> frozenset[str]:
    return frozenset(
        name
        for name, field in model.model_fields.items()
        if field.annotation is not Any
        and not (field.is_required() and NoneType in get_args(field.annotation))
    )


def refuses_null(model: type[BaseModel], path: Sequence[str | int]) -> bool:
    """Whether ``path`` (object keys and array indices into a request body read as ``model``)
    names a field of a model that refuses ``null``, as :class:`SchemaModel` does: also one whose
    type does not admit None at all, where pydantic refuses it with an error of its own.
    """
    annotations: list[Any] = [model]
    for depth, part in enumerate(path):
        inner: list[Any] = []
        for member in (member for annotation in annotations for member in _members(annotation)):
            if isinstance(part, str) and _is_model(member) and part in member.model_fields:
                if depth == len(path) - 1 and part in _fields_refusing_null(member):
                    return True
                inner.append(member.model_fields[part].annotation)
            elif isinstance(part, int) and get_origin(member) is list:
                inner.extend(get_args(member))
            elif isinstance(part, str) and get_origin(member) is dict:
                inner.append(get_args(member)[1])
        annotations = inner
    return False


def _members(annotation: Any) -> Iterator[Any]:
    """The types a value of ``annotation`` may be, aliases, ``Annotated`` and root models (a
    schema shared by ``$ref``, such as ``MaxDeliveries``) seen through and None left out.
    """
    while True:
        if isinstance(annotation, TypeAliasType):
            annotation = annotation.__value__
        elif get_origin(annotation) is Annotated:
            annotation = get_args(annotation)[0]
        elif isinstance(annotation, type) and issubclass(annotation, RootModel):
            annotation = annotation.model_fields["root"].annotation
        elif get_origin(annotation) in (Union, UnionType):
            for member in get_args(annotation):
                if member is not NoneType:
                    yield from _members(member)
            return
        else:
            yield annotation
            return


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)
