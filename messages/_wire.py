"""The base of every wire-shaped model: frozen values whose dump is the OpenAI Chat Completions shape.

Field names are the wire keys and nested models mirror the wire nesting. Two serializers produce the
same dicts:

* pydantic-core, for ``model_dump(**options)`` and ``model_dump_json()``, with ``exclude_none=True`` as
  the default so that unset keys are omitted;
* a dumper compiled once per class from its fields (``wire_dump``), for ``model_dump()`` without options
  and for ``dump_messages``: plain dict and list literals, as fast as building the dicts by hand, where
  pydantic-core pays for union dispatch and a check of every unset field (benchmarks/bench_core.py).

Property tests hold the two to the same output for every message the strategies generate.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Literal, Union

import typing_extensions
from pydantic import BaseModel, ConfigDict

__all__ = [
    "DUMPERS",
    "Dumper",
    "WireModel",
    "check_string_keys",
    "copy_json",
    "flat_init",
    "json_strings",
    "nest_flat",
    "short_repr",
    "wire_dump",
]

_REPR_LIMIT = 72
_J = typing.TypeVar("_J")

Dumper = Callable[[Any], dict[str, Any]]


def short_repr(value: str) -> str:
    """Shorten long payloads (base64 data URLs, audio) so that reprs stay readable."""
    if len(value) <= _REPR_LIMIT:
        return value
    return f"{value[:48]}...[{len(value)} chars]"


def nest_flat(data: dict[str, Any], key: str, flat: tuple[str, ...], owner: str) -> dict[str, Any]:
    """Turn flat constructor keywords (``url=``, ``detail=``) into the wire nesting (``image_url={...}``)."""
    if not any(name in data for name in flat):
        return data
    if key in data:
        raise ValueError(f"{owner} takes either {'=/'.join(flat)}= or {key}=, not both")
    rest = {k: v for k, v in data.items() if k not in flat}
    rest[key] = {name: data[name] for name in flat if name in data}
    return rest


def flat_init(key: str, flat: tuple[str, ...], owner: str) -> Callable[..., None]:
    """An ``__init__`` that accepts flat keywords as well as the wire nesting.

    It is marked as pydantic's own base ``__init__``, so that validating wire dicts (``model_validate``,
    ``load_messages``) goes straight to pydantic-core and never through Python: only construction by
    keywords pays for the conversion.
    """

    def __init__(self: BaseModel, /, **data: Any) -> None:  # noqa: N807 - it becomes the class's __init__
        BaseModel.__init__(self, **nest_flat(data, key, flat, owner))

    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]
    return __init__


_LEAVES = frozenset({str, int, float, bool, type(None)})


def copy_json(value: Any) -> Any:
    """A copy of JSON-like data (dicts and lists copied, leaves shared): a dump never aliases a message.

    Iterative, with an explicit stack: provider payloads (``thinking_blocks``, ``provider_specific_fields``)
    are opaque ``Any``, validated without a depth limit, so a copy must not hit the interpreter's recursion
    limit however deep they nest. A container met twice is copied once (as ``copy.deepcopy`` does), so
    shared data stays shared and cyclic data gives a cyclic copy instead of an endless loop.
    """
    if isinstance(value, dict):
        top: Any = dict(value)
    elif isinstance(value, list):
        top = list(value)
    else:
        return value
    copies = {id(value): top}
    pending = [top]  # copies whose children are still the originals
    while pending:
        node = pending.pop()
        for key, item in node.items() if node.__class__ is dict else enumerate(node):
            if item.__class__ in _LEAVES or not isinstance(item, (dict, list)):
                continue
            copy = copies.get(id(item))
            if copy is None:
                copy = copies[id(item)] = dict(item) if isinstance(item, dict) else list(item)
                pending.append(copy)
            node[key] = copy  # replacing the value of an existing key: the iteration stays valid
    return top


def check_string_keys(value: _J) -> _J:
    """``value``, once every object key inside it is known to be a string; a ``ValueError`` naming the
    path of the first one that is not (inside a model field, pydantic adds the field's location).

    Provider payloads are opaque ``Any`` below their top level, and JSON has string keys only: a payload
    holding ``{0: ...}`` would dump as ``{"0": ...}`` and read back as another value, so it is refused when
    the message is built instead of changing on its way through a store. Iterative and cycle-aware, like
    ``copy_json``.
    """
    seen: set[int] = set()
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if not isinstance(item, (dict, list)) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    where = f" at {path}" if path else ""
                    raise ValueError(
                        f"the key {key!r}{where} is not a string ({type(key).__name__}): JSON object keys "
                        f"are strings, so it would not read back as it was given; use {str(key)!r}"
                    )
                stack.append((f"{path}.{key}" if path else key, child))
        else:
            stack.extend((f"{path}[{n}]", child) for n, child in enumerate(item))
    return value


def json_strings(value: Any) -> Iterator[tuple[str, str]]:
    """Every string inside JSON-like data, keys included, with its path (``content[0].text``; a key has the
    path of its value), in document order.

    Iterative, like ``copy_json``: however deep a payload nests, the walk does not hit the recursion limit.
    """
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            yield path, item
        elif isinstance(item, dict):
            children: list[tuple[str, Any]] = []
            for key, child in item.items():
                where = f"{path}.{key}" if path else str(key)
                if isinstance(key, str):
                    children.append((where, key))
                children.append((where, child))
            stack.extend(reversed(children))
        elif isinstance(item, (list, tuple)):
            stack.extend((f"{path}[{n}]", child) for n, child in reversed(list(enumerate(item))))


class WireModel(BaseModel):
    """A frozen Pydantic model whose ``model_dump()`` omits unset (``None``) keys."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        # Parts and calls are validated once, when the message is built; revalidating a nested model
        # that was already built would only cost time.
        revalidate_instances="never",
        # Validators and serializers are built on first use, not at `import messages` (DESIGN: the
        # import stays light; benchmarks/bench_core.py measures it).
        defer_build=True,
    )

    __wire_keep_none__: ClassVar[frozenset[str]] = frozenset()
    """Fields dumped even when ``None`` (an assistant's ``content``)."""

    def __repr_args__(self) -> Any:
        # Unset fields add nothing to a repr but noise.
        for name, value in super().__repr_args__():
            if value is not None and value != []:
                yield name, value

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """The wire dict; keys whose value is ``None`` are omitted unless ``exclude_none=False``.

        Args:
            **kwargs: Pydantic's ``model_dump`` arguments (``exclude_none``, ``include``, ``exclude``,
                ``mode``...); without any, the compiled dumper gives the wire dict.

        Returns:
            The OpenAI-shape dict ``litellm.completion`` takes.

        Raises:
            pydantic_core.PydanticSerializationError: an argument Pydantic cannot serialize with.
        """
        if not kwargs:
            return DUMPERS[type(self)](self)
        kwargs.setdefault("exclude_none", True)
        return super().model_dump(**kwargs)

    def model_dump_json(self, **kwargs: Any) -> str:
        """The wire JSON; keys whose value is ``None`` are omitted unless ``exclude_none=False``.

        Args:
            **kwargs: Pydantic's ``model_dump_json`` arguments (``exclude_none``, ``indent``...).

        Returns:
            The wire dict as JSON text.

        Raises:
            pydantic_core.PydanticSerializationError: an argument Pydantic cannot serialize with.
        """
        kwargs.setdefault("exclude_none", True)
        return super().model_dump_json(**kwargs)


