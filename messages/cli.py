"""The ``messages`` command: ``messages check FILE`` explains a provider's 400 before it happens, and
``messages quirks`` prints the quirk catalog it cites.

```sh
messages check conversation.json                 # shape and tool-call protocol
messages check --model mistral/mistral-large-latest conversation.json
messages check --all-providers request-log.json  # every registered profile
messages check --fix --model gemini/gemini-2.5-flash conversation.json > fixed.json
cat requests.jsonl | messages check --format json -
messages quirks                                  # the quirk catalog, one line per row
messages quirks 30                               # quirk 30 in full: errors, sources
messages quirks mistral                          # one provider's (or profile's) quirks
```

Input: a JSON list of OpenAI-shape messages; or a request log object with ``"messages"`` (and usually
``"model"``: a litellm or OpenAI request body, or an OpenAI Batch API line whose request is under
``"body"``); or a JSON Lines file of those, one report per line. ``-`` reads standard input.

Which providers: each ``--model`` (repeatable) and, with ``--all-providers``, every registered profile.
Without either, a request log's own ``model``; without that, only the shape and the tool-call protocol
are checked.

For each provider it lists what litellm alone would send that the provider rejects (``Profile.check`` of
the plain dump), each with the message index, the rule and its quirk (``quirk 30``: ``messages quirks 30``
prints what the provider wants, its error text and the sources); then what the profile changes
(``dump_messages(..., model=M)``) and what would still be wrong after it.

``--fix`` writes the repaired (``repair_conversation``), profile-adjusted payload to standard output, as
JSON (one line per conversation for JSON Lines input), keeping the other keys of a request log; the report
goes to standard error. It takes one model: ``--model M``, else the log's own; with none it only repairs
the tool-call protocol. With a ``--model`` that differs from the log's, the log's ``model`` is set to it.

Exit status: 0 no problems; 1 problems found (with ``--fix``: the output still has problems, or a
conversation could not be fixed); 2 input that cannot be read (missing file, not JSON, truncated JSON, JSON
nested too deeply, JSON that is neither a list of messages nor a request log), a usage error, or a bug of
this package (one line saying so; ``MESSAGES_TRACEBACK=1`` shows the traceback). Never a traceback
otherwise.

When some messages cannot be read, the rest are still checked at their own indexes; ``skipped`` says
what waits until they read.

``--format json`` prints one object (``version`` 1); ``#`` notes what each key holds:

```text
{
  "version": 1, "file": "conversation.json", "ok": false,
  "problems": [                         # every problem, in report order
    {"line": null,                      # line of a JSON Lines file, else null
     "kind": "provider",                # "shape" | "protocol" | "provider"
     "provider": "mistral",             # profile name (provider problems), else null
     "model": "mistral/mistral-large-latest",  # the model asked for, else null
     "index": 1,                        # message index, or null for the whole list
     "field": null,                     # the message field, for shape problems
     "rule": "tool-call-id", "row": 30, # rule id, and its quirk number (or null)
     "message": "tool-call id ... breaks mistral's id rule ...",
     "fixable": true}                   # whether --fix fixes it
  ],
  "conversations": [
    {"line": null, "messages": 4, "model": null,
     "skipped": null,                   # why the providers were not checked, if not
     "profiles": [
       {"model": "mistral/mistral-large-latest", "provider": "mistral",
        "is_default": false, "problems": 1,
        "changes": {"ids_rewritten": 1, "id_examples": [["old", "new"]],
                    "keys_dropped": {"name": 1}, "keys_added": {},
                    "messages_added": 0, "messages_dropped": 0, "messages_merged": 0,
                    "messages_moved": 0, "roles_changed": 0, "contents_changed": 0,
                    "arguments_changed": 0, "tool_calls_removed": 0},
        "remaining": []}],              # check(apply(...)): index, rule, row, message
     "fix": null}                       # --fix: {"written", "changes", "remaining"}
  ],
  "summary": {"problems": 1, "fixable": 1, "conversations": 1,
              "conversations_with_problems": 1}
}
```
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from messages._check import (
    Entry,
    Fixed,
    InputError,
    Problem,
    ProfileReport,
    Report,
    Target,
    check_entry,
    fix_entry,
    read_entries,
)

if TYPE_CHECKING:
    from messages.profiles import Violation
    from messages.quirks import Quirk

__all__ = ["main"]

JSON_VERSION = 1
"""The version of the ``--format json`` shape; it changes only when a key changes meaning or goes away."""

_PROG = "messages"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=_PROG,
        description="Typed LLM chat messages: command-line tools.",
    )
    from messages import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "check",
        help="say what a provider would reject in a conversation, and why",
        description=(
            "Check a conversation (a JSON list of messages, a request log with model and messages, or "
            "JSON Lines of those) for broken messages, tool-call protocol problems, and what each "
            "provider would reject, citing the quirk of each (messages quirks N prints quirk N)."
        ),
        epilog=(
            "Exit status: 0 no problems, 1 problems found (with --fix: the output still has some), "
            "2 unreadable input or bad usage."
        ),
    )
    check.add_argument("file", metavar="FILE", help="the conversation file, or - for standard input")
    check.add_argument(
        "--model",
        "-m",
        action="append",
        dest="models",
        default=[],
        metavar="M",
        help=(
            "a litellm model string to check against (repeatable); default: the request log's model. "
            "Give the provider prefix (openai/gpt-4o): a bare name asks litellm, whose import takes seconds"
        ),
    )
    check.add_argument(
        "--all-providers", action="store_true", help="check against every registered provider profile"
    )
    check.add_argument(
        "--fix",
        action="store_true",
        help="print the repaired, provider-adjusted payload on stdout (the report goes to stderr)",
    )
    check.add_argument(
        "--format", choices=("text", "json"), default="text", help="the report's format (default: text)"
    )
    check.set_defaults(command_parser=check, run=_run_check)
    quirks = commands.add_parser(
        "quirks",
        help="print the quirk catalog: what each provider rejects, with its error text and sources",
        description=(
            "Print the quirk catalog that messages check and the provider profiles cite: every row (one "
            "line each), one row in full (messages quirks 30), or the rows of one provider or profile "
            "(messages quirks mistral, messages quirks bedrock:claude)."
        ),
        epilog="Exit status: 0 printed, 2 no such quirk or provider.",
    )
    quirks.add_argument(
        "what", nargs="?", metavar="N|PROVIDER", help="a quirk number, or a provider or profile name"
    )
    quirks.add_argument("--full", action="store_true", help="print each row listed in full")
    quirks.add_argument(
        "--format", choices=("text", "json"), default="text", help="the output's format (default: text)"
    )
    quirks.set_defaults(command_parser=quirks, run=_run_quirks)
    return parser


# --- text --------------------------------------------------------------------------------------------


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _where(index: int | None) -> str:
    return "the conversation" if index is None else f"message {index}"


def _tags(rule: str, row: int | None, fixable: bool | None) -> str:
    tags = [rule]
    if row is not None:
        tags.append(f"quirk {row}")
    if fixable is not None:
        tags.append("fixable" if fixable else "not fixable")
    return f"[{', '.join(tags)}]"


def _problem_line(p: Problem) -> str:
    fixable = None if p.kind == "shape" else p.fixable
    return f"    {_where(p.index)}: {p.message} {_tags(p.rule, p.row, fixable)}"


def _violation_line(v: Violation) -> str:
    return f"      {_where(v.index)}: {v.message} {_tags(v.rule, v.row, v.fixable)}"


def _same_report(r: ProfileReport) -> tuple[Any, ...]:
    """What two profiles must share for their reports to be printed once."""
    problems = tuple((p.index, p.rule, p.row, p.message, p.fixable) for p in r.problems)
    changes = None if r.changes is None else json.dumps(r.changes.as_json(), sort_keys=True)
    return problems, changes, tuple(r.remaining or ())


def _names(labels: list[str]) -> str:
    if len(labels) <= 4:
        return ", ".join(labels)
    return f"{', '.join(labels[:3])} and {len(labels) - 3} more with the same report"


def _profile_header(report: ProfileReport, labels: list[str]) -> str:
    target = report.target
    profile = target.profile
    if target.model is None:
        head = _names(labels)
    else:
        head = f"{_names(labels)} (profile {profile.name})" if len(labels) == 1 else _names(labels)
    if profile.is_default and target.model is not None:
        head += f" [no profile for provider {profile.provider!r}: the OpenAI-compatible default]"
    return f"  {head}: {_plural(len(report.problems), 'problem')} with litellm alone"


def _profile_lines(report: ProfileReport) -> list[str]:
    lines = [_problem_line(p) for p in report.problems]
    if report.changes is None or report.remaining is None:
        lines.append(f"    the profile was not applied: {report.unapplied}")
        return lines
    changed = f"    the profile (dump_messages(..., model=...)) {report.changes.describe()}"
    if not report.remaining:
        lines.append(f"{changed}; its output has no problem left")
    else:
        lines.append(f"{changed}; left in its output ({_plural(len(report.remaining), 'problem')}):")
        lines.extend(_violation_line(v) for v in report.remaining)
    return lines


def _clean_names(labels: list[str]) -> str:
    if len(labels) <= 6:
        return ", ".join(labels)
    return f"{len(labels)} profiles ({', '.join(labels[:3])}, ...)"


def _checked(report: Report) -> str:
    count = len(report.profiles)
    if not count:
        return "shape and tool-call protocol; no provider checked: give --model M or --all-providers"
    if count <= 3:
        return f"shape, tool-call protocol and {', '.join(r.target.label for r in report.profiles)}"
    return f"shape, tool-call protocol and {count} profiles"


def _summary(report: Report) -> str:
    problems = report.all_problems()
    where = report.entry.where
    if not problems:
        return f"{where}: {_plural(len(report.entry.messages), 'message')}, no problems ({_checked(report)})"
    parts: list[str] = []
    for kind in ("shape", "protocol"):
        count = sum(1 for p in report.problems if p.kind == kind)
        if count:
            parts.append(f"{count} {kind}")
    failing = [r for r in report.profiles if r.problems]
    if len(failing) <= 3:
        parts.extend(f"{len(r.problems)} for {r.target.label}" for r in failing)
    elif failing:
        total = sum(len(r.problems) for r in failing)
        parts.append(f"{total} provider problems in {len(failing)} of {len(report.profiles)} profiles")
    fixable = sum(1 for p in problems if p.fixable)
    fixed = "all fixable by --fix" if fixable == len(problems) else f"{fixable or 'none'} fixable by --fix"
    return f"{where}: {_plural(len(problems), 'problem')} ({', '.join(parts)}); {fixed}{_quirks_hint(report)}"


def _quirks_hint(report: Report) -> str:
    """Where to read the quirks a report cites: ``messages quirks N``, and each one's page."""
    from messages.quirks import quirk_url

    rows = {p.row for p in report.all_problems() if p.row is not None}
    rows.update(v.row for r in report.profiles for v in r.remaining or () if v.row is not None)
    if not rows:
        return ""
    cited = ", ".join(str(row) for row in sorted(rows))
    pages = " ".join(quirk_url(row) for row in sorted(rows))
    return (
        f"; `messages quirks N` prints quirk N ({'quirk' if len(rows) == 1 else 'quirks'} {cited} here: "
        f"{pages})"
    )


