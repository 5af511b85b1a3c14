"""One conformance run: dump a conversation (plain, or through the provider's profile), send it with the
real ``litellm.completion`` to the stand-in, and judge the native body that arrived: the family's rule
checker, the provider SDK's request type, no lost content, no foreign reasoning payload."""

from __future__ import annotations

import copy
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from pydantic import ValidationError

from messages import (
    AIMessage,
    ImagePart,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UnfixableError,
    UserMessage,
    dump_messages,
)
from messages.testing import StandInServer, scripted
from tests import oracles
from tests.conformance import (
    rules_anthropic,
    rules_bedrock,
    rules_cohere,
    rules_gemini,
    rules_ollama,
    rules_openai,
)
from tests.conformance.cases import png_part
from tests.conformance.content import foreign_payloads, lost_content
from tests.conformance.providers import Provider
from tests.conformance.rules import Violation

__all__ = [
    "HANDOFF_SOURCES",
    "HAVE_PROFILES",
    "Outcome",
    "evaluate",
    "mistral_common_verdict",
    "offline_images",
    "produced_on",
    "run",
    "sendable",
    "tools_for",
]

HAVE_PROFILES = importlib.util.find_spec("messages.profiles") is not None
"""Whether the provider profiles (issue 4, branch issue-4-profiles) are part of this tree."""


@dataclass
class Outcome:
    """What happened to one conversation on one provider."""

    provider: Provider
    body: dict[str, Any] | None
    violations: list[Violation] = field(default_factory=list)
    refused: UnfixableError | None = None
    """What the profile refused to send (nothing was sent then)."""

    @property
    def rules(self) -> list[str]:
        """The ids of the broken rules, each once, in a stable order."""
        return sorted({v.rule for v in self.violations}, key=_rule_order)

    def report(self) -> str:
        if self.refused is not None:
            return f"refused before sending: {self.refused}"
        return "\n".join(str(v) for v in self.violations) or "no violation"


def _rule_order(rule: str) -> tuple[int, str]:
    return (int(rule[1:]), "") if rule[:1] == "r" and rule[1:].isdigit() else (1000, rule)


def tools_for(conversation: list[Message]) -> list[dict[str, Any]] | None:
    """Fresh tool definitions for every tool the conversation calls (litellm's Gemini route edits the
    caller's tool dicts in place, docs/litellm.md, 'Gemini and Vertex AI edit the caller's tools', so every
    call gets new ones)."""
    names = sorted({c.name for m in conversation if isinstance(m, AIMessage) for c in m.tool_calls})
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": f"The {name} tool.",
                "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
            },
        }
        for name in names
    ] or None


def offline_images(conversation: list[Message]) -> list[Message]:
    """``conversation`` with every http(s) image replaced by an inline PNG: litellm fetches image URLs
    itself for Anthropic, Gemini, Vertex and Bedrock, and this machine has no network; the profiles never
    fetch, so what is under test is unchanged."""

    def fix(part: Any) -> Any:
        if isinstance(part, ImagePart) and not part.url.startswith("data:"):
            return png_part()
        return part

    return _map_parts(conversation, fix)


def _map_parts(
    conversation: list[Message],
    fix: Callable[[Any], Any],
    kinds: tuple[type[Message], ...] = (UserMessage, ToolMessage),
) -> list[Message]:
    """``conversation`` with ``fix`` applied to each content part of the messages of ``kinds``."""
    fixed: list[Message] = []
    for message in conversation:
        if isinstance(message, kinds) and isinstance(message.content, list):
            message = message.model_copy(update={"content": [fix(p) for p in message.content]})
        fixed.append(message)
    return fixed


