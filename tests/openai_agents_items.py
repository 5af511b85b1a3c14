"""OpenAI Agents SDK session items for the tests of ``messages.integrations.openai_agents``: builders of each
kind of item the SDK stores (in the shapes its Runner writes them, ``to_input_item()`` of the Responses
types), a Hypothesis strategy of whole histories shaped as the Runner writes them, and the definition of a
window that cuts no exchange, written out plainly (``cuts``) to check ``window_start`` against.

``histories()`` draws turns: one or two input items (a user message, as text or as input parts, now and
then a developer message), then one to three model steps, each a model response (reasoning items, with
encrypted content or a summary, an assistant message, parallel function calls, a computer call, a custom
tool call, an MCP approval request, a hosted web search or MCP call) followed by the outputs of its local
calls in any order; the last step answers in text, unless the turn ends waiting for an approval (its calls
unanswered). Between turns there may be an item that stands alone (an item reference, a compaction item,
an ``EncryptedSession`` envelope). Call ids are unique in a history, unless ``reused_ids`` (local servers'
``call_0`` in every turn). Each history comes with its batches: where the Runner's ``add_items`` calls
split it (the input, then each step with its outputs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

Item = dict[str, Any]


def user(text: str) -> Item:
    return {"role": "user", "content": text}


def user_parts(text: str) -> Item:
    return {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": text},
            {"type": "input_image", "image_url": "https://example.com/sky.png", "detail": "low"},
        ],
    }


def developer(text: str) -> Item:
    return {"role": "developer", "content": text}


def reasoning(n: int, *, encrypted: bool) -> Item:
    item: Item = {"type": "reasoning", "id": f"rs_{n}", "summary": []}
    if encrypted:
        item["encrypted_content"] = f"gAAAAB{n}opaque=="
    else:
        item["summary"] = [{"type": "summary_text", "text": f"thinking {n}"}]
    return item


def assistant(n: int, text: str) -> Item:
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
    }


def function_call(call_id: str, name: str = "get_weather", arguments: str = '{"city":"Paris"}') -> Item:
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "id": f"fc_{call_id}",
    }


def function_output(call_id: str, output: Any = "sunny") -> Item:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def computer_call(call_id: str) -> Item:
    return {
        "type": "computer_call",
        "id": f"cu_{call_id}",
        "call_id": call_id,
        "action": {"type": "click", "x": 10, "y": 20, "button": "left"},
        "pending_safety_checks": [],
        "status": "completed",
    }


def computer_output(call_id: str) -> Item:
    return {
        "type": "computer_call_output",
        "call_id": call_id,
        "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,iVBORw0KGgo="},
    }


def custom_call(call_id: str) -> Item:
    return {
        "type": "custom_tool_call",
        "call_id": call_id,
        "name": "grep",
        "input": "TODO *.py",
        "id": f"ct_{call_id}",
    }


def custom_output(call_id: str) -> Item:
    return {"type": "custom_tool_call_output", "call_id": call_id, "output": "a.py:1: TODO"}


def approval_request(request_id: str) -> Item:
    return {
        "type": "mcp_approval_request",
        "id": request_id,
        "server_label": "deepwiki",
        "name": "ask_question",
        "arguments": '{"question":"?"}',
    }


def approval_response(request_id: str, approve: bool = True) -> Item:
    return {"type": "mcp_approval_response", "approval_request_id": request_id, "approve": approve}


def web_search(n: int) -> Item:
    return {
        "type": "web_search_call",
        "id": f"ws_{n}",
        "status": "completed",
        "action": {
            "type": "search",
            "query": "weather Paris",
            "sources": [{"type": "url", "url": "https://x"}],
        },
    }


def mcp_call(n: int) -> Item:
    return {
        "type": "mcp_call",
        "id": f"mcp_{n}",
        "server_label": "deepwiki",
        "name": "read_wiki",
        "arguments": "{}",
        "output": "the wiki",
        "error": None,
    }


STANDING_ALONE: list[Item] = [
    {"type": "item_reference", "id": "msg_ref_1"},
    {"type": "compaction", "id": "cmp_1", "encrypted_content": "opaque summary"},
    {"__enc__": 1, "v": 1, "kid": "hkdf-v1", "payload": "gAAAAABfernet"},
]
"""Items with no call, no output and no model run to belong to."""

# -- the definition, written out -------------------------------------------------------------------------

_OUTPUTS = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "computer_call": "computer_call_output",
}


def _call_key(item: Mapping[str, Any]) -> tuple[str, str] | None:
    if item.get("type") in _OUTPUTS:
        return (_OUTPUTS[item["type"]], item["call_id"])
    if item.get("type") == "mcp_approval_request":
        return ("mcp_approval_response", item["id"])
    return None


def _answer_key(item: Mapping[str, Any]) -> tuple[str, str] | None:
    if item.get("type") in _OUTPUTS.values():
        return (item["type"], item["call_id"])
    if item.get("type") == "mcp_approval_response":
        return ("mcp_approval_response", item["approval_request_id"])
    return None


def is_model_item(item: Mapping[str, Any]) -> bool:
    if item.get("type") in (None, "message"):
        return item.get("role") == "assistant"
    return item.get("type") in {
        "reasoning",
        *_OUTPUTS,
        "mcp_approval_request",
        "web_search_call",
        "mcp_call",
    }


def cuts(history: Sequence[Mapping[str, Any]], start: int) -> bool:
    """Whether a window of ``history[start:]`` cuts an exchange: it starts right after a reasoning item or
    inside a run of model items, or it holds a result whose call (the nearest one before it with its id)
    is before ``start``. A result with no call before it at all holds nothing back."""
    if start <= 0 or start >= len(history):
        return False
    before, first = history[start - 1], history[start]
    if before.get("type") == "reasoning" or (is_model_item(before) and is_model_item(first)):
        return True
    for at in range(start, len(history)):
        key = _answer_key(history[at])
        if key is None:
            continue
        call = next((i for i in range(at - 1, -1, -1) if _call_key(history[i]) == key), None)
        if call is not None and call < start:
            return True
    return False


def expected_window(history: Sequence[Mapping[str, Any]], limit: int) -> list[Mapping[str, Any]]:
    """The newest ``limit`` items of ``history``, from the latest start before them that cuts nothing."""
    if limit <= 0:
        return []
    want = max(len(history) - limit, 0)
    start = max(s for s in range(want + 1) if not cuts(history, s))
    return list(history[start:])


def orphans(history: Sequence[Mapping[str, Any]]) -> list[int]:
    """The positions of results with no call before them."""
    found = []
    for at, item in enumerate(history):
        key = _answer_key(item)
        if key is not None and not any(_call_key(history[i]) == key for i in range(at)):
            found.append(at)
    return found


# -- histories as the Runner writes them -----------------------------------------------------------------

_TEXTS = st.sampled_from(["Weather in Paris?", "And Rome?", "ünïcödé ✓", "", "Thanks."])


@st.composite
def histories(
    draw: st.DrawFn, *, reused_ids: bool = False, max_turns: int = 4
) -> tuple[list[Item], list[int]]:
    """A history and the sizes of the batches the Runner would add it in (see the module docstring)."""
    items: list[Item] = []
    batches: list[int] = []
    counter = iter(range(10_000))

    def call_id() -> str:
        return "call_0" if reused_ids and draw(st.booleans()) else f"call_{next(counter)}"

    for turn in range(draw(st.integers(1, max_turns))):
        if turn and draw(st.integers(0, 5)) == 0:
            items.append(dict(draw(st.sampled_from(STANDING_ALONE))))
            batches.append(1)
        given = [draw(st.sampled_from([user, user_parts]))(draw(_TEXTS))]
        if draw(st.integers(0, 6)) == 0:
            given.insert(0, developer("Be brief."))
        items += given
        batches.append(len(given))
        steps = draw(st.integers(1, 3))
        for step in range(steps):
            n = next(counter)
            response: list[Item] = []
            for r in range(draw(st.integers(0, 2))):
                response.append(reasoning(n * 10 + r, encrypted=draw(st.booleans())))
            last = step == steps - 1
            if draw(st.booleans()) or last:
                response.append(assistant(n, draw(_TEXTS)))
            outputs: list[Item] = []
            if not last or draw(st.integers(0, 4)) == 0:
                for _ in range(draw(st.integers(1 if not last else 0, 3))):
                    kind = draw(
                        st.sampled_from(
                            ["function", "function", "computer", "custom", "approval", "web", "mcp"]
                        )
                    )
                    cid = call_id() if kind == "function" else f"{kind}_{next(counter)}"
                    if kind == "function":
                        response.append(function_call(cid))
                        outputs.append(function_output(cid, draw(st.sampled_from(["sunny", "", "rain"]))))
                    elif kind == "computer":
                        response.append(computer_call(cid))
                        outputs.append(computer_output(cid))
                    elif kind == "custom":
                        response.append(custom_call(cid))
                        outputs.append(custom_output(cid))
                    elif kind == "approval":
                        response.append(approval_request(cid))
                        outputs.append(approval_response(cid, draw(st.booleans())))
                    elif kind == "web":
                        response.append(web_search(next(counter)))
                    else:
                        response.append(mcp_call(next(counter)))
            if last and outputs and draw(st.booleans()):
                outputs = []  # the run ends waiting for approvals: its calls stay unanswered
            outputs = draw(st.permutations(outputs)) if outputs else outputs
            items += response + outputs
            batches.append(len(response) + len(outputs))
    return items, batches