def render_text(report: Report) -> list[str]:
    """The report as lines for a terminal: one line per problem, grouped, and a summary line last."""
    entry = report.entry
    if not report.all_problems():
        return [_summary(report)]
    model = f", model {entry.model}" if entry.model else ""
    lines = [f"{entry.where}: {_plural(len(entry.messages), 'message')}{model}"]
    shape = [p for p in report.problems if p.kind == "shape"]
    protocol = [p for p in report.problems if p.kind == "protocol"]
    if shape:
        lines.append(f"  messages that cannot be read or sent: {_plural(len(shape), 'problem')}")
        lines.extend(_problem_line(p) for p in shape)
    if protocol:
        lines.append(f"  tool-call protocol (every provider): {_plural(len(protocol), 'problem')}")
        lines.extend(_problem_line(p) for p in protocol)
    if report.skipped:
        lines.append(f"  {report.skipped}")
    groups: dict[tuple[Any, ...], list[ProfileReport]] = {}
    clean: list[str] = []
    for r in report.profiles:
        if r.problems:
            groups.setdefault(_same_report(r), []).append(r)
        else:
            clean.append(r.target.label)
    for members in groups.values():
        lines.append(_profile_header(members[0], [m.target.label for m in members]))
        lines.extend(_profile_lines(members[0]))
    if clean and groups:
        lines.append(f"  no problems for {_clean_names(clean)}")
    lines.append(_summary(report))
    return lines