def sendable(conversation: list[Message], provider: Provider) -> list[Message]:
    """A generated conversation as the conformance tests send it: audio, file and video parts (and any
    media in an assistant turn) become a short text (they are capabilities of some models, not a shape of
    the message list: no profile can make a text model hear audio or read a PDF), and off the OpenAI shape
    images are inline (``offline_images``). For ``ollama/`` (the generate route) images are PNG: litellm
    re-encodes other formats there with Pillow, an optional dependency of litellm that this project does
    not install."""
    from messages import AIMessage, AudioPart, FilePart, TextPart, VideoPart

    def fix(part: Any) -> Any:
        if isinstance(part, AudioPart):
            return TextPart(text="[an audio clip]")
        if isinstance(part, FilePart):
            return TextPart(text=f"[a file: {part.file.filename or part.file.file_id}]")
        if isinstance(part, VideoPart):  # reported by every profile but Gemini's (quirk 72)
            return TextPart(text=f"[a video: {part.url}]")
        return part

    def fix_reply(part: Any) -> Any:  # media in an assistant turn: reported (quirk 77)
        return part if isinstance(part, TextPart) else TextPart(text=f"[a {part.type} part]")

    fixed = _map_parts(_map_parts(conversation, fix, (UserMessage,)), fix_reply, (AIMessage,))
    if provider.family == "openai":
        return fixed
    inline = offline_images(fixed)
    return _png_only(inline) if provider.family == "ollama_generate" else inline


def _png_only(conversation: list[Message]) -> list[Message]:
    # Every image: litellm re-encodes any it cannot read as PNG or JPEG, and generated bytes are noise.
    def fix(part: Any) -> Any:
        return png_part() if isinstance(part, ImagePart) else part

    return _map_parts(conversation, fix)


def _checker(provider: Provider) -> Callable[[dict[str, Any]], list[Violation]]:
    family = provider.family
    if family == "openai":
        return lambda body: rules_openai.check(body, provider.rules)
    module = {
        "anthropic": rules_anthropic,
        "gemini": rules_gemini,
        "bedrock": rules_bedrock,
        "ollama_chat": rules_ollama,
        "ollama_generate": rules_ollama,
        "cohere": rules_cohere,
    }[family]
    return lambda body: module.check(body, provider.model)


