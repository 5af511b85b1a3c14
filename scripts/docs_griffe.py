"""A griffe extension for the API reference (mkdocs.yml loads it beside griffe-inherited-docstrings): what
the package's objects look like on a page, so that a reader sees what they can use and nothing else.

* **Bases.** A class whose base is not documented on the site (a private class, ``_Failures``; a public
  one in a private module, ``SQLThreadStore``) shows that base's own bases instead, recursively, so that
  "Bases:" names only what the reader can look up (``SQLiteThreadStore``: ``ThreadStore``). The bases
  themselves are left as they are, so the methods the class inherits from them are still found and shown
  (``inherited_members`` in mkdocs.yml); the bases to show are kept in ``extra["docs_site"]["bases"]``,
  which the class template (scripts/docs_templates) reads.
* **Signatures.** A hypothesis ``@composite`` strategy is shown as it is called: without ``draw``.
* **Values.** An instance attribute's value is code of ``__init__`` (``path = Path(path)``), not a value:
  it is not shown. Nor is an attribute's value or a parameter's default that is code a reader cannot use
  (a private name, a lambda) or a string too long for the code column: a default shows as ``...``, and
  the docstring says what it is. A return annotation that names a private class (a rule's ``start``)
  shows the overridden method's instead, or none.
* **Inherited constructors.** A class whose ``__init__`` is a base's shows the base's "Parameters"
  section when it has none of its own (the errors of one family share their constructor).
* **Fields.** A Pydantic model (or a dataclass) takes its fields as keyword arguments: it gets a signature
  of its fields when it has no ``__init__`` of its own (or only ``(**data)``), and a "Parameters" section
  made of its fields' docstrings when its docstring has none.

tests/docs/test_reference.py loads the package with the same extensions to check what every page shows.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import Any

import griffe

__all__ = ["DocsSite", "documented_paths", "walk"]

_PRIVATE_NAME = re.compile(r"(?<![\w.])_[A-Za-z0-9]\w*|\._[A-Za-z]\w*")
_FIELD_CALL = re.compile(r"^(?:pydantic\.|dataclasses\.)?[Ff]ield\(")


def walk(obj: Any) -> Iterator[Any]:
    """``obj`` and every object defined under it (aliases left out: they are walked where they are
    defined)."""
    yield obj
    for member in list(obj.members.values()):
        if not member.is_alias:
            yield from walk(member)


def documented_paths(package: Any) -> set[str]:
    """The paths of the objects the site documents: every name of the ``__all__`` of every public module
    (a dotted name with no part starting with ``_``), through its aliases."""
    paths: set[str] = set()
    for obj in walk(package):
        if not obj.is_module or any(part.startswith("_") for part in obj.path.split(".")):
            continue
        paths.add(obj.path)
        for export in obj.exports or ():
            name = export if isinstance(export, str) else export.name
            try:
                target = obj[name]
                paths.add(target.final_target.path if target.is_alias else target.path)
            except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
                continue
    return paths


def _code_a_reader_cannot_use(value: object) -> bool:
    text = str(value)
    return bool(_PRIVATE_NAME.search(text)) or "lambda" in text


class DocsSite(griffe.Extension):
    """The extension (see the module docstring)."""

    def on_package(self, *, pkg: Any, **kwargs: Any) -> None:
        if pkg.name != "messages":
            return
        documented = documented_paths(pkg)
        for obj in walk(pkg):
            if obj.is_attribute:
                _clean_value(obj)
            elif obj.is_function:
                _clean_defaults(obj)
            elif obj.is_class:
                for function in obj.functions.values():
                    if not function.is_alias:
                        _clean_defaults(function)
                obj.extra["docs_site"]["bases"] = _shown_bases(obj, documented, ())
                if _takes_fields(obj):
                    _add_fields(obj)
        for obj in walk(pkg):
            if obj.is_class:
                _inherit_parameters(obj)


_LONGEST_STRING = 60
"""The longest string a value may hold and still show in a signature: a longer one would run past the code
column (88 characters), so the value is said in the docstring instead."""


def _clean_value(attribute: Any) -> None:
    if attribute.value is None:
        return
    instance = "instance-attribute" in attribute.labels and "class-attribute" not in attribute.labels
    if instance or _code_a_reader_cannot_use(attribute.value):
        attribute.value = None
    elif _long_strings(str(attribute.value)):
        text = str(attribute.value)
        attribute.value = None
        try:
            literal = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return
        if isinstance(literal, str) and attribute.docstring is not None:
            fence = "``" if "`" in literal else "`"
            attribute.docstring.parsed.append(
                griffe.DocstringSectionText(f"The value: {fence}{literal}{fence}")
            )


def _long_strings(text: str) -> bool:
    """Whether the expression ``text`` holds a string longer than ``_LONGEST_STRING``."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return len(text) > _LONGEST_STRING
    return any(
        isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) > _LONGEST_STRING
        for node in ast.walk(tree)
    )