def wire_dump(message: WireModel) -> dict[str, Any]:
    """The wire dict of ``message``, by its class's compiled dumper."""
    return DUMPERS[type(message)](message)


class _Dumpers(dict[type, Dumper]):
    """Compiled dumpers by class, compiled on first use."""

    def __missing__(self, cls: type) -> Dumper:
        if not (isinstance(cls, type) and issubclass(cls, WireModel)):
            raise KeyError(cls)
        dumper = _compile(cls)
        self[cls] = dumper
        return dumper


DUMPERS = _Dumpers()


def _strip_annotated(tp: Any) -> Any:
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _union_args(tp: Any) -> tuple[Any, ...] | None:
    return typing.get_args(tp) if typing.get_origin(tp) in (Union, types.UnionType) else None


def _is_models(tp: Any) -> bool:
    """A wire model, or a union of them (a discriminated part union)."""
    tp = _strip_annotated(tp)
    members = _union_args(tp)
    if members is not None:
        return all(_is_models(member) for member in members)
    return _is_model_class(tp)


def _is_model_class(tp: Any) -> bool:
    # `list[X]` passes isinstance(..., type) on Python 3.11: rule generic aliases out first.
    return typing.get_origin(tp) is None and isinstance(tp, type) and issubclass(tp, WireModel)