def _fix_lines(entry: Entry, target: Target | None, fixed: Fixed | None, report: Report) -> list[str]:
    if fixed is None:
        if any(p.rule == "lone-surrogate" for p in report.problems):
            why = (
                "it holds text that cannot be encoded as UTF-8 (a lone surrogate, see above), and no repair "
                "can tell which character was cut in half"
            )
        else:
            why = "it cannot be read, or nothing would remain to send (see above)"
        return [f"{entry.where}: --fix wrote nothing for this conversation: {why}"]
    lines = [f"{entry.where}: --fix {fixed.changes.describe()}"]
    if target is None:
        lines.append(
            f"{entry.where}: no model: the tool-call protocol is repaired, but the payload is not adjusted "
            "for a provider (give --model M)"
        )
    elif fixed.remaining:
        lines.append(
            f"{entry.where}: the output still has {_plural(len(fixed.remaining), 'problem')} "
            f"for {target.label} that no profile can fix (dump_messages(..., model=...) refuses to send it; "
            "each line says why, and what to do):"
        )
        lines.extend(_violation_line(v) for v in fixed.remaining)
    else:
        lines.append(f"{entry.where}: the output passes check for {target.label}")
    if target is not None and target.model and entry.model and target.model != entry.model:
        lines.append(f"{entry.where}: the log's model {entry.model!r} is set to {target.model!r}")
    return lines


