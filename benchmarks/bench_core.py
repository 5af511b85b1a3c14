"""Dump and load a 10,000-message conversation; `import messages`.

Baselines measured in the same run:

* the floor: the same list of dicts built by hand, reading the typed messages' attributes;
* LangChain (`langchain_core.messages`): `convert_to_openai_messages` for the dump and `convert_to_messages`
  for the load, on the same conversation (the common alternative).

Targets (issue 2): dump within 1.5x of the floor; dump and load each at least 3x faster than LangChain;
`import messages` under 150 ms.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from benchmarks._conversation import build_conversation
from benchmarks._timing import Table, verdict
from messages import AIMessage, Message, SystemMessage, ToolMessage, UserMessage, dump_messages, load_messages


def dump_by_hand(conversation: list[Message]) -> list[dict[str, Any]]:
    """The floor: the OpenAI dicts built directly from the messages' attributes, no serializer."""
    out: list[dict[str, Any]] = []
    append = out.append
    for m in conversation:
        if isinstance(m, AIMessage):
            d: dict[str, Any] = {"role": "assistant", "content": m.content}
            if m.tool_calls:
                d["tool_calls"] = [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for c in m.tool_calls
                ]
        elif isinstance(m, ToolMessage):
            d = {"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content}
        elif isinstance(m, UserMessage):
            if isinstance(m.content, str):
                d = {"role": "user", "content": m.content}
            else:
                parts: list[dict[str, Any]] = []
                for p in m.content:
                    if p.type == "text":
                        parts.append({"type": "text", "text": p.text})
                    elif p.type == "image_url":
                        image: dict[str, Any] = {"url": p.url}
                        if p.detail is not None:
                            image["detail"] = p.detail
                        parts.append({"type": "image_url", "image_url": image})
                d = {"role": "user", "content": parts}
        elif isinstance(m, SystemMessage):
            d = {"role": m.role, "content": m.content}
        append(d)
    return out


def to_langchain(dumped: list[dict[str, Any]]) -> list[Any]:
    from langchain_core.messages import convert_to_messages

    return convert_to_messages(dumped)


IMPORTS = {
    "import messages": "import messages",
    "import pydantic": "import pydantic",
    "pydantic + one model (the floor of any pydantic package)": (
        "from pydantic import BaseModel\nclass A(BaseModel):\n    x: int"
    ),
    "import langchain_core.messages": "import langchain_core.messages",
}


def import_times(runs: int) -> dict[str, float]:
    """The best wall time of each import statement in a fresh interpreter, in seconds, interleaved.

    Byte-code caching is on (as on a user's machine); a first, unmeasured round writes the caches.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    best = dict.fromkeys(IMPORTS, float("inf"))
    for attempt in range(runs + 1):
        for name, statement in IMPORTS.items():
            code = f"import time\nt = time.perf_counter()\n{statement}\nprint(time.perf_counter() - t)"
            out = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
            )
            if attempt:
                best[name] = min(best[name], float(out.stdout))
    return best


def main(quick: bool = False) -> None:
    size = 2_000 if quick else 10_000
    repeat = 3 if quick else 9
    conversation = build_conversation(size)
    dumped = dump_messages(conversation)
    assert dumped == dump_by_hand(conversation), "the floor must build exactly the same dicts"
    text = json.dumps(dumped)

    from langchain_core.messages import convert_to_openai_messages

    lc_messages = to_langchain(dumped)

    # Every candidate is timed beside its baseline and the median of the ratios is reported (steadier on a
    # noisy machine than a ratio of best times).
    floor, ours, checked = (
        "by hand (floor)",
        "dump_messages(validate=False)",
        "dump_messages() (protocol check on)",
    )
    lc_dump = "langchain convert_to_openai_messages"
    dump = Table(f"dump a {size:,}-message conversation to OpenAI dicts")
    r = dump.measure_paired(
        floor,
        {
            floor: lambda: dump_by_hand(conversation),
            ours: lambda: dump_messages(conversation, validate=False),
            checked: lambda: dump_messages(conversation),
            "[m.model_dump() for m in c]": lambda: [m.model_dump() for m in conversation],
            lc_dump: lambda: convert_to_openai_messages(lc_messages),
        },
        repeat=repeat,
    )
    dump.show(
        floor,
        notes=[
            verdict("dump_messages vs floor", r[ours], 1.5),
            f"dump_messages with the protocol check vs floor: {r[checked]:.2f}x (no target: for reference)",
            verdict("langchain dump / dump_messages", r[lc_dump] / r[ours], 3.0, below=False),
        ],
    )

    ours_load, lc_load = "load_messages(dicts)", "langchain convert_to_messages(dicts)"
    load = Table(f"load a {size:,}-message conversation from OpenAI dicts")
    r = load.measure_paired(
        ours_load,
        {
            ours_load: lambda: load_messages(dumped),
            "load_messages(json text)": lambda: load_messages(text),
            "json.loads(json text) alone": lambda: json.loads(text),
            lc_load: lambda: to_langchain(dumped),
        },
        repeat=repeat,
    )
    load.show(ours_load, notes=[verdict("langchain load / load_messages", r[lc_load], 3.0, below=False)])

    runs = 5 if quick else 20
    imports = Table(f"import cost (fresh interpreter, byte-code cached, best of {runs}, interleaved)")
    for name, seconds in import_times(runs).items():
        imports.add(name, seconds)
    ours_import = dict(imports.rows)["import messages"]
    imports.show(
        "import messages",
        notes=[
            f"import messages: {ours_import * 1e3:.0f} ms (target < 150 ms) "
            f"{'OK' if ours_import < 0.150 else 'MISSED'}"
        ],
    )
