"""The API reference is one a user can work from: every public function and class of every ``__all__``
says what each of its parameters means, entry points show an example, and no page shows a private name or
a stray ``::``.

The package is read with griffe and the extensions mkdocs.yml gives mkdocstrings (inherited docstrings,
scripts/docs_griffe.py), so that each object is checked as its page renders it: a class's parameters are
its constructor's (``merge_init_into_class``), a method without a docstring shows the one it overrides,
a Pydantic model or a dataclass takes its fields. What the pages show is read from the built site.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.docs.conftest import ROOT, docs_site_module
from tests.docs.pages import pages, visible_text

PHASE_TWO: tuple[str, ...] = ()
"""Modules whose docstrings are written after the work on them this round is merged (issue 41's phase 2),
so that two changes of one file do not collide. Phase 2 removes this list: then every module is held to
the rule. An object is exempt when the module that defines it starts with one of these names."""

ENTRY_POINTS = (
    "messages.dump_messages",
    "messages.load_messages",
    "messages.models.AIMessage.from_litellm",
    "messages.models.ToolMessage.for_call",
    "messages.models.ToolCall",
    "messages.models.UserMessage",
    "messages.protocol.validate_conversation",
    "messages.protocol.repair_conversation",
    "messages.protocol.protocol_errors",
    "messages.profiles.get_profile",
    "messages.profiles.register_profile",
    "messages.streaming.StreamAccumulator",
    "messages.caching.place_cache_breakpoints",
    "messages.quirks.get_quirk",
    "messages.testing.StandInServer",
    "messages.testing.scripted",
    "messages.strategies.conversations",
    "messages.convert.langchain.from_langchain",
    "messages.convert.pydantic_ai.from_pydantic_ai",
    "messages.convert.responses.to_responses_items",
    "messages.convert.autogen.from_autogen",
    "messages.convert.agent_framework.from_agent_framework",
    "messages.cli.main",
    "messages.threads.LocalThread",
    "messages.threads.LocalThread.aread",
    "messages.threads.RemoteThread",
    "messages.context.BufferedContext",
    "messages.context.HeadAndTailContext",
    "messages.context.TokenLimitedContext",
    "messages.compaction.Compactor",
    "messages.compaction.Compactor.window",
    "messages.compaction.Compactor.compact",
    "messages.integrations.autogen.BufferedChatCompletionContext",
    "messages.integrations.autogen.HeadAndTailChatCompletionContext",
    "messages.integrations.autogen.TokenLimitedChatCompletionContext",
    "messages.integrations.autogen.CompactingChatCompletionContext",
    "messages.integrations.autogen.LiteLLMChatCompletionClient",
    "messages.integrations.agent_framework.ThreadStoreHistoryProvider",
    "messages.integrations.openai_agents.ThreadStoreSession",
)
"""Where a user starts: each shows a short example (an ``Examples`` section whose blocks run alone, as
every block of the site does: tests/docs/test_examples.py)."""


def _exempt(path: str) -> bool:
    return any(path == module or path.startswith(module + ".") for module in PHASE_TWO)


@functools.cache
def package() -> Any:
    """The package as mkdocstrings loads it (the extensions of mkdocs.yml)."""
    import griffe
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    handler = next(
        p["mkdocstrings"] for p in config["plugins"] if isinstance(p, dict) and "mkdocstrings" in p
    )
    names = handler["handlers"]["python"]["options"]["extensions"]
    extensions = griffe.load_extensions(
        *[str(ROOT / n) if n.endswith(".py") or ".py:" in n else n for n in names]
    )
    loader = griffe.GriffeLoader(extensions=extensions, search_paths=[str(ROOT)], docstring_parser="google")
    loaded = loader.load("messages")
    loader.resolve_aliases(implicit=False, external=None)
    return loaded


def _sections(*docstrings: Any) -> set[str]:
    """The kinds of the sections the docstrings have (``"parameters"``, ``"returns"``, ...)."""
    return {section.kind.value for d in docstrings if d is not None for section in d.parsed}


def _documented_parameters(*docstrings: Any) -> dict[str, str]:
    """The parameters the docstrings' "Parameters" sections name, with their descriptions."""
    found: dict[str, str] = {}
    for docstring in docstrings:
        if docstring is None:
            continue
        for section in docstring.parsed:
            if section.kind.value == "parameters":
                for item in section.value:
                    found[item.name.lstrip("*")] = item.description
    return found


def _taken(function: Any) -> list[str]:
    return [p.name for p in function.parameters if p.name not in ("self", "cls")]


class Callable(NamedTuple):
    """A function, method or class as its page shows it."""

    taken: list[str]
    """The parameters it takes (a class: its constructor's)."""
    docstrings: tuple[Any, ...]
    """The docstrings that may document them (a class: its own and its constructor's)."""
    returns: str | None
    """Its return annotation as the page shows it (``None``: none, or a class)."""


def _returns(function: Any) -> str | None:
    return None if function.returns is None else str(function.returns)


def public_callables() -> dict[str, Callable]:
    """Every function and class a public module's ``__all__`` renders, and every public method a rendered
    class shows (its own and those it inherits from the package): the parameters it takes, the docstrings
    that may document them, and what it returns."""
    hook = docs_site_module()
    root = package()
    found: dict[str, Callable] = {}
    for module in hook.public_modules():
        own, _ = hook.rendered_here(module)
        for name in own:
            path = hook.target(module, name).path
            obj = root[path.removeprefix("messages.")]
            obj = obj.final_target if obj.is_alias else obj
            if obj.is_function:
                found[obj.path] = Callable(_taken(obj), (obj.docstring,), _returns(obj))
            if not obj.is_class:
                continue
            init = obj.all_members.get("__init__")
            if init is not None:
                init = init.final_target if init.is_alias else init
                found[obj.path] = Callable(_taken(init), (obj.docstring, init.docstring), None)
            for member_name, member in obj.all_members.items():
                if member_name.startswith("_"):
                    continue
                target = member.final_target if member.is_alias else member
                if not target.is_function or "property" in target.labels:
                    continue
                if not target.path.startswith("messages."):
                    continue
                docstrings = (member.docstring, target.docstring)
                found[f"{obj.path}.{member_name}"] = Callable(_taken(target), docstrings, _returns(target))
    return found


def _home(path: str) -> str:
    """The path of the module that defines the object at ``path`` (its own, or a method's class's)."""
    root = package()
    parts = path.removeprefix("messages.").split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = root[".".join(parts[:cut])]
        except KeyError:
            continue
        obj = obj.final_target if obj.is_alias else obj
        if len(parts) > cut and obj.is_class and parts[cut] in obj.all_members:
            member = obj.all_members[parts[cut]]
            member = member.final_target if member.is_alias else member
            return str(member.module.path)
        return str(obj.module.path)
    return path


def _tell(needed: str, found: dict[str, list[str]]) -> str:
    """The failure message: for each object, the file to edit, the object and what its docstring needs; a
    module merged before its docstrings are written may be listed in ``PHASE_TWO`` meanwhile."""
    lines = [f"These docstrings need {needed}:"]
    for path, names in sorted(found.items()):
        listed = f" ({', '.join(names)})" if names else ""
        home = _home(path)
        module = package() if home == "messages" else package()[home.removeprefix("messages.")]
        lines.append(f"  {Path(module.filepath).relative_to(ROOT)}: {path}{listed}")
    lines.append("(an undocumented module merged meanwhile: add its name to PHASE_TWO in this file)")
    return "\n".join(lines)


def test_every_public_callable_says_what_each_parameter_means():
    missing: dict[str, list[str]] = {}
    callables = public_callables()
    assert len(callables) > 500
    for path, (taken, docstrings, _) in sorted(callables.items()):
        if not taken or _exempt(_home(path)):
            continue
        documented = _documented_parameters(*docstrings)
        absent = [name for name in taken if not documented.get(name, "").strip()]
        if absent:
            missing[path] = absent
    assert missing == {}, _tell("an `Args:` entry for each parameter named", missing)


def test_no_parameter_section_names_a_parameter_the_signature_lacks():
    stale: dict[str, list[str]] = {}
    for path, (taken, docstrings, _) in sorted(public_callables().items()):
        documented = _documented_parameters(*docstrings)
        extra = sorted(set(documented) - set(taken))
        if extra:
            stale[path] = extra
    assert stale == {}, _tell("no `Args:` entry for a parameter it lacks (remove those named)", stale)


def test_every_public_function_that_returns_something_says_what():
    silent = []
    for path, (_, docstrings, returns) in sorted(public_callables().items()):
        if returns in (None, "None") or path.endswith(".__init__") or _exempt(_home(path)):
            continue
        if not _sections(*docstrings) & {"returns", "yields"}:
            silent.append(path)
    assert silent == [], _tell("a `Returns:` (or `Yields:`) section", {p: [] for p in silent})


def test_entry_points_show_an_example():
    root = package()
    without = []
    for path in ENTRY_POINTS:
        obj = root[path.removeprefix("messages.")]
        obj = obj.final_target if obj.is_alias else obj
        sections = obj.docstring.parsed if obj.docstring else []
        examples = [s for s in sections if s.kind.value == "examples"]
        text = "".join(str(item) for s in examples for item in s.value)
        if "```python" not in text:
            without.append(path)
    assert without == [], _tell("an `Examples:` section with a ```python block", {p: [] for p in without})


def test_phase_two_names_only_modules_that_exist():
    # The allow-list shrinks to nothing in phase 2; meanwhile each entry is a module of the package.
    modules = {m.path for m in _walk_modules(package())}
    for name in PHASE_TWO:
        assert name in modules, name


def _walk_modules(module: Any) -> list[Any]:
    found = [module]
    for member in module.modules.values():
        if not member.is_alias:
            found += _walk_modules(member)
    return found


# --- what the built pages show ---------------------------------------------------------------------

_PRIVATE = re.compile(r"(?<![\w.\-/])_[A-Za-z]\w*|\b[A-Za-z]\w*(?:\.\w+)*\._[A-Za-z]\w*")
"""A name that starts with ``_``, alone or as a part of a dotted path (``messages.profiles._ids``)."""


def _reference_pages(site: Path) -> list[Path]:
    return [p for p in pages(site) if p.parent.parent.name == "reference"]


def test_no_reference_page_shows_a_private_name(site: Path):
    shown: dict[str, list[str]] = {}
    for page in _reference_pages(site):
        module = page.parent.name
        if _exempt(module):
            continue
        names = sorted(set(_PRIVATE.findall(visible_text(site, page))))
        if names:
            shown[module] = names
    assert shown == {}


def test_no_page_shows_a_stray_double_colon(site: Path):
    # An rST literal block ("Example::") renders as a lone "::" in Markdown.
    stray = [p.parent.name for p in pages(site) if re.search(r"(^|\s)::(\s|$)", visible_text(site, p))]
    assert stray == []


def test_every_public_module_has_a_named_place_in_the_navigation():
    hook = docs_site_module()
    placed = [
        module
        for section in hook.reference_nav()
        for _, entries in section.items()
        for e in entries
        for module in e
    ]
    assert sorted(placed) == sorted(hook.public_modules())
    assert "Other" not in {title for section in hook.reference_nav() for title in section}


@pytest.mark.parametrize(
    "text", ["a _private name", "x = _THREAD_CONFIG", "Bases: _Failures", "in messages.profiles._ids"]
)
def test_the_private_name_reader_finds_private_names(text):
    assert _PRIVATE.findall(text)


@pytest.mark.parametrize("text", ["__init__", "tool_call_id", "messages.stores", "a-_b", "path/_x"])
def test_the_private_name_reader_passes_public_ones(text):
    assert _PRIVATE.findall(text) == []