# --- JSON --------------------------------------------------------------------------------------------


def _violation_json(v: Violation) -> dict[str, Any]:
    return {"index": v.index, "rule": v.rule, "row": v.row, "message": v.message, "fixable": v.fixable}


def _conversation_json(report: Report, fix: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "line": report.entry.line,
        "messages": len(report.entry.messages),
        "model": report.entry.model,
        "skipped": report.skipped,
        "profiles": [
            {
                "model": r.target.model,
                "provider": r.target.profile.name,
                "is_default": r.target.profile.is_default,
                "problems": len(r.problems),
                "changes": None if r.changes is None else r.changes.as_json(),
                "remaining": None if r.remaining is None else [_violation_json(v) for v in r.remaining],
            }
            for r in report.profiles
        ],
        "fix": fix,
    }


def render_json(label: str, reports: Sequence[Report], fixes: Sequence[dict[str, Any] | None]) -> str:
    """The whole report in the documented JSON shape (the module docstring)."""
    problems = [p.as_json(r.entry.line) for r in reports for p in r.all_problems()]
    ok = not problems and all(f is None or (f["written"] and not f["remaining"]) for f in fixes)
    document = {
        "version": JSON_VERSION,
        "file": label,
        "ok": ok,
        "problems": problems,
        "conversations": [_conversation_json(r, f) for r, f in zip(reports, fixes, strict=True)],
        "summary": {
            "problems": len(problems),
            "fixable": sum(1 for p in problems if p["fixable"]),
            "conversations": len(reports),
            "conversations_with_problems": sum(1 for r in reports if r.all_problems()),
        },
    }
    return json.dumps(document, ensure_ascii=False, indent=2)


# --- quirks ------------------------------------------------------------------------------------------


def _wrapped(text: str, indent: str, width: int = 100) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent) or [indent.rstrip()]


def _quirk_line(quirk: Quirk, rules: Sequence[str] = ()) -> str:
    line = f"{quirk.number:>3}  {quirk.title}  [{', '.join(quirk.providers)}]"
    return f"{line}  rules: {', '.join(rules)}" if rules else line


def _quirk_lines(quirk: Quirk, implemented: Sequence[tuple[str, str]]) -> list[str]:
    """One row in full, for a terminal."""
    from messages.quirks import quirk_url, source_url

    lines = [f"quirk {quirk.number}: {quirk.title}"]
    lines.append(f"  providers: {', '.join(quirk.providers)} ({quirk.evidence})")
    lines.extend(_wrapped(quirk.constraint, "  "))
    if quirk.errors:
        lines.append("  the provider's error text:")
        for error in quirk.errors:
            lines.extend(_wrapped(error, "    "))
    if quirk.litellm:
        lines.extend(_wrapped(f"litellm: {quirk.litellm}", "  "))
    if quirk.also:
        lines.extend(_wrapped(f"also: {quirk.also}", "  "))
    by_rule: dict[str, list[str]] = {}
    for profile, rule in implemented:
        by_rule.setdefault(rule, []).append(profile)
    if by_rule:
        lines.append("  handled by (rule: profiles):")
        for rule, profiles in by_rule.items():
            lines.extend(_wrapped(f"{rule}: {', '.join(profiles)}", "    "))
    if quirk.sources:
        lines.append("  sources:")
        lines.extend(f"    {source_url(source)}" for source in quirk.sources)
    lines.append(f"  on the web: {quirk_url(quirk.number)}")
    return lines


