"""TEMPORARY scaffolding: dict-style access to the record Structs.

Records became ``msgspec.Struct`` classes (schema 2.2) while about 550 ``.get("key")``
calls across the package still read them as dicts. This mixin lets those readers keep
working, package by package, until each is converted to attribute access. It is to be
removed (with :data:`DICT_LIKE`) as soon as no ``.get("`` on a record is left; see
``/work/notes/records-status.md`` for what still uses it. New code reads attributes.

Reading follows the written record: ``record["key"]`` is the field's value (None for a
field left at None), ``record.get("key", default)`` gives ``default`` for a field that
holds None (as for a key a file left out). ``in``, ``keys()`` and ``len()`` see what
would be written: a field that holds its default is not "in" the record (``applies``
when true, ``turns`` when empty), and a part whose fields all hold their defaults is
empty (falsy), as an empty dict was. Writing sets the attribute, so an undeclared key
raises ``AttributeError``: a writer cannot slip a field past the schema. A Struct equals
a dict that would read as it (tests written against dict records keep their assertions).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final, TypeAlias

import msgspec
from msgspec import UNSET


class DictAccess:
    """TEMPORARY: ``get``/``[]``/``in``/``keys``/``update`` over a Struct's fields."""

    __slots__ = ()
    __struct_fields__: tuple[str, ...]
    __struct_config__: Any

    def get(self, key: str, default: Any = None) -> Any:
        value = getattr(self, key, None)
        return default if value is None or value is UNSET else value

    def __getitem__(self, key: str) -> Any:
        value = getattr(self, key, UNSET)
        if value is UNSET:
            raise KeyError(key)
        return value

    def __setitem__(self, key: str, value: Any) -> None:
        setattr(self, key, value)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self.keys()

    def keys(self) -> list[str]:
        """The fields that would be written (for ``dict(record)`` and ``{**record}``)."""
        defaults = _defaults(type(self))
        held = [
            k
            for k in self.__struct_fields__
            if (value := getattr(self, k)) is not UNSET and value != defaults.get(k, UNSET)
        ]
        tag = self.__struct_config__.tag_field  # record_type, of a top-level record
        return [tag, *held] if tag else held

    def __len__(self) -> int:
        return len(self.keys())

    def items(self) -> list[tuple[str, Any]]:
        return [(k, getattr(self, k)) for k in self.keys()]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def update(self, fields: Any = (), /, **more: Any) -> None:
        for key, value in dict(fields, **more).items():
            setattr(self, key, value)

    def __eq__(self, other: object) -> bool:
        """Field for field with a Struct of its type; with a dict, as that dict would read
        (so tests written against dict records keep their assertions)."""
        if type(other) is type(self):
            fields = self.__struct_fields__
            return all(getattr(self, f) == getattr(other, f) for f in fields)
        if isinstance(other, dict):
            tag = self.__struct_config__.tag_field
            if tag is not None and other.get(tag, self.__struct_config__.tag) != (
                self.__struct_config__.tag
            ):
                return False
            if not set(other) <= {*self.__struct_fields__, tag}:
                return False  # a key the type does not declare: not this record
            try:
                return msgspec.convert(other, type(self), strict=False) == self
            except msgspec.ValidationError:
                return False
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a dict is

    def setdefault(self, key: str, default: Any = None) -> Any:
        value = getattr(self, key)
        if value is None or value is UNSET:
            setattr(self, key, default)
            return default
        return value


_DEFAULTS: dict[type, dict[str, Any]] = {}


def _defaults(cls: type) -> dict[str, Any]:
    """Each field's default, the value omit_defaults leaves out (a factory's, made once)."""
    out = _DEFAULTS.get(cls)
    if out is None:
        out = _DEFAULTS[cls] = {}
        for f in msgspec.structs.fields(cls):
            if f.default is not msgspec.NODEFAULT:
                out[f.name] = f.default
            elif f.default_factory is not msgspec.NODEFAULT:
                out[f.name] = f.default_factory()
    return out


#: TEMPORARY, with :class:`DictAccess`: what a reader still written for dicts accepts as a
#: record part (a dict built in memory, or a Struct read from a file).
DICT_LIKE: Final = (dict, DictAccess)

#: TEMPORARY, with :class:`DictAccess`: the type of such a part, for a reader's signature.
DictLike: TypeAlias = dict[str, Any] | DictAccess