def _clean_defaults(function: Any) -> None:
    if any(str(d.value).endswith("composite") for d in function.decorators) and function.parameters:
        # A hypothesis composite strategy is called without its first parameter, ``draw``.
        del function.parameters[0]
    for parameter in function.parameters:
        default = parameter.default
        if default is not None and (_code_a_reader_cannot_use(default) or _long_strings(str(default))):
            parameter.default = "..."  # the field's or parameter's docstring says the value
    if function.returns is not None and _PRIVATE_NAME.search(str(function.returns)):
        function.returns = _overridden_returns(function)


def _overridden_returns(function: Any) -> Any:
    """The return annotation of the method ``function`` overrides (a rule's ``start`` returns its private
    state class; ``Rule.start`` says ``Any``), or ``None``: no annotation rather than a private name."""
    parent = function.parent
    if parent is None or not parent.is_class:
        return None
    try:
        mro = parent.mro()
    except ValueError:
        return None
    for klass in mro:
        method = klass.members.get(function.name)
        if method is not None and not method.is_alias and method.is_function:
            returns = method.returns
            return returns if returns is not None and not _PRIVATE_NAME.search(str(returns)) else None
    return None


def _shown_bases(cls: Any, documented: set[str], seen: tuple[str, ...]) -> list[Any]:
    """The bases a reader can look up, each undocumented base of the package replaced by its own."""
    shown: list[Any] = []
    for base in cls.bases:
        path = base if isinstance(base, str) else base.canonical_path
        if not path.startswith("messages.") or path in documented:
            shown.append(base)
            continue
        try:
            resolved = cls.modules_collection.get_member(path)
            resolved = resolved.final_target if resolved.is_alias else resolved
        except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            continue
        if resolved.path in documented:
            shown.append(base)
        elif resolved.is_class and resolved.path not in seen:
            for inner in _shown_bases(resolved, documented, (*seen, resolved.path)):
                if str(inner) not in {str(b) for b in shown}:
                    shown.append(inner)
    return shown


# --- the fields of models and dataclasses -----------------------------------------------------------


def _takes_fields(cls: Any) -> bool:
    """Whether the class is made from its fields: a Pydantic model or a dataclass."""
    if "dataclass" in cls.labels:
        return True
    try:
        mro = cls.mro()
    except ValueError:
        return False
    for klass in (cls, *mro):
        for base in klass.bases:
            path = base if isinstance(base, str) else base.canonical_path
            if path in {"pydantic.BaseModel", "pydantic.main.BaseModel"}:
                return True
    return False


def _fields(cls: Any) -> list[Any]:
    """The model's fields, the bases' first (as Pydantic orders them), each once."""
    found: dict[str, Any] = {}
    for klass in reversed([cls, *cls.mro()]):
        if klass.package.name != "messages":
            continue
        for name, member in klass.members.items():
            if member.is_alias or not member.is_attribute or name.startswith("_") or name == "model_config":
                continue
            annotation = str(member.annotation or "")
            if not annotation or annotation.startswith(("ClassVar", "typing.ClassVar")):
                continue
            if "property" in member.labels or _keyword(member, "init") == "False":
                continue
            if "class-attribute" in member.labels and "instance-attribute" not in member.labels:
                continue  # a ClassVar (griffe unwraps its annotation): not a field
            found[name] = member
    return list(found.values())


def _keyword(field: Any, name: str) -> str | None:
    """The source of keyword ``name`` of the ``Field(...)`` / ``field(...)`` call a field is set to."""
    text = str(field.value or "")
    if not _FIELD_CALL.match(text):
        return None
    try:
        call = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    assert isinstance(call, ast.Call)
    return next((ast.unparse(k.value) for k in call.keywords if k.arg == name), None)