def _quirk_json(quirk: Quirk, implemented: Sequence[tuple[str, str]]) -> dict[str, Any]:
    from messages.quirks import quirk_url, source_url

    return {
        "number": quirk.number,
        "title": quirk.title,
        "providers": list(quirk.providers),
        "constraint": quirk.constraint,
        "errors": list(quirk.errors),
        "sources": [source_url(s) for s in quirk.sources],
        "litellm": quirk.litellm,
        "also": quirk.also or None,
        "evidence": quirk.evidence,
        "rules": [{"profile": profile, "rule": rule} for profile, rule in implemented],
        "url": quirk_url(quirk.number),
    }


def _run_quirks(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from messages.quirks import ROWS, canonical_name, get_quirk, implementations, quirks_for

    what = (args.what or "").strip()
    profile_name: str | None = None
    if not what:
        rows = list(ROWS)
    elif what.isdigit():
        try:
            rows = [get_quirk(int(what))]
        except KeyError as error:
            raise InputError(error.args[0]) from None
        args.full = True
    else:
        try:
            rows = quirks_for(what)
        except KeyError as error:
            raise InputError(error.args[0]) from None
        profile_name = canonical_name(what)
    found = implementations()
    if args.format == "json":
        document = {
            "version": JSON_VERSION,
            "quirks": [_quirk_json(q, found.get(q.number, [])) for q in rows],
        }
        print(json.dumps(document, ensure_ascii=False, indent=2))
        return 0
    lines: list[str] = []
    if profile_name is not None:
        lines.append(f"{_plural(len(rows), 'quirk')} about {profile_name}:")
    for quirk in rows:
        implemented = found.get(quirk.number, [])
        if args.full:
            lines.extend([*_quirk_lines(quirk, implemented), ""])
            continue
        own = [rule for profile, rule in implemented if _is_of(profile, profile_name)]
        lines.append(_quirk_line(quirk, list(dict.fromkeys(own))))
    if not args.full:
        from messages.quirks import DOCS_URL

        lines.append(
            "`messages quirks N` prints quirk N in full: the error text, the sources, the rules; "
            f"{DOCS_URL}quirks/ has them all."
        )
    print("\n".join(lines).rstrip("\n"))
    return 0


def _is_of(profile: str, wanted: str | None) -> bool:
    """Whether profile ``profile`` (``provider`` or ``provider:family``) is what ``wanted`` names."""
    if wanted is None:
        return False
    return profile == wanted if ":" in wanted else profile.partition(":")[0] == wanted


# --- running -----------------------------------------------------------------------------------------


def _read(path: str) -> tuple[str, bytes]:
    if path == "-":
        return "<stdin>", sys.stdin.buffer.read()
    try:
        with open(path, "rb") as file:
            return path, file.read()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise InputError(f"{path}: cannot read the file: {reason}") from None


class _Targets:
    """The profiles each conversation is checked against, resolved once per model."""

    def __init__(self, models: list[str], all_providers: bool) -> None:
        from messages.profiles import get_profile, registered_profiles

        self._get_profile = get_profile
        self.explicit = [Target(get_profile(m), m) for m in models]
        if all_providers:
            self.explicit += [Target(p) for p in registered_profiles()]
        self.given = bool(models) or all_providers
        self._cache: dict[str, Target] = {}

    def of_log(self, model: str) -> Target:
        if model not in self._cache:
            self._cache[model] = Target(self._get_profile(model), model)
        return self._cache[model]


def _targets_for(entry: Entry, targets: _Targets | None) -> list[Target]:
    if targets is not None and targets.given:
        return targets.explicit
    if entry.model is None:
        return []
    if targets is None:
        targets = _Targets([], False)
    return [targets.of_log(entry.model)]


def _run_check(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.fix and args.all_providers:
        parser.error("--fix adjusts the payload for one provider: give one --model, not --all-providers")
    if args.fix and len(args.models) > 1:
        parser.error(f"--fix adjusts the payload for one provider: give one --model, not {len(args.models)}")
    label, data = _read(args.file)
    entries = read_entries(label, data)
    # The profiles load only when a model is asked for: a plain protocol check never imports them (nor
    # litellm, which only a bare model name such as "gpt-4o" needs, to find its provider).
    targets: _Targets | None = None
    if args.models or args.all_providers:
        try:
            targets = _Targets(args.models, args.all_providers)
        except ValueError as error:
            parser.error(str(error))
    report_stream = sys.stderr if args.fix else sys.stdout
    reports: list[Report] = []
    fixes: list[dict[str, Any] | None] = []
    status = 0
    text: list[str] = []
    for entry in entries:
        checked = _targets_for(entry, targets)
        with _bug_guard(entry.where):
            report = check_entry(entry, checked)
            if args.format == "text":
                text.extend(render_text(report))
        reports.append(report)
        if not args.fix:
            fixes.append(None)
            status = status or (1 if report.all_problems() else 0)
            continue
        target = checked[0] if checked else None
        with _bug_guard(entry.where):
            fixed = fix_entry(entry, target)
            payload = None
            if fixed is not None:
                indent = 2 if entry.line is None else None
                payload = json.dumps(fixed.payload, ensure_ascii=False, indent=indent)
            if args.format == "text":
                text.extend(_fix_lines(entry, target, fixed, report))
        if payload is not None:
            print(payload, file=sys.stdout)
        if fixed is None or fixed.remaining:
            status = 1
        fixes.append(
            {
                "written": fixed is not None,
                "changes": None if fixed is None else fixed.changes.as_json(),
                "remaining": [] if fixed is None else [_violation_json(v) for v in fixed.remaining],
            }
        )
    if args.format == "json":
        with _bug_guard(label):
            document = render_json(label, reports, fixes)
        print(document, file=report_stream)
    else:
        if len(entries) > 1:
            bad = sum(1 for r in reports if r.all_problems())
            total = sum(len(r.all_problems()) for r in reports)
            text.append(
                f"{label}: {_plural(total, 'problem')} in {bad} of {_plural(len(entries), 'conversation')}"
            )
        print("\n".join(text), file=report_stream)
    return status


class _CheckFailedError(Exception):
    """An exception the check did not expect: a bug of this package, said in one line (``main``)."""

    def __init__(self, where: str, error: Exception) -> None:
        from messages import __version__

        reason = " ".join(str(error).split())
        reason = reason if len(reason) <= 160 else reason[:157] + "..."
        if isinstance(error, RecursionError):
            what = "a value nested too deeply for the check to follow"
        else:
            what = f"the check failed: {type(error).__name__}: {reason}"
        super().__init__(
            f"{where}: {what}; this is a bug in messages {__version__}, please report it with the input "
            f"(set {_TRACEBACK_VARIABLE}=1 to see the traceback)"
        )


_TRACEBACK_VARIABLE = "MESSAGES_TRACEBACK"


@contextmanager
def _bug_guard(where: str) -> Iterator[None]:
    """Turn an exception the check did not expect into ``_CheckFailedError`` naming ``where``.

    Input that cannot be read raises ``InputError`` before this point; what escapes the check of a
    readable conversation is a bug, and a user should get one line, not a traceback, unless they ask."""
    try:
        yield
    except Exception as error:
        if os.environ.get(_TRACEBACK_VARIABLE):
            raise
        raise _CheckFailedError(where, error) from error


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``messages`` command with ``argv`` (default: the process's arguments); return the status.

    Args:
        argv: the arguments after the command's name (``["check", "--model", M, FILE]``); ``None``
            reads ``sys.argv[1:]``.

    Returns:
        The exit status: 0 no problems, 1 problems found, 2 input that cannot be read or bad usage.

    Raises nothing: every problem is an exit status and a line on standard error (2 for unreadable input or
    bad usage; ``MESSAGES_TRACEBACK=1`` shows the traceback of a bug).

    Examples:
        ```python
        import json

        from messages.cli import main

        function = {"name": "get_weather", "arguments": "{}"}
        call = {"id": "call_1", "type": "function", "function": function}
        conversation = [
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "user", "content": "Hello?"},  # the call was never answered
        ]
        with open("conversation.json", "w") as file:
            json.dump(conversation, file)
        assert main(["check", "conversation.json"]) == 1  # and the report says where and why
        ```
    """
    # The check is offline: if a bare model name makes the profiles ask litellm for its provider, litellm
    # reads its bundled model map instead of downloading one (an explicit setting wins).
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    parser = _parser()
    args = parser.parse_args(argv)
    # A report quotes the input, which may hold a lone surrogate (a problem it reports): write it escaped
    # rather than fail on it. Payloads with one are never written (``fix_entry``).
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        status: int = args.run(args, args.command_parser)
        return status
    except (InputError, _CheckFailedError) as error:
        print(f"{_PROG} {args.command}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`messages check ... | head`): stop quietly, as other command-line tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130