def without_vllm_videos(body: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``body`` less the ``video_url`` parts of its user messages, each checked for vLLM's shape first.
    litellm's hosted_vllm route turns a user's file part that names a video (``gs://.../clip.mp4``) into
    ``{"type": "video_url", "video_url": {"url": ...}}``, vLLM's own extension of OpenAI's parts (vLLM's
    "Multimodal Inputs" docs), which the OpenAI SDK's types do not know."""
    out = []
    for m in body:
        content = m.get("content")
        if m["role"] == "user" and isinstance(content, list):
            videos = [p for p in content if p.get("type") == "video_url"]
            for video in videos:
                assert set(video) == {"type", "video_url"}, video
                assert isinstance(video["video_url"].get("url"), str), video
            if videos:
                m = {**m, "content": [p for p in content if p.get("type") != "video_url"] or ""}
        out.append(m)
    return out


def _without_mistral_files(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` less the file parts litellm writes in Mistral's own shape (``{"type": "file", "file_id":
    ...}``, Mistral's FileChunk, where OpenAI nests the id in ``file``), each checked for that shape first;
    the OpenAI SDK's types do not know it (as tests/test_profile_litellm.py's oracle says too)."""
    content = message.get("content")
    if not isinstance(content, list):
        return message
    files = [p for p in content if isinstance(p, dict) and p.get("type") == "file" and "file_id" in p]
    for part in files:
        assert set(part) == {"type", "file_id"}, part
        assert isinstance(part["file_id"], str), part
    if not files:
        return message
    return {**message, "content": [p for p in content if p not in files] or ""}


def _oracle(provider: Provider, body: dict[str, Any]) -> None:
    """The provider SDK's own request type on ``body``; raises when it refuses it."""
    if provider.family == "openai":
        extensions = rules_openai.EXTENSION_KEYS.get(provider.rules, set())
        messages = [{k: v for k, v in m.items() if k not in extensions} for m in body.get("messages") or []]
        if provider.model.startswith("mistral/"):
            messages = [_without_mistral_files(m) for m in messages]
        if provider.model.startswith("hosted_vllm/"):
            messages = without_vllm_videos(messages)
        oracles.openai_accepts(messages)
    elif provider.family == "anthropic":
        oracles.anthropic_accepts(body)
    elif provider.family == "gemini":
        oracles.gemini_accepts(body, "vertex_ai" if provider.model.startswith("vertex_ai/") else "gemini")
    elif provider.family == "bedrock":
        oracles.bedrock_converse_accepts(body, provider.model.split("/")[-1])
    elif provider.family == "cohere":
        oracles.cohere_accepts(body)


_ROLE_TYPES = {
    "system": "System",
    "developer": "Developer",
    "user": "User",
    "assistant": "Assistant",
    "tool": "Tool",
    "function": "Function",
}


def _summary(exc: Exception, body: dict[str, Any]) -> str:
    """The gist of an oracle's refusal: the extra keys it found, else its first error.

    The OpenAI types are a union per message, and pydantic reports every member's complaint; only the
    member of the message's own role counts (``ChatCompletionToolMessageParam`` for a tool message).
    """
    if isinstance(exc, ValidationError):
        errors = exc.errors()
        messages = body.get("messages") or []

        def own_member(loc: tuple[Any, ...]) -> bool:
            if len(loc) < 2 or not isinstance(loc[0], int) or loc[0] >= len(messages):
                return True
            role = _ROLE_TYPES.get(str(messages[loc[0]].get("role")), "")
            return f"Completion{role}Message" in str(loc[1])

        extra = sorted(
            {str(e["loc"][-1]) for e in errors if e["type"] == "extra_forbidden" and own_member(e["loc"])}
        )
        if extra:
            return f"extra keys forbidden: {', '.join(extra)}"
        first = errors[0]
        return f"{'.'.join(str(x) for x in first['loc'])}: {first['msg']}"
    return str(exc).strip().splitlines()[-1][:200]


def mistral_common_verdict(body: dict[str, Any]) -> list[Violation]:
    """What mistral-common, Mistral's own request validator and tokenizer, says of a body sent to Mistral:
    nothing, or one ``mc`` violation with its error (``tests.oracles.mistral_common_accepts``: the body is
    adapted only where mistral-common does not model what Mistral takes, each adaptation named there)."""
    try:
        oracles.mistral_common_accepts(body)
    except Exception as exc:  # mistral-common's own exception classes, whatever they are
        return [Violation("mc", "mistral-common", f"{type(exc).__name__}: {str(exc)[:200]}")]
    return []


def evaluate(provider: Provider, conversation: list[Message], body: dict[str, Any]) -> list[Violation]:
    """Every rule the native ``body`` breaks, for ``conversation`` sent to ``provider``."""
    found = _checker(provider)(body)
    try:
        _oracle(provider, body)
    except Exception as exc:  # the SDK's validation error, whatever its class
        found.append(Violation("sdk", provider.family, _summary(exc, body)))
    if provider.rules == "mistral":
        found += mistral_common_verdict(body)
    found += lost_content(conversation, body, provider.family, tool_results=provider.has_tools)
    found += foreign_payloads(conversation, body, provider.family)
    return found


def run(
    litellm: ModuleType,
    server: StandInServer,
    provider: Provider,
    conversation: list[Message],
    *,
    profiles: bool,
) -> Outcome:
    """Send ``conversation`` to ``provider`` through the real ``litellm.completion`` and judge the body.

    ``profiles=False`` sends the plain dump ("litellm alone"); ``profiles=True`` sends
    ``dump_messages(conversation, model=provider.model)`` ("with profiles"), or nothing when the profile
    refuses it (``Outcome.refused``: what it cannot fix).
    """
    try:
        messages = (
            dump_messages(conversation, model=provider.model) if profiles else dump_messages(conversation)
        )
    except UnfixableError as refused:
        return Outcome(provider, None, refused=refused)
    except Exception as exc:
        return Outcome(provider, None, [Violation("raised", "dump_messages", f"{type(exc).__name__}: {exc}")])
    seen = len(server.requests)
    error: Violation | None = None
    try:
        litellm.completion(
            model=provider.model,
            # litellm edits some callers' dicts in place (docs/litellm.md, 'litellm mutates the dicts it is
            # given'): send a copy.
            messages=copy.deepcopy(messages),
            tools=tools_for(conversation) if provider.has_tools else None,
            **provider.kwargs(server),
        )
    except Exception as exc:
        error = Violation("raised", "litellm.completion", f"{type(exc).__name__}: {str(exc)[:300]}")
    sent = [r.body for r in server.requests[seen:] if r.route not in ("oauth", "")]
    body = sent[-1] if sent and isinstance(sent[-1], dict) else None
    found = evaluate(provider, conversation, body) if body is not None else []
    return Outcome(provider, body, [*found, *([error] if error else [])])


HANDOFF_SOURCES = [
    "openai",
    "anthropic",
    "gemini",
    "vertex_ai",
    "bedrock",
    "ollama_chat",
    "cohere",
    "deepseek-reasoner",
]
"""The providers a conversation is produced on before it continues elsewhere: each mints its own ids and
reasoning payloads (Anthropic and Bedrock signed thinking, Gemini thought signatures in litellm's ids,
Ollama's UUIDs, DeepSeek's reasoning_content)."""

# The ids each API mints (Gemini and Ollama send none: litellm mints them).
_ID_SHAPES = {
    "anthropic": ("toolu_01Oslo4bVx7Qm2Lp9Zt3Kw8Y", "toolu_01Rome9sHd2Jk5Nq7Wx1Cv4B"),
    "bedrock": ("tooluse_Oslo7Hq2Zk4Mn8Rt1Yw6Pa", "tooluse_Rome3Lc9Vb5Xd2Fg8Js4Qe"),
    "deepseek-reasoner": ("call_00_Oslo3kLm9Qw2Er5Ty8Ui", "call_01_Rome7zXc4Vb1Nm6As3Df"),
    "cohere": ("get_weather_o5k2m9q3w7e1", "get_weather_r8z4x1c6v3b9"),
}
_OPENAI_IDS = ("call_Oslo8fG3hJ2kL5mN9pQ4rS7t", "call_Rome2wE6rT9yU3iO7pA1sD5f")


def _first_reply(provider: Provider) -> AIMessage:
    oslo, rome = _ID_SHAPES.get(provider.key, _OPENAI_IDS)
    return AIMessage(
        content="Checking both cities.",
        reasoning_content="Two cities: two calls to get_weather.",
        tool_calls=[
            ToolCall(id=oslo, name="get_weather", arguments={"city": "Oslo"}),
            ToolCall(id=rome, name="get_weather", arguments={"city": "Rome"}),
        ],
    )


_SECOND_REPLY = AIMessage(content="Snow in Oslo, sun in Rome.", reasoning_content="Both results are in.")


def produced_on(litellm: ModuleType, provider: Provider) -> list[Message]:
    """A tool loop run on ``provider`` through the real litellm: a user question, the stand-in's reply with
    two calls and reasoning (read back with ``AIMessage.from_litellm``, so with the ids and payloads
    litellm gives back for that provider), the two results, the final answer, and a follow-up question."""
    conversation: list[Message] = [
        SystemMessage(content="You are the weather desk."),
        UserMessage(content="What is the weather in Oslo and in Rome?"),
    ]
    results = {"Oslo": "snow, -3 C", "Rome": "sun, 24 C"}
    first = _first_reply(provider)
    with StandInServer(scripted(first, _SECOND_REPLY)) as server:
        for _ in range(2):
            response = litellm.completion(
                model=provider.model,
                messages=_dump_for(conversation, provider),
                tools=tools_for([*conversation, first]),
                **provider.kwargs(server),
            )
            reply = AIMessage.from_litellm(response)
            conversation.append(reply)
            for call in reply.tool_calls:
                city = call.parse_arguments().get("city", "")
                conversation.append(ToolMessage.for_call(call, results.get(city, "unknown city")))
    conversation.append(UserMessage(content="And tomorrow?"))
    return conversation


def _dump_for(conversation: list[Message], provider: Provider) -> list[dict[str, Any]]:
    # The bot that produced the conversation used the layer when it exists, as a bot would.
    return dump_messages(conversation, model=provider.model) if HAVE_PROFILES else dump_messages(conversation)