def _value_code(tp: Any, names: dict[str, Any], v: str = "v") -> str:
    """Python code for the dump of a (non-None) value named ``v`` of type ``tp``; ``names`` collects the
    dumpers the code calls."""
    tp = _strip_annotated(tp)
    members = _union_args(tp)
    if members is not None and _is_models(tp):
        return f"_D[{v}.__class__]({v})"  # a part union: dispatch on the class
    if members is not None:
        kinds = [m for m in members if m is not type(None)]
        if len(kinds) == 1:
            return _value_code(kinds[0], names, v)
        # `str | list[parts]`, `str | Model` (an URL or its object): the text as is, the rest by its code.
        others = [m for m in kinds if _strip_annotated(m) is not str]
        if len(others) == len(kinds) - 1 and len(others) == 1:
            other = _strip_annotated(others[0])
            if typing.get_origin(other) is list or _is_model_class(other):
                return f"{v} if {v}.__class__ is str else ({_value_code(other, names, v)})"
        return f"_json({v})"
    if typing_extensions.is_typeddict(tp):
        return _typeddict_literal(tp, v)
    if _is_model_class(tp):
        inline = _inline_literal(tp, v, names)
        if inline is not None:
            return inline
        # One known class: call its dumper by name, no dispatch.
        name = f"_dump_{tp.__name__}"
        names[name] = DUMPERS[tp]
        return f"{name}({v})"
    if typing.get_origin(tp) is list and _is_models(typing.get_args(tp)[0]):
        item = f"x{len(v)}"
        return f"[{_value_code(typing.get_args(tp)[0], names, item)} for {item} in {v}]"
    if tp in (str, int, float, bool) or typing.get_origin(tp) is Literal:
        return v
    return f"_json({v})"  # dicts, lists and Any: copied, so that a dump never aliases the message


def _inline_literal(cls: type[WireModel], v: str, names: dict[str, Any]) -> str | None:
    """A dict literal for a model whose keys hold plain values (``TextPart``), so that the enclosing dumper
    builds it without a call; ``None`` for other models. Optional fields (``cache_control``) left unset
    keep the literal; when one is set, the class's own dumper is called instead."""
    entries = []
    unset: list[str] = []  # optional fields: the literal holds while each is None
    for name, info in cls.model_fields.items():
        annotation = _strip_annotated(info.annotation)
        fixed, value = _constant(annotation)
        members = _union_args(annotation)
        if fixed:
            entries.append(f"{name!r}: {value!r}")
        elif annotation in (str, int, float, bool):
            entries.append(f"{name!r}: {v}.{name}")
        elif members is not None and type(None) in members and info.default is None:
            unset.append(f"{v}.{name} is None")
        else:
            return None
    literal = "{" + ", ".join(entries) + "}"
    if not unset:
        return literal
    name = f"_dump_{cls.__name__}"
    names[name] = DUMPERS[cls]
    return f"({literal} if {' and '.join(unset)} else {name}({v}))"


def _typeddict_literal(tp: Any, v: str) -> str:
    """A dict literal for a typed dict of required plain values (``FunctionCall``), else a copy."""
    hints = typing.get_type_hints(tp)
    if set(hints) != set(tp.__required_keys__) or any(
        h not in (str, int, float, bool) for h in hints.values()
    ):
        return f"_json({v})"
    return "{" + ", ".join(f"{name!r}: {v}[{name!r}]" for name in hints) + "}"


def _constant(tp: Any) -> tuple[bool, Any]:
    """Whether ``tp`` allows a single value (``Literal["assistant"]``), and that value."""
    tp = _strip_annotated(tp)
    if typing.get_origin(tp) is Literal and len(typing.get_args(tp)) == 1:
        return True, typing.get_args(tp)[0]
    return False, None


def _compile(cls: type[WireModel]) -> Dumper:
    names: dict[str, Any] = {"_D": DUMPERS, "_json": copy_json}
    prepare: list[str] = []  # statements computing the values of keys that are always present
    always: list[str] = []  # entries of the dict literal, in field order
    optional: list[str] = []  # statements adding keys that may be unset
    for index, (name, info) in enumerate(cls.model_fields.items()):
        annotation = _strip_annotated(info.annotation)
        fixed, value = _constant(annotation)
        if fixed:
            always.append(f"{name!r}: {value!r}")
            continue
        members = _union_args(annotation)
        nullable = members is not None and type(None) in members
        var = f"a{index}"
        code = _value_code(annotation, names, var)
        if info.default_factory is list:  # an empty list is an unset list
            optional.append(f"    {var} = s[{name!r}]\n    if {var}: d[{name!r}] = {code}")
        elif nullable and name not in cls.__wire_keep_none__:
            optional.append(f"    {var} = s[{name!r}]\n    if {var} is not None: d[{name!r}] = {code}")
        else:
            prepare.append(f"    {var} = s[{name!r}]")
            if code != var:
                guarded = f"None if {var} is None else ({code})" if nullable else code
                prepare.append(f"    {var} = {guarded}")
            always.append(f"{name!r}: {var}")
    lines = ["def dump(m):", "    s = m.__dict__", *prepare, f"    d = {{{', '.join(always)}}}"]
    lines.extend(optional)
    lines.append("    return d")
    source = "\n".join(lines)
    exec(compile(source, f"<wire dumper of {cls.__qualname__}>", "exec"), names)
    dumper: Dumper = names["dump"]
    return dumper