def _default(field: Any) -> str | None:
    """A field's default as the signature shows it: its value, ``Field(default=X)``'s ``X``, or ``...``
    for a default made by a factory; ``None`` when it has none (required)."""
    if field.value is None:
        return None
    text = str(field.value)
    if not _FIELD_CALL.match(text):
        return text
    try:
        call = ast.parse(text, mode="eval").body
    except SyntaxError:
        return "..."
    assert isinstance(call, ast.Call)
    for keyword in call.keywords:
        if keyword.arg == "default":
            return ast.unparse(keyword.value)
        if keyword.arg == "default_factory":
            return "..."
    if call.args and not (isinstance(call.args[0], ast.Constant) and call.args[0].value is Ellipsis):
        return ast.unparse(call.args[0])
    return None


def _shown_default(field: Any) -> str | None:
    """``_default``, or ``...`` where that is code a reader cannot use (a private constant)."""
    default = _default(field)
    return "..." if default is not None and _code_a_reader_cannot_use(default) else default


def _add_fields(cls: Any) -> None:
    fields = _fields(cls)
    init = cls.all_members.get("__init__")
    written = (
        init is not None
        and init.parent is not None
        and init.parent.package.name == "messages"
        and [p.name for p in init.parameters if p.name != "self"] not in ([], ["data"])
    )
    if "dataclass" in cls.labels and init is not None:
        # griffe's signature of a dataclass gives a field made by a factory no default: it has one.
        defaults = {field.name: _default(field) for field in fields}
        for parameter in init.parameters:
            if parameter.default is None and defaults.get(parameter.name) is not None:
                parameter.default = "..."
    if not written and "dataclass" not in cls.labels:
        parameters = [griffe.Parameter("self", kind=griffe.ParameterKind.positional_or_keyword)]
        for field in fields:
            default = _shown_default(field)
            parameters.append(
                griffe.Parameter(
                    field.name,
                    annotation=field.annotation,
                    kind=griffe.ParameterKind.keyword_only,
                    default=default,
                )
            )
        synthesized = griffe.Function(
            "__init__", parameters=griffe.Parameters(*parameters), returns="None", lineno=None
        )
        synthesized.labels.add("docs-site-fields")
        cls.set_member("__init__", synthesized)
    docstring = cls.docstring
    if docstring is None or not fields:
        return
    sections = docstring.parsed
    if any(s.kind is griffe.DocstringSectionKind.parameters for s in sections):
        return
    init_docstring = cls.all_members["__init__"].docstring if "__init__" in cls.all_members else None
    if init_docstring is not None and any(
        s.kind is griffe.DocstringSectionKind.parameters for s in init_docstring.parsed
    ):
        return
    items = [
        griffe.DocstringParameter(
            field.name,
            description=_first_paragraph(field),
            annotation=field.annotation,
            value=_shown_default(field),
        )
        for field in fields
    ]
    position = 1 if sections and sections[0].kind is griffe.DocstringSectionKind.text else 0
    sections.insert(position, griffe.DocstringSectionParameters(items))


def _parameters_section(docstring: Any) -> Any:
    if docstring is None:
        return None
    return next((s for s in docstring.parsed if s.kind is griffe.DocstringSectionKind.parameters), None)


def _inherit_parameters(cls: Any) -> None:
    """A class that takes its constructor from a base of the package (``EmptyConversationError`` from
    ``ConversationError``) and says nothing of its parameters shows the base's "Parameters" section."""
    init = cls.all_members.get("__init__")
    if init is None or cls.docstring is None or "__init__" in cls.members:
        return
    init = init.final_target if init.is_alias else init
    owner = init.parent
    if owner is None or not owner.is_class or owner.package.name != "messages":
        return
    if _parameters_section(cls.docstring) is not None:
        return
    section = _parameters_section(owner.docstring) or _parameters_section(init.docstring)
    if section is None:
        return
    sections = cls.docstring.parsed
    position = 1 if sections and sections[0].kind is griffe.DocstringSectionKind.text else 0
    sections.insert(position, section)


def _first_paragraph(field: Any) -> str:
    if field.docstring is None:
        return ""
    text: str = field.docstring.value
    return text.strip().split("\n\n", 1)[0]
