"""The quirk catalog: what in a message list each provider (or litellm's route to it) rejects or changes.

Every provider rule of this package cites a row here ("quirk 30"): its ``Rule.row``, the
``Violation.row`` that ``Profile.check`` reports, the ``[rule, quirk N]`` tags of ``messages check``.
``messages quirks`` lists the rows, ``messages quirks 30`` prints one in full and ``messages quirks
mistral`` prints those of one provider (a litellm provider name, or a profile name such as
``bedrock:claude``).

A row (``Quirk``) says, in this package's words, what breaks and where; the provider's error text where
one was found (verbatim, so that a user can search for what they saw); the sources it was read from (issue
and pull-request threads, as ``owner/repo#N``, or URLs); what litellm does about it; and, found in the
registered profiles when asked (``implementations``), the profiles and rules that handle it.

Rows are numbered for good: a number is never given to another quirk, since docstrings, tests and
users' notes cite it. Rows 1 to 61 come from the research notes the profiles were built from; 62 and
later were added for rules that had no row. Adding a row: a ``Quirk`` in ``ROWS``, in number order, with
a number never used (``tests/test_quirks.py`` checks the order, and that every number the package cites
is here).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, Literal

__all__ = [
    "QUIRKS",
    "ROWS",
    "Quirk",
    "canonical_name",
    "get_quirk",
    "implementations",
    "quirks_for",
    "source_url",
]

Evidence = Literal["verified", "reported", "conflicting", "unknown", "superseded"]
"""How sure the row is: ``verified`` (an error text or a maintainer's word read in a source), ``reported``
(users report it, unconfirmed), ``conflicting`` (sources disagree), ``unknown`` (no evidence of the
failure found; the rule is a precaution), ``superseded`` (the provider no longer behaves so)."""


@dataclass(frozen=True, slots=True)
class Quirk:
    """One row of the catalog."""

    number: int
    """The row number the package cites (``quirk 30``)."""
    providers: tuple[str, ...]
    """The litellm provider names it concerns (``"mistral"``, ``"bedrock"``...), ``"*"`` for every one."""
    title: str
    """One line: what breaks."""
    constraint: str
    """What the provider wants, what happens otherwise, and when it matters."""
    errors: tuple[str, ...] = ()
    """The provider's error texts, verbatim (``...`` where a source cut them or an id varies)."""
    sources: tuple[str, ...] = ()
    """Where it was read: ``owner/repo#N`` (an issue or a pull request: ``source_url`` makes a link), or
    a URL."""
    litellm: str = ""
    """What litellm does about it, in the versions read (1.106 and earlier, and 1.110)."""
    also: str = ""
    """Where the package handles it outside the provider profiles (the protocol check, a model field)."""
    evidence: Evidence = "verified"
    """How sure the row is (``Evidence``)."""


_REF: Final = re.compile(r"([\w.-]+/[\w.-]+)#(\d+)")


def source_url(source: str) -> str:
    """A source as a URL: ``owner/repo#N`` becomes its GitHub thread (issue or pull request alike: GitHub
    redirects one to the other); a URL is returned as it is."""
    found = _REF.fullmatch(source)
    return f"https://github.com/{found[1]}/issues/{found[2]}" if found else source


def get_quirk(number: int) -> Quirk:
    """Row ``number``; a ``KeyError`` that names the rows there are if there is none."""
    try:
        return QUIRKS[number]
    except KeyError:
        raise KeyError(
            f"there is no quirk {number}; the catalog has rows 1 to {max(QUIRKS)} "
            "(`messages quirks` lists them)"
        ) from None


def implementations(number: int | None = None) -> dict[int, list[tuple[str, str]]]:
    """The (profile name, rule id) pairs of the registered profiles that cite each row (or row
    ``number`` only), each pair once, in profile order. Reads the profiles (``messages.profiles``)."""
    from messages.profiles import registered_profiles

    found: dict[int, dict[tuple[str, str], None]] = {}
    for profile in registered_profiles():
        for rule_id, row in _cited(profile):
            if number is None or row == number:
                found.setdefault(row, {})[(profile.name, rule_id)] = None
    return {row: list(pairs) for row, pairs in sorted(found.items())}


def _cited(profile: object) -> Iterable[tuple[str, int]]:
    """The (rule id, row) pairs a profile's rules cite: each rule's own row, and the rows it cites for
    findings it reports under another id (``duplicate_row`` and the like)."""
    from messages.profiles import Profile

    assert isinstance(profile, Profile)
    for rule in profile._plan.rules:
        if rule.row is not None:
            yield rule.id, rule.row
        for row in sorted(rule.cited_rows()):
            yield rule.id, row
        for name in dir(type(rule)):
            if name.endswith("_row") and name != "row":
                value = getattr(rule, name)
                if isinstance(value, int):
                    yield (rule.reports[0] if rule.reports else rule.id), value


def canonical_name(name: str) -> str:
    """A provider or profile name as the registry spells it: lowercase, an alias replaced by its provider
    (``"bedrock_converse:Claude"`` -> ``"bedrock:claude"``)."""
    from messages.profiles._registry import _canonical

    provider, colon, family = name.strip().lower().partition(":")
    return f"{_canonical(provider) or provider}{colon}{family}"


def quirks_for(name: str) -> list[Quirk]:
    """The rows about one provider or profile, in order: ``name`` is a litellm provider name
    (``"anthropic"``, an alias such as ``"bedrock_converse"``) or a profile name (``"bedrock:claude"``). A
    row is about it when it names the provider, or when a rule of its profiles (for a provider: its own and
    its families') cites it. A ``KeyError`` names the known providers if ``name`` is none of them."""
    from messages.profiles import registered_profiles

    wanted = canonical_name(name)
    provider, _, family = wanted.partition(":")
    profiles = [
        p for p in registered_profiles() if p.provider == provider and (not family or p.name == wanted)
    ]
    named = {q.number for q in ROWS if provider in q.providers}
    if not profiles and not named:
        known = sorted(
            {p.provider for p in registered_profiles()} | {n for q in ROWS for n in q.providers} - {"*"}
        )
        raise KeyError(f"no profile or quirk is about {name!r}; known providers: {', '.join(known)}")
    numbers = named | {q.number for q in ROWS if "*" in q.providers}
    for p in profiles:
        numbers.update(row for _, row in _cited(p))
    return [QUIRKS[n] for n in sorted(numbers) if n in QUIRKS]


# --- the rows -----------------------------------------------------------------------------------------

_OPENAI_LIKE = ("openai", "azure", "deepseek", "openrouter", "groq", "xai", "together_ai", "fireworks_ai")
_CLAUDE = ("anthropic", "bedrock", "vertex_ai", "openrouter")
_PROTOCOL = (
    "messages.protocol: validate_conversation (and dump_messages) refuse it; repair_conversation fixes it"
)

ROWS: tuple[Quirk, ...] = (
    Quirk(
        number=1,
        providers=("*",),
        title="Every tool call needs its result before the next non-tool message",
        constraint=(
            "Each id in an assistant turn's tool_calls must be answered by a tool message before any user, "
            "assistant or system message comes. Histories break this when a tool run is aborted, when a "
            "window cuts between a call and its result, or when a user message is slipped in before the "
            "results."
        ),
        errors=(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            "'tool_call_id'. The following tool_call_ids did not have response messages: call_...",
            "(insufficient tool messages following tool_calls message)",
        ),
        sources=(
            "BerriAI/litellm#10083",
            "BerriAI/litellm#28995",
            "aliasrobotics/cai#111",
            "langgenius/dify#32222",
            "QwenLM/qwen-code#606",
            "microsoft/autogen#3178",
        ),
        litellm="Passes the list through; no repair on the OpenAI route.",
        also=_PROTOCOL + " (a result saying the call was not completed)",
    ),
    Quirk(
        number=2,
        providers=("*",),
        title="A tool result must answer a call made just before it",
        constraint=(
            "A tool message is accepted only after an assistant turn with tool_calls (or after other results "
            "of that turn). A result whose call was trimmed away, or one filed after a user turn, is an "
            "orphan and the request is refused."
        ),
        errors=(
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
            "'tool_calls'.",
            "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
        ),
        sources=(
            "miurla/morphic#136",
            "FoundationAgents/OpenManus#23",
            "qwersyk/Newelle#425",
            "microsoft/autogen#3178",
        ),
        litellm="Passes the list through.",
        also=_PROTOCOL + " (a late result is moved back to its call, an orphan is dropped)",
    ),
    Quirk(
        number=3,
        providers=("openai", "azure", "openrouter"),
        title="OpenAI tool-call ids are at most 40 characters",
        constraint=(
            "OpenAI checks the length of every tool_calls[].id in the history. Ids minted elsewhere are "
            "often longer: Gemini ids carrying thought signatures, gateway ids built from a UUID, web-search "
            "ids. Such a history continued on OpenAI is refused."
        ),
        errors=(
            "Invalid 'messages[3].tool_calls[0].id': string too long. Expected a string with maximum length "
            "40, but got a string with length 41 instead.",
        ),
        sources=(
            "microsoft/autogen#6377",
            "Portkey-AI/gateway#1062",
            "vercel/ai#8132",
            "langgenius/dify#28987",
        ),
        litellm="No id shortening found for OpenAI.",
    ),
    Quirk(
        number=4,
        providers=("openai", "azure"),
        title="OpenAI's pattern for message names",
        constraint=(
            "The optional name of a message must match OpenAI's pattern, which has changed over time: first "
            "letters, digits, '_' and '-' (at most 64), now anything without whitespace and without any of "
            "< | \\ / >. A display name with a space is enough to be refused."
        ),
        errors=(
            "Invalid 'messages[2].name': string does not match pattern. Expected a string that matches the "
            "pattern '^[^\\s<|\\\\/>]+$'.",
            "Invalid 'messages[1].name': string does not match pattern. Expected a string that matches the "
            "pattern '^[a-zA-Z0-9_-]+$'.",
        ),
        sources=(
            "microsoft/autogen#941",
            "microsoft/autogen#4157",
            "microsoft/semantic-kernel#9340",
            "langchain-ai/langchain#35054",
        ),
        litellm=(
            "Its Anthropic and Bedrock converters ignore name; its Mistral route drops it on non-tool "
            "messages; its Perplexity route pops it. OpenAI gets it as it is."
        ),
    ),
    Quirk(
        number=5,
        providers=("openai", "azure"),
        title="content null only beside tool calls",
        constraint=(
            "OpenAI accepts an assistant turn with content null only when the turn carries tool_calls. A "
            "turn with neither text nor calls, or a refusal with no text, must carry a string. Other "
            "providers want the opposite for tool-call turns (see quirks 13, 29, 40, 50, 53)."
        ),
        errors=("Invalid value for 'content': expected a string, got null.",),
        sources=(
            "openai/openai-cookbook#503",
            "microsoft/autogen#5699",
            "docker/docker-agent#63",
            "vercel/ai#13744",
        ),
        litellm="Passes content through on the OpenAI route.",
    ),
    Quirk(
        number=6,
        providers=("openai", "azure"),
        title="Tool-call arguments are a JSON string",
        constraint=(
            "function.arguments must be the JSON text of the arguments, not a decoded object. Ollama's "
            "native API wants the opposite (quirk 49)."
        ),
        errors=(
            "Invalid type for 'messages[2].tool_calls[0].function.arguments': expected a string, but got an "
            "object instead.",
        ),
        sources=("Portkey-AI/gateway#768", "FoundationAgents/OpenManus#1115"),
        litellm='Its Azure helper sends "" for missing arguments; objects are passed through.',
        also="messages.models.ToolCall keeps arguments as the exact JSON string; `messages check` reports "
        "an object (rule arguments-not-string)",
    ),
    Quirk(
        number=7,
        providers=(
            "openai",
            "azure",
            "openai_compatible",
            "mistral",
            "deepseek",
            "ollama_chat",
            "gemini",
            "vertex_ai",
        ),
        title="Images belong in user messages",
        constraint=(
            "OpenAI-shaped APIs accept image parts in user messages only. An image returned by a tool (a "
            "screenshot) put in the tool message is refused by OpenAI, and ignored or refused by servers "
            "that take text-only tool results; Gemini 2.x refuses a media part beside the function responses "
            "of a turn (quirk 24). It reaches the model when moved to a user message right after the results."
        ),
        errors=(
            "Invalid 'messages[2]'. Image URLs are only allowed for messages with role 'user', but this "
            "message with role 'assistant' contains an image URL.",
            "Only text tool_result blocks are supported when tool_result.content is an array.",
        ),
        sources=(
            "openai/openai-node#1030",
            "All-Hands-AI/OpenHands#7700",
            "All-Hands-AI/OpenHands#10200",
            "openai/openai-openapi#523",
            "vllm-project/vllm#43203",
            "google-gemini/gemini-cli#16137",
            "BerriAI/litellm#29325",
        ),
        litellm=(
            "Its Anthropic and Bedrock converters turn images in tool results into image blocks of the "
            "result; its OpenAI route moves them into a user message; its Gemini converter (1.110.2) puts "
            "them beside the functionResponse parts of the turn, which Gemini 2.x counts against the calls "
            "(1.106.2 nested them in functionResponse.parts)."
        ),
    ),
    Quirk(
        number=8,
        providers=("openai", "azure", "openrouter"),
        title="o1-mini and o1-preview take no system role",
        constraint=(
            "The first o1 models refuse system messages, and developer messages with them; the instructions "
            "have to travel as a user message."
        ),
        errors=("Unsupported value: 'messages[0].role' does not support 'system' with this model.",),
        sources=(
            "BerriAI/litellm#5671",
            "open-webui/open-webui#5683",
            "microsoft/agent-framework#1077",
            "pydantic/pydantic-ai#974",
        ),
        litellm="Handled for o1 since PR 5666 (system merged into the next message when not supported).",
    ),
    Quirk(
        number=9,
        providers=("azure", "openai_compatible", "together_ai", "fireworks_ai"),
        title="The developer role is not known everywhere",
        constraint=(
            "Azure deployments on older api-versions, and many OpenAI-compatible servers, know only system, "
            "user, assistant and tool roles; a developer message is refused. system carries the same meaning."
        ),
        errors=(
            "Invalid value: 'developer'. Supported values are: 'system', 'assistant', 'user', 'function', "
            "and 'tool'.",
            "Unsupported value: 'messages[0].role' does not support 'developer' with this model.",
        ),
        sources=("run-llama/llama_index#17544", "run-llama/llama_index#17833", "agno-agi/agno#1770"),
        litellm="Sends developer as system to OpenAI models that have no developer role; not for Azure.",
    ),
    Quirk(
        number=10,
        providers=("azure",),
        title="Azure's Chat Completions takes no file parts",
        constraint=(
            "OpenAI accepts PDF file parts in Chat Completions; Azure OpenAI does not. Such a part has to be "
            "rendered as text or images by the caller, or sent through another API."
        ),
        errors=(
            "Invalid Value: 'file'. This model does not support file content types.",
            "Invalid Value: 'file'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', "
            "and 'audio'.",
        ),
        sources=(
            "openai/openai-python#2826",
            "pydantic/pydantic-ai#4035",
            "Azure/azure-sdk-for-net#51873",
            "openai/openai-python#2300",
        ),
        litellm="Passes the part through; Azure refuses it.",
    ),
    Quirk(
        number=11,
        providers=("openai",),
        title="Inline files need a filename; audio is wav or mp3",
        constraint=(
            "A file part given as file_data must also carry a filename, or OpenAI answers as if the file_id "
            "were missing. input_audio.format is limited to wav and mp3 in OpenAI's types."
        ),
        errors=("Missing required parameter: 'messages[1].content[1].file.file_id'.",),
        sources=("openai/openai-agents-python#1513", "langchain-ai/langchainjs#9512"),
        litellm="Passes the part through.",
        also="messages.parts.FilePart requires a filename with file_data",
        evidence="verified",
    ),
    Quirk(
        number=12,
        providers=("*",),
        title="An empty message list is refused",
        constraint="A request needs at least one message; a history trimmed to nothing cannot be sent.",
        errors=(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty "
            "array instead.",
        ),
        sources=("CopilotKit/CopilotKit#529", "vercel/ai#10003"),
        litellm="Passes it through.",
        also="messages.protocol: validate_conversation raises EmptyConversationError",
    ),
    Quirk(
        number=13,
        providers=_CLAUDE,
        title="Claude refuses empty text blocks and empty turns",
        constraint=(
            "Every text block sent to Claude must say something, and every message but an optional final "
            'assistant one must have content. An OpenAI-shaped turn with content "" beside tool calls, a '
            "blank user turn, or an empty tool result all become empty blocks."
        ),
        errors=(
            "messages: text content blocks must be non-empty",
            "messages.0: all messages must have non-empty content except for the optional final assistant "
            "message",
        ),
        sources=(
            "anthropics/anthropic-sdk-python#461",
            "anthropics/claude-code#6774",
            "miurla/morphic#83",
            "NousResearch/hermes-agent#11929",
        ),
        litellm=(
            "Skips empty text blocks and drops a message left with none; in places it substitutes a text of "
            "its own for empty content."
        ),
    ),
    Quirk(
        number=14,
        providers=_CLAUDE,
        title="A final assistant text must not end in whitespace",
        constraint=(
            "When the conversation ends on an assistant turn (a prefill), Claude refuses trailing whitespace "
            "in its text."
        ),
        errors=("messages: final assistant content cannot end with trailing whitespace",),
        sources=("langchain-ai/langchain#35071", "vercel/ai#2124", "tailcallhq/forgecode#1872"),
        litellm="Handled: strips the trailing whitespace of a final assistant turn's text.",
    ),
    Quirk(
        number=15,
        providers=_CLAUDE,
        title="Claude 4.6 and later take no assistant prefill",
        constraint=(
            "From Claude Opus/Sonnet 4.6 on, a conversation must end with a user turn; ending on an "
            "assistant text (a prefill) is refused. Older Claude models accept it."
        ),
        errors=(
            "This model does not support assistant message prefill. The conversation must end with a user "
            "message.",
        ),
        sources=(
            "vercel/ai#12296",
            "langchain-ai/deepagents#1585",
            "anomalyco/opencode#29760",
            "livekit/agents#7217",
        ),
        litellm=(
            "Not handled on Anthropic; on Bedrock it appends a user turn only with litellm.modify_params."
        ),
    ),
    Quirk(
        number=16,
        providers=_CLAUDE,
        title="Claude pairs tool_use and tool_result across neighbouring turns",
        constraint=(
            "Each tool_use must be answered by a tool_result in the very next message, each tool_result must "
            "answer a tool_use of the message before, and the results come first in their user turn. A user "
            "text filed between a call and its result breaks all three."
        ),
        errors=(
            "messages.22: `tool_use` ids were found without `tool_result` blocks immediately after: "
            "toolu_... Each `tool_use` block must have a corresponding `tool_result` block in the next "
            "message.",
            "messages.48.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_... Each "
            "`tool_result` block must have a corresponding `tool_use` block in the previous message.",
        ),
        sources=(
            "anthropics/claude-code#5989",
            "anthropics/claude-code#2697",
            "Kilo-Org/kilocode#5163",
            "anthropics/anthropic-sdk-typescript#653",
        ),
        litellm="Merges tool results and user text into one user turn in their order; does not reorder.",
        also=_PROTOCOL + "; a result answered twice is reported",
    ),
    Quirk(
        number=17,
        providers=_CLAUDE,
        title="Claude tool-use ids: letters, digits, '_' and '-', unique in the request",
        constraint=(
            "Anthropic checks every tool_use id against [a-zA-Z0-9_-]+ and wants each id once in the whole "
            "request. Ids from other models break it: Kimi's functions.NAME:0 (with '.' and ':'), and any id "
            "a model mints again in every turn."
        ),
        errors=(
            "messages.5.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
            "messages.1.content.1: `tool_use` ids must be unique",
        ),
        sources=(
            "maximhq/bifrost#5097",
            "tailcallhq/forgecode#1142",
            "BerriAI/litellm#23510",
            "trycua/cua#524",
        ),
        litellm="No sanitizing of history ids (its PR 21215 was closed unmerged).",
        also="messages.protocol: an id used twice in one turn is refused (DuplicateToolCallIdError)",
    ),
    Quirk(
        number=18,
        providers=_CLAUDE,
        title="Claude's signed thinking blocks in the history",
        constraint=(
            "With extended thinking on, the last assistant turn that calls tools must start with its signed "
            "thinking block, returned byte for byte. Blocks signed elsewhere (another provider, another "
            "conversation) are refused, a final assistant turn cannot end on a thinking block, and with "
            "thinking off a final assistant turn cannot hold one."
        ),
        errors=(
            "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. "
            "When `thinking` is enabled, a final `assistant` message must start with a thinking block "
            "(preceeding the lastmost set of `tool_use` and `tool_result` blocks).",
            "messages.1.content.0: Invalid `signature` in `thinking` block",
            "messages.1: The final block in an assistant message cannot be `thinking`.",
        ),
        sources=(
            "OpenRouterTeam/ai-sdk-provider#162",
            "anomalyco/opencode#3077",
            "n8n-io/n8n#22550",
            "ding113/claude-code-hub#518",
        ),
        litellm=(
            "Carries thinking_blocks on assistant messages and puts them first in the Anthropic request; "
            "drops the thinking parameter when blocks are missing only with litellm.modify_params."
        ),
    ),
    Quirk(
        number=19,
        providers=_CLAUDE,
        title="Claude needs a turn besides the system prompt",
        constraint=(
            "The system prompt is a separate parameter, so a conversation of system messages only leaves "
            "Claude an empty message list; and a conversation whose first turn is an assistant one makes "
            "the call lead."
        ),
        errors=("messages must have at least one element",),
        sources=("langchain-ai/langchain#30764", "langchain-ai/langchain-google#1022"),
        litellm="Hoists every system message into the system parameter, wherever it stood.",
    ),
    Quirk(
        number=20,
        providers=("perplexity", "deepseek", "anthropic", "bedrock", "gemini"),
        title="User and assistant turns must alternate",
        constraint=(
            "Perplexity and DeepSeek's reasoner refuse two user (or two assistant) turns in a row; Claude "
            "did so until 2024. Consecutive turns of one role have to be merged."
        ),
        errors=(
            "After the (optional) system message(s), user and assistant roles should be alternating.",
            "deepseek-reasoner does not support successive user or assistant messages (messages[1] and "
            "messages[2] in your input). You should interleave the user/assistant messages in the message "
            "sequence.",
        ),
        sources=(
            "perplexityai/api-discussion#265",
            "deepseek-ai/DeepSeek-R1#21",
            "BerriAI/litellm#7972",
            "BerriAI/litellm#3474",
        ),
        litellm="Merges consecutive turns for Anthropic, Bedrock, Gemini and Cohere; not for Perplexity or "
        "DeepSeek.",
        evidence="conflicting",
    ),
    Quirk(
        number=21,
        providers=_CLAUDE,
        title="Claude image types: jpeg, png, gif, webp, matching the bytes",
        constraint=(
            "An inline image must declare one of four media types, and the bytes must be of that type. A "
            "data URL saying image/jpg, or a PNG labelled as JPEG, is refused."
        ),
        errors=(
            "messages.2.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', "
            "'image/gif' or 'image/webp'",
            "messages.6.content.5.image.source.base64.data: Image does not match the provided media type "
            "image/png",
        ),
        sources=("BerriAI/litellm#6893", "anthropics/claude-code#8184", "anthropics/claude-code#3073"),
        litellm="Takes the media type from the data URL, downloads http(s) images; no normalizing.",
    ),
    Quirk(
        number=22,
        providers=_CLAUDE,
        title="At most 4 cache breakpoints, none on an empty text",
        constraint=(
            "Claude accepts at most four blocks marked with cache_control in a request, and none of them may "
            "be an empty text block."
        ),
        errors=(
            "A maximum of 4 blocks with cache_control may be provided. Found 5.",
            "messages.29.content.0.text: cache_control cannot be set for empty text blocks",
        ),
        sources=("continuedev/continue#6937", "tghamm/Anthropic.SDK#50", "anthropics/claude-code#50082"),
        litellm="Copies cache_control onto Anthropic blocks; no limit applied.",
    ),
    Quirk(
        number=23,
        providers=("gemini", "vertex_ai"),
        title="Gemini refuses empty text parts",
        constraint=(
            "Every part of a Gemini turn must hold data, and a turn must have parts. An empty assistant "
            "text, a blank user message, or an empty system instruction each produce an empty part."
        ),
        errors=(
            "* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.",
            "Unable to submit request because it has an empty text parameter. Add a value to the parameter "
            "and try again.",
            "* GenerateContentRequest.contents[1].parts[0].data: required oneof field 'data' must have one "
            "initialized field",
        ),
        sources=(
            "vercel/ai#3775",
            "langchain-ai/langchain-google#691",
            "microsoft/autogen#5762",
            "simonw/llm-gemini#100",
        ),
        litellm=(
            'Skips empty string content for user and assistant turns and adds " " to an image-only user '
            'turn, but still sends {"text": ""} for some empty texts.'
        ),
    ),
    Quirk(
        number=24,
        providers=("gemini", "vertex_ai"),
        title="Gemini's order of function calls and responses",
        constraint=(
            "A function-response turn must come right after its function-call turn with as many parts as it "
            "has calls, and a function-call turn must follow a user turn or a function-response turn. A "
            "conversation opening on an assistant call, or one call repeated with equal arguments, breaks it."
        ),
        errors=(
            "Please ensure that function response turn comes immediately after a function call turn.",
            "Please ensure that the number of function response parts is equal to the number of function "
            "call parts of the function call turn.",
            "Please ensure that function call turn comes immediately after a user turn or after a function "
            "response turn.",
        ),
        sources=(
            "langchain-ai/langchain#27799",
            "google-gemini/gemini-cli#4217",
            "google-gemini/gemini-cli#11814",
            "langgenius/dify#16760",
        ),
        litellm="Groups consecutive tool results into one turn; merges consecutive assistant turns.",
    ),
    Quirk(
        number=25,
        providers=("gemini", "vertex_ai", "openrouter"),
        title="Gemini thought signatures go back to Gemini, and nowhere else",
        constraint=(
            "Gemini 3 (and 2.5 with thinking) signs its function calls, and wants the signature back on the "
            "call. litellm carries it inside the tool-call id (<id>__thought__<signature>) and cuts it off "
            "for every other model, so ids that differ only by signature reach that model as one id; a "
            "foreign signature sent to Gemini is refused."
        ),
        errors=(
            "Function call is missing a thought_signature in functionCall parts. This is required for tools "
            "to work correctly, and missing thought_signature may lead to degraded model performance.",
            "Invalid value at 'thought_signature' (TYPE_BYTES), Base64 decoding failed",
        ),
        sources=(
            "BerriAI/litellm#16893",
            "BerriAI/litellm#16895",
            "langgenius/dify-official-plugins#2088",
            "crmne/ruby_llm#542",
            "RooCodeInc/Roo-Code#10742",
        ),
        litellm=(
            "Keeps signatures in ids and in provider_specific_fields (PR 16895), adds a placeholder "
            "signature for calls made by another provider, and cuts signatures off ids for other models."
        ),
    ),
    Quirk(
        number=26,
        providers=("gemini", "vertex_ai"),
        title="Gemini needs contents besides the system instruction",
        constraint="A request whose only message is a system message leaves Gemini no contents.",
        errors=(
            "Invalid argument provided to Gemini: 400 * GenerateContentRequest.contents: contents is not "
            "specified",
        ),
        sources=("langchain-ai/langchain-google#1298", "BerriAI/litellm#12651", "BerriAI/litellm#9733"),
        litellm="Handled since PR 12651: a user turn is added.",
    ),
    Quirk(
        number=27,
        providers=("gemini", "vertex_ai", "openai_compatible", "together_ai", "fireworks_ai"),
        title="Gemma takes no system instruction",
        constraint=(
            "Gemma models (before Gemma 4) served by Google refuse a system instruction, even an empty one; "
            "their chat templates have no system role either. The instructions have to open the first user "
            "turn."
        ),
        errors=("Developer instruction is not enabled for models/gemma-3-27b-it",),
        sources=(
            "google/adk-python#3900",
            "CherryHQ/cherry-studio#3242",
            "browser-use/browser-use#2577",
            "0xPlaygrounds/rig#788",
        ),
        litellm="Merges system into the next user message only where its model map says the model has no "
        "system role.",
    ),
    Quirk(
        number=28,
        providers=("gemini", "vertex_ai"),
        title="Gemini function responses are objects, matched by name",
        constraint=(
            "A functionResponse.response is a JSON object, and the response is tied to its call by function "
            "name, so the call must still be in the history when its result is sent."
        ),
        errors=("Missing corresponding tool call for tool response message",),
        sources=("AstrBotDevs/AstrBot#7216", "0xPlaygrounds/rig#515"),
        litellm=(
            'Wraps the result as {"content": ...} and finds the name from the earlier call; raises before '
            "sending when that call is gone."
        ),
    ),
    Quirk(
        number=29,
        providers=("gemini",),
        title="Gemini's OpenAI-compatible endpoint and empty tool-call turns",
        constraint=(
            "On Google's /v1beta/openai/ endpoint, a tool-call turn with content null was refused, and one "
            'with "" too, in reports that disagree and may be out of date; unknown fields are refused. '
            "litellm's gemini/ route uses the native API instead."
        ),
        errors=("Expected string or list of content parts, got: null",),
        sources=("langchain-ai/langchain#30803", "3-ark/Cognito#24"),
        litellm="Its native gemini/ route does not use this endpoint.",
        evidence="conflicting",
    ),
    Quirk(
        number=30,
        providers=("mistral", "bedrock", "vertex_ai", "openrouter", "openai_compatible"),
        title="Mistral tool-call ids: exactly 9 letters or digits",
        constraint=(
            "Mistral's API, and its tokenizer wherever Mistral models are served (Bedrock, Vertex AI, vLLM, "
            "Hugging Face templates), accept only ids of 9 characters from [a-zA-Z0-9], on the call and on "
            "its result. Ids made by OpenAI, Anthropic or Gemini never fit."
        ),
        errors=(
            "Tool call id was call_PTLP8xhu3uwZk4l3nlnrrJha but must be a-z, A-Z, 0-9, with a length of 9.",
        ),
        sources=(
            "langchain-ai/langchain#24668",
            "jackmpcollins/magentic#276",
            "anomalyco/opencode#1680",
            "vllm-project/vllm#10821",
            "vercel/ai#11863",
        ),
        litellm="No id rewriting on its Mistral route.",
    ),
    Quirk(
        number=31,
        providers=("mistral", "vertex_ai", "openrouter"),
        title="Mistral's role order",
        constraint=(
            "After tool results the next message must be an assistant one (no user or system message right "
            "after a tool message, no tool message right after a user one); calls and results must be as "
            "many; and the last message must be a user or tool message, or an assistant one marked as a "
            "prefix."
        ),
        errors=(
            "Unexpected role 'user' after role 'tool'",
            "Unexpected role 'tool' after role 'user'",
            "Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant",
            "Not the same number of function calls and responses",
        ),
        sources=(
            "NousResearch/hermes-agent#20154",
            "charmbracelet/crush#279",
            "huggingface/smolagents#757",
            "crewAIInc/crewAI#2194",
            "BerriAI/litellm#4882",
        ),
        litellm='Not handled on its Mistral route; it drops a tool message whose content is "".',
    ),
    Quirk(
        number=32,
        providers=("mistral", "vertex_ai"),
        title="A Mistral assistant turn needs content or tool calls",
        constraint=(
            "An assistant turn with neither text nor tool calls is refused (and was once answered with a "
            "500). Older API versions also refused a turn with both."
        ),
        errors=(
            "Assistant message must have either content or tool_calls, but not none.",
            "Assistant message must have either content or tool_calls, but not both.",
        ),
        sources=("langchain-ai/langchain#21196", "BerriAI/litellm#13355"),
        litellm='Drops an assistant turn whose only content is "" (not when the conversation has images).',
    ),
    Quirk(
        number=33,
        providers=("mistral", "vertex_ai", "openai_compatible"),
        title="Mistral forbids keys it does not know",
        constraint=(
            "Mistral validates each message against a closed schema: name except on tool messages, "
            "reasoning_content, metadata, and null-valued keys are refused with 422. vLLM serving Mistral's "
            "tokenizer does the same."
        ),
        errors=(
            '{"type":"extra_forbidden","loc":["body","messages",0,"user","name"],'
            '"msg":"Extra inputs are not permitted"}',
            "messages.0.user.name Extra inputs are not permitted",
        ),
        sources=(
            "Gage-Technologies/mistral-go#2",
            "charmbracelet/crush#1590",
            "BerriAI/litellm#30835",
            "BerriAI/litellm#30882",
            "vllm-project/vllm#12864",
        ),
        litellm="Drops name on non-tool messages and None values, except when the conversation has images.",
    ),
    Quirk(
        number=34,
        providers=("deepseek",),
        title="DeepSeek's thinking mode wants its reasoning back",
        constraint=(
            "In thinking mode, an assistant turn that called tools must carry its reasoning_content in every "
            "later request; users report that any assistant turn without it is refused. Reasoning written by "
            "another provider is not DeepSeek's to receive."
        ),
        errors=(
            "Missing `reasoning_content` field in the assistant message at message index 2.",
            "The `reasoning_content` in the thinking mode must be passed back to the API.",
        ),
        sources=(
            "continuedev/continue#9831",
            "AstrBotDevs/AstrBot#4174",
            "agent0ai/agent-zero#1732",
            "pydantic/pydantic-ai#3536",
        ),
        litellm="Fills it only when thinking is requested explicitly; otherwise passes the turn through.",
    ),
    Quirk(
        number=35,
        providers=("deepseek",),
        title="DeepSeek R1: reasoning_content in input was refused",
        constraint=(
            "The R1-era reasoner refused reasoning_content in input messages. DeepSeek's current thinking "
            "mode wants the opposite (quirk 34), which this package follows."
        ),
        sources=("https://api-docs.deepseek.com/zh-cn/guides/reasoning_model",),
        evidence="superseded",
    ),
    Quirk(
        number=36,
        providers=("deepseek",),
        title="DeepSeek takes text only, as a string",
        constraint=(
            "DeepSeek's text models take content as a string: a list of parts is refused (or was), and image "
            "parts are refused outright; the vision models take images in user turns."
        ),
        errors=(
            "Failed to deserialize the JSON body into the target type: messages[1]: invalid type: sequence, "
            "expected a string at line 17 column 3",
            "messages[7]: unknown variant `image_url`, expected `text`",
        ),
        sources=("cline/cline#230", "browser-use/browser-use#159", "BerriAI/litellm#6642"),
        litellm="Joins text parts into a string when none is empty, and drops other parts silently.",
    ),
    Quirk(
        number=37,
        providers=("groq",),
        title="Groq refuses unknown message properties",
        constraint=(
            "Groq validates messages strictly: reasoning_content, reasoning on models without it, id, "
            "status, timestamp and metadata are each refused on the message that carries them."
        ),
        errors=(
            "'messages.2' : for 'role:assistant' the following must be satisfied[('messages.2' : property "
            "'reasoning_content' is unsupported)]",
            "property 'status' is unsupported, did you mean 'name'?",
        ),
        sources=(
            "run-llama/llama_index#14701",
            "ServiceStack/llms#17",
            "janhq/jan#8136",
            "vercel/ai#8057",
        ),
        litellm="Passes the keys through.",
    ),
    Quirk(
        number=38,
        providers=("groq",),
        title="Groq's system content is a string",
        constraint="A system message whose content is a list of parts is refused by Groq.",
        errors=(
            "'messages.0' : for 'role:system' the following must be satisfied[('messages.0.content' : value "
            "must be a string)]",
        ),
        sources=("All-Hands-AI/OpenHands#4643", "livekit/agents#1790", "gptme/gptme#314"),
        litellm="Passes the list through.",
    ),
    Quirk(
        number=39,
        providers=("groq", "openai_compatible"),
        title="Llama 3.2 Vision: no system message beside images",
        constraint=(
            "Llama 3.2 Vision's template refuses a system message in a conversation that holds images; the "
            "instructions have to move into the user turn."
        ),
        errors=("prompting with images is incompatible with system messages",),
        sources=("BerriAI/litellm#6569", "browser-use/browser-use#581", "vllm-project/vllm#8854"),
        litellm="Not handled (its issue closed as stale).",
    ),
    Quirk(
        number=40,
        providers=("xai",),
        title="xAI: every message says something",
        constraint=(
            "Grok refuses a message with no non-empty content element: a blank user turn, an empty list, "
            "and a tool-call turn with no text if its content is not a string."
        ),
        errors=(
            "Invalid request content: Each message must have at least one content element.",
            "An empty message was provided. Every message needs at least one non-empty content element.",
        ),
        sources=(
            "langchain-ai/langchain#34140",
            "charmbracelet/crush#964",
            "AstrBotDevs/AstrBot#6447",
            "n8n-io/n8n#14797",
        ),
        litellm="Passes the message through.",
    ),
    Quirk(
        number=41,
        providers=("bedrock",),
        title="Bedrock conversations start with a user turn",
        constraint=(
            "Converse refuses a conversation whose first message (after the system prompt) is not a user "
            "message: a system-only prompt, or a history that opens on the assistant."
        ),
        errors=(
            "A conversation must start with a user message. Try again with a conversation that starts with "
            "a user message.",
        ),
        sources=("elastic/kibana#246393", "i-am-bee/beeai-framework#753"),
        litellm='Adds a "Please continue." user turn only with litellm.modify_params.',
    ),
    Quirk(
        number=42,
        providers=("bedrock",),
        title="Bedrock turns alternate",
        constraint="Converse wants user and assistant turns in turn; two of one role in a row are refused.",
        errors=(
            "A conversation must alternate between user and assistant roles. Make sure the conversation "
            "alternates between user and assistant roles and try again.",
        ),
        sources=("Portkey-AI/gateway#748", "microsoft/semantic-kernel#10281", "langgenius/dify#9294"),
        litellm="Handled: merges consecutive turns of one role.",
    ),
    Quirk(
        number=43,
        providers=("bedrock",),
        title="Bedrock refuses blank text blocks and empty messages",
        constraint=(
            "A text block must hold more than whitespace, and a message must hold a block. Empty assistant "
            "text beside tool calls, blank user turns and empty tool results trip it."
        ),
        errors=(
            "The text field in the ContentBlock object at messages.3.content.0 is blank. Add text to the "
            "text field, and try again.",
            "The content field in the Message object at messages.[position] is empty. Add a ContentBlock "
            "object to the content field and try again.",
        ),
        sources=(
            "All-Hands-AI/OpenHands#5722",
            "boto/botocore#3525",
            "Portkey-AI/gateway#995",
            "BerriAI/litellm#7169",
        ),
        litellm='Drops empty blocks; replaces them with "Please continue." only with litellm.modify_params.',
    ),
    Quirk(
        number=44,
        providers=("bedrock",),
        title="Bedrock keeps tool results alone in their turn",
        constraint=(
            "Tool results may not share a user turn with text, and a turn may not hold more results than the "
            "calls of the turn before. A user message right after the results is merged into their turn "
            "unless an assistant turn separates them."
        ),
        errors=(
            "messages.2.content: Conversation blocks and tool result blocks cannot be provided in the same "
            "turn.",
            "The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of "
            "previous turn.",
        ),
        sources=(
            "BerriAI/litellm#6053",
            "langchain-ai/langchain-aws#141",
            "pydantic/pydantic-ai#2327",
            "langgenius/dify-official-plugins#765",
        ),
        litellm="Inserts an assistant turn between them only with litellm.modify_params.",
    ),
    Quirk(
        number=45,
        providers=("bedrock",),
        title="Bedrock tool-use ids and names: a pattern and 64 characters",
        constraint=(
            "toolUseId and tool names must be at most 64 characters of a restricted set (letters, digits, "
            "'_' and '-'; sources disagree about '.' and ':'). Mistral models on Bedrock want Mistral's ids "
            "(quirk 30)."
        ),
        errors=(
            "Value at 'messages.73.member.content.2.member.toolUse.name' failed to satisfy constraint: "
            "Member must have length less than or equal to 64",
        ),
        sources=("openclaw/openclaw#12892", "maximhq/bifrost#6300", "run-llama/llama_index#22775"),
        litellm="Sanitizes tool definition names; history ids pass through (its PR 28825 was closed).",
        evidence="conflicting",
    ),
    Quirk(
        number=46,
        providers=("bedrock",),
        title="Bedrock document names",
        constraint=(
            "A document block's name may hold only letters, digits, single spaces, hyphens, parentheses and "
            "square brackets; a file name with a dot is refused."
        ),
        errors=(
            "The document file name can only contain alphanumeric characters, whitespace characters, "
            "hyphens, parentheses, and square brackets. The name can't contain more than one consecutive "
            "whitespace character.",
        ),
        sources=("vercel/ai#20365", "simonw/llm-bedrock#8", "aws-samples/generative-ai-use-cases#1671"),
        litellm="Handled: generates a name of its own for each document.",
    ),
    Quirk(
        number=47,
        providers=("bedrock",),
        title="Most Bedrock models want a user turn last",
        constraint=(
            "Llama and other Bedrock models refuse a conversation that ends on an assistant turn; Claude "
            "before 4.6 takes it as a prefill."
        ),
        errors=(
            "The model that you are using requires the last turn in the conversation to be a user message. "
            "Add a user message to the conversation and try again.",
        ),
        sources=("i-am-bee/beeai-framework#753",),
        litellm='Appends "Please continue." only with litellm.modify_params.',
    ),
    Quirk(
        number=48,
        providers=("bedrock",),
        title="Bedrock reasoning signatures go back unchanged",
        constraint=(
            "Claude's reasoning on Bedrock comes with a signature (or redacted content) that must be sent "
            "back unmodified ahead of the turn's tool use; it belongs to Bedrock and to no other provider."
        ),
        sources=("RooCodeInc/Roo-Code#11238", "spring-projects/spring-ai#6413", "BerriAI/litellm#18787"),
        litellm="Handled: turns thinking_blocks into reasoningContent blocks.",
    ),
    Quirk(
        number=49,
        providers=("ollama", "ollama_chat"),
        title="Ollama wants decoded arguments",
        constraint=(
            "Ollama's native API takes function.arguments as a JSON object. A string is refused, and an "
            "empty string cannot be decoded at all."
        ),
        errors=(
            "json: cannot unmarshal string into Go struct field ChatRequest.messages.tool_calls.function."
            "arguments of type api.ToolCallFunctionArguments",
        ),
        sources=("aliasrobotics/cai#76", "neuron-core/neuron-ai#219", "ollama/ollama#12794"),
        litellm='Decodes the arguments on both Ollama routes; "" or invalid JSON makes it fail.',
    ),
    Quirk(
        number=50,
        providers=("ollama", "ollama_chat"),
        title="Ollama's OpenAI endpoint and tool-call turns without text",
        constraint=(
            'Ollama\'s /v1 endpoint refused content null on some versions, while content "" beside earlier '
            "tool calls made some models switch to writing calls as text."
        ),
        errors=("invalid message content type: <nil>",),
        sources=("pydantic/pydantic-ai#5206", "ollama/ollama#14181", "vercel/ai#12390"),
        litellm="Its ollama/ and ollama_chat/ routes build their own requests and do not use /v1.",
        evidence="conflicting",
    ),
    Quirk(
        number=51,
        providers=("ollama", "ollama_chat"),
        title="Ollama takes inline images only",
        constraint=(
            "Ollama's native API takes images as base64 without the data: prefix, and its /v1 endpoint as "
            "data URLs; neither downloads an http URL."
        ),
        errors=("illegal base64 data at input byte 4", "invalid image input"),
        sources=("BerriAI/litellm#1427", "ollama/ollama-js#68", "ollama/ollama#7247"),
        litellm="Cuts the data: prefix off inline images; does not download URLs on the chat route.",
    ),
    Quirk(
        number=52,
        providers=("ollama", "ollama_chat"),
        title="Ollama pairs tool results by tool name",
        constraint=(
            "Ollama's native chat API long had no tool_call_id: a result is tied to its call by the tool's "
            "name (tool_name), which litellm does not send."
        ),
        sources=("ollama/ollama#11417", "awaescher/OllamaSharp#284", "ollama/ollama-python#698"),
        litellm="Sends no tool_name on tool results; no message list can fix that.",
        evidence="reported",
    ),
    Quirk(
        number=53,
        providers=("openai_compatible", "together_ai", "fireworks_ai"),
        title="Chat templates of self-hosted servers",
        constraint=(
            "vLLM, llama.cpp, LM Studio and Hugging Face templates raise on what the model's template does "
            "not expect: turns that do not alternate, content null, a missing content key, arguments of the "
            'wrong type, and arguments "" that the server decodes.'
        ),
        errors=(
            "Conversation roles must alternate user/assistant/user/assistant/...",
            "Expected 'content' to be a string or an array",
            "Invalid 'content': 'content' field must be a string or an array of objects.",
            "TypeError: Can only get item pairs from a mapping.",
        ),
        sources=(
            "microsoft/autogen#1037",
            "ggml-org/llama.cpp#13471",
            "lmstudio-ai/lmstudio-bug-tracker#261",
            "QwenLM/Qwen3-Coder#444",
            "vllm-project/vllm#19419",
            "huggingface/transformers#45419",
        ),
        litellm="Its Hugging Face template route retries with blank turns inserted; the OpenAI-compatible "
        "routes pass the list through.",
    ),
    Quirk(
        number=54,
        providers=("openai_compatible", "together_ai", "fireworks_ai"),
        title="vLLM may garble tool results given as parts",
        constraint=(
            "With --chat-template-content-format auto, vLLM may turn a tool result into a list of parts that "
            "the template renders as nothing, with no error. A plain string is safe."
        ),
        sources=("vllm-project/vllm#39614",),
        litellm="Passes the content through.",
        evidence="reported",
    ),
    Quirk(
        number=55,
        providers=("cohere",),
        title="Cohere: no empty turns, no name, no unknown keys",
        constraint=(
            "Cohere refuses a turn with nothing in it (no text and no tool results), history entries without "
            "a message, and the name field; its compatibility API answers 422 to keys it does not know."
        ),
        errors=(
            "invalid request: message must be at least 1 token long or tool results must be specified.",
            "invalid request: all elements in history must have a message.",
        ),
        sources=(
            "kwaroran/Risuai#504",
            "kwaroran/Risuai#458",
            "cohere-ai/cohere-python#525",
            "mozilla-ai/any-llm#192",
        ),
        litellm="Converts tool results and recovers call names; passes empty turns through.",
    ),
    Quirk(
        number=56,
        providers=("openrouter",),
        title="OpenRouter passes on the rules of the provider behind it",
        constraint=(
            "OpenRouter forwards the request to the model's own provider, and that provider's refusals come "
            'back as "Provider returned error": every rule of the provider behind it applies. Tool-call ids '
            "must suit every provider a route may pick (at most 40 characters, letters, digits, '_' and "
            "'-'), and Gemini and Claude tool loops want their reasoning_details back."
        ),
        errors=('{"message":"Provider returned error","code":400,"metadata":{"raw":"..."}}',),
        sources=(
            "tailcallhq/forgecode#1142",
            "charmbracelet/crush#279",
            "earendil-works/pi#260",
            "openclaw/openclaw#875",
        ),
        litellm=(
            "Passes the list through to OpenRouter's OpenAI-shaped API, an assistant turn's "
            "reasoning_details included; keeps a reply's reasoning_details in its provider_specific_fields "
            "(measured on 1.110.2)."
        ),
    ),
    Quirk(
        number=57,
        providers=("perplexity",),
        title="Perplexity: system messages first, no name",
        constraint=(
            "Perplexity takes system messages only before the first turn, then strictly alternating turns "
            "(quirk 20); the name field is not part of its API."
        ),
        errors=("After the (optional) system message(s), user and assistant roles should be alternating.",),
        sources=("perplexityai/api-discussion#265", "microsoft/autogen#2405"),
        litellm="Pops name on its Perplexity route; does not merge turns.",
    ),
    Quirk(
        number=58,
        providers=("anthropic", "bedrock", "gemini", "vertex_ai", "openai_compatible"),
        title="Empty tool-call arguments break converters",
        constraint=(
            'A call made without arguments often comes back with arguments "" (streamed no-argument calls, '
            "some routers). Converters that decode the arguments (litellm's Anthropic, Bedrock and Gemini "
            "paths, vLLM) fail on it before the request is sent."
        ),
        errors=(
            "Expecting value: line 1 column 1 (char 0)",
            "Unable to convert openai tool calls=[... 'arguments': ''...] to bedrock tool calls. Received "
            "error=Expecting value",
        ),
        sources=(
            "BerriAI/litellm#5064",
            "BerriAI/litellm#11550",
            "simonw/llm#1164",
            "vllm-project/vllm#19419",
        ),
        litellm="Decodes arguments unguarded in its Anthropic and Bedrock converters.",
    ),
    Quirk(
        number=59,
        providers=("openai", "azure"),
        title="OpenAI: no name on assistant turns",
        constraint=(
            "A history with names on assistant tool-call turns was reported to make OpenAI models answer 500 "
            '"The model produced invalid content"; names on assistant turns are best left out.'
        ),
        errors=("The model produced invalid content",),
        sources=("microsoft/autogen#3437",),
        litellm="Passes name through.",
        evidence="reported",
    ),
    Quirk(
        number=60,
        providers=("together_ai", "fireworks_ai"),
        title="Together and Fireworks: chat templates and strict fields",
        constraint=(
            "No message-list error of their own was found. Both serve open-weight models through chat "
            "templates (quirk 53) and refuse fields they do not know, so only known keys are sent."
        ),
        errors=("Extra inputs are not permitted, field: 'messages[2].provider_specific_fields'",),
        sources=("FlowiseAI/Flowise#2866", "BerriAI/litellm#20334", "anomalyco/opencode#4386"),
        litellm="Drops provider_specific_fields for Fireworks since PR 20334; other keys pass through.",
        evidence="unknown",
    ),
    Quirk(
        number=61,
        providers=("perplexity",),
        title="Perplexity has no tools",
        constraint=(
            "Perplexity's chat API has no function calling: a tool message, or an assistant turn holding "
            "only tool_calls, is refused, and every message needs content. A conversation that used tools "
            "elsewhere keeps its meaning on Perplexity only when its calls and results are written out as "
            "text."
        ),
        errors=(
            'PerplexityException - ["At body -> messages -> 0 -> content: Field required", "At body -> '
            "messages -> 1 -> role: Input should be 'system', 'user' or 'assistant'\"]",
        ),
        sources=("BerriAI/litellm#11665", "pipecat-ai/pipecat#4862", "archestra-ai/archestra#6996"),
        litellm="Passes tool messages and tool_calls through unchanged (measured on 1.106.2 and 1.110.2).",
    ),
    # --- 62 and later: rows for rules that had none ------------------------------------------------------
    Quirk(
        number=62,
        providers=("openai", "azure", "deepseek", "openrouter", "perplexity", "xai", "groq", "fireworks_ai"),
        title="OpenAI-shaped APIs refuse keys they do not know",
        constraint=(
            "On the routes where litellm sends the message dicts as they are, every key reaches the "
            "provider, and OpenAI and the APIs modelled on it validate messages against a closed schema. "
            "Keys another provider's reply left on a message (provider_specific_fields, thinking_blocks, "
            "reasoning_content), and keys of an application's own, make the whole request fail."
        ),
        errors=(
            "litellm.BadRequestError: OpenAIException - messages.1.provider_specific_fields: Extra inputs "
            "are not permitted",
            "Extra inputs are not permitted, field: 'messages[2].provider_specific_fields'",
            "Extra inputs are not permitted, field: 'messages[8].reasoning'",
        ),
        sources=(
            "HolmesGPT/holmesgpt#1943",
            "BerriAI/litellm#20334",
            "anomalyco/opencode#11446",
            "earendil-works/pi#4514",
        ),
        litellm=(
            "Passes message keys through on its OpenAI-shaped routes; drops provider_specific_fields for "
            "Fireworks only (PR 20334)."
        ),
    ),
    Quirk(
        number=63,
        providers=("*",),
        title="Reasoning payloads belong to the provider that wrote them",
        constraint=(
            "Signed reasoning (Claude's thinking_blocks, Gemini's thought signatures in "
            "provider_specific_fields, Bedrock's reasoning signatures) and DeepSeek's reasoning_content are "
            "meaningful only to the provider that produced them. Sent to another, they are refused as "
            "unknown keys, refused as invalid signatures, or read as the target's own. A conversation that "
            "changes provider sends them back only to their own."
        ),
        errors=(
            "'messages.1' : for 'role:assistant' the following must be satisfied[('messages.1' : property "
            "'reasoning_content' is unsupported)]",
            "messages.1.content.0: Invalid `signature` in `thinking` block",
            "Invalid value at 'thought_signature' (TYPE_BYTES), Base64 decoding failed",
        ),
        sources=("janhq/jan#8136", "ding113/claude-code-hub#518", "BerriAI/litellm#20334"),
        litellm=(
            "Keeps the payloads on messages it parses and sends them on to whichever provider comes next."
        ),
    ),
    Quirk(
        number=64,
        providers=("anthropic", "bedrock", "gemini", "vertex_ai", "ollama", "ollama_chat"),
        title="Reasoning payloads a converting route would misread",
        constraint=(
            "Where litellm builds the provider's own request (Anthropic, Bedrock, Gemini, Ollama), it reads "
            "the reasoning keys it knows from any assistant message, whoever wrote them. The payloads the "
            "profile does not send back are left out before litellm sees them. Nothing is refused: the "
            "rule is silent in `messages check`."
        ),
        sources=("BerriAI/litellm#16895", "BerriAI/litellm#18929"),
        litellm="Reads thinking_blocks, reasoning_content and provider_specific_fields where present.",
        evidence="unknown",
    ),
    Quirk(
        number=65,
        providers=("*",),
        title="This package's own bookkeeping is never sent",
        constraint=(
            "An AIMessage dump carries provider (which provider wrote the turn's reasoning) so that "
            "reasoning can go back to its own provider (quirk 63). No provider knows the key, and strict "
            "ones refuse it as an unknown key (quirk 62), so every profile leaves it out."
        ),
        sources=("HolmesGPT/holmesgpt#1943",),
        litellm="Would pass it through on its OpenAI-shaped routes.",
        also="messages.models.AIMessage.provider",
    ),
    Quirk(
        number=66,
        providers=("anthropic", "bedrock", "vertex_ai"),
        title="Claude takes no audio parts",
        constraint=(
            "Claude's API has no audio input. litellm's Anthropic and Bedrock converters skip input_audio "
            "parts without a word, so the model never hears them; only the caller can transcribe them or "
            "pick a model that takes audio. A tool result holds text, images and inline documents: the "
            "block litellm makes of a file given by id there is one Anthropic's request types refuse. The "
            "Claude profiles refuse both before the request."
        ),
        sources=("Mirascope/mirascope#1457",),
        litellm="Skips input_audio parts silently when building Claude's request.",
    ),
    Quirk(
        number=67,
        providers=("mistral", "vertex_ai"),
        title="Audio parts lost on litellm's Mistral route",
        constraint=(
            "litellm's Mistral route flattens the content of a conversation without images or files to "
            "text, which drops input_audio parts; the model never receives them."
        ),
        sources=("https://github.com/BerriAI/litellm/blob/main/litellm/llms/mistral/chat/transformation.py",),
        litellm="Flattens text-only conversations, dropping audio parts (measured on 1.106.2 and 1.110.2).",
    ),
    Quirk(
        number=68,
        providers=("ollama", "ollama_chat"),
        title="Ollama receives text and images only",
        constraint=(
            "Ollama's API has fields for text and images and nothing else: it takes no audio input. "
            "litellm's Ollama routes keep the text and the images of a message and leave out audio and "
            "file parts."
        ),
        sources=("ollama/ollama#9179", "ollama/ollama#11798", "ollama/ollama#11212"),
        litellm="Keeps text and images; other parts are left out silently.",
    ),
    Quirk(
        number=69,
        providers=("fireworks_ai",),
        title="Fireworks takes no file parts",
        constraint=(
            "Fireworks' chat completions have no file content; litellm refuses a file part before sending, "
            "advising to send PDF pages as images or their text instead."
        ),
        errors=(
            "Fireworks AI chat completions does not support file content blocks. For PDFs, convert pages to "
            "images and send image_url blocks to a Fireworks vision model, or extract text before calling a "
            "text-only model.",
        ),
        sources=(
            "https://github.com/BerriAI/litellm/blob/main/litellm/llms/fireworks_ai/chat/transformation.py",
        ),
        litellm="Raises BadRequestError on a file part (the error above).",
    ),
    Quirk(
        number=70,
        providers=(
            "openai",
            "azure",
            "groq",
            "xai",
            "together_ai",
            "fireworks_ai",
            "openrouter",
        ),
        title="cache_control reaches OpenAI-shaped routes, which reject the unknown key",
        constraint=(
            "A cache mark (cache_control) on a message or a text part is Anthropic's. litellm strips it "
            "only for an openai.com host (DeepSeek and Mistral flatten it away); any other OpenAI-shaped "
            "route gets it as is, and a strict server refuses the request. The profiles remove it there; "
            "Claude profiles keep it."
        ),
        errors=("Unrecognized request argument supplied: cache_control",),
        sources=("gethnet/litellm-connector-copilot#138", "langchain-ai/deepagents#2881"),
        litellm="Sends it as is, except to an openai.com host.",
        evidence="reported",
    ),
    Quirk(
        number=71,
        providers=("*",),
        title="A tool result's is_error flag: no route carries it; the failure is said in the content",
        constraint=(
            "No route litellm builds carries is_error. Its converting routes (Anthropic, whose tool_result "
            "has an is_error field, Bedrock, Vertex AI, Gemini, Ollama, Cohere) drop it without a word, so "
            "the model reads a failed result as a success; OpenAI-shaped routes send the key and strict "
            "servers refuse it. The profiles say the failure in the content, in AutoGen's and Agent "
            "Framework's words ('Error: ...'), unless the content says it already, and leave the flag out, "
            "on every route."
        ),
        errors=(),
        sources=(
            "https://github.com/BerriAI/litellm/blob/main/litellm/litellm_core_utils/prompt_templates/factory.py",
        ),
        litellm=(
            "Drops it on converting routes, Anthropic's included (convert_to_anthropic_tool_result never "
            "sets tool_result.is_error: measured on 1.110.2); sends it as is on OpenAI-shaped ones."
        ),
        evidence="verified",
    ),
    Quirk(
        number=72,
        providers=("*",),
        title="video_url parts are dropped silently on converting routes",
        constraint=(
            "litellm reads video for Gemini only from a file part whose format is video/...; a video_url "
            "part is dropped on every converting route, Gemini included, and sent as is to OpenAI-shaped "
            "routes, whose schema has no such part. The Gemini and Vertex AI profiles turn it into a file "
            "part; every other profile refuses it before the request."
        ),
        errors=(),
        sources=(
            "https://github.com/BerriAI/litellm/blob/main/litellm/litellm_core_utils/prompt_templates/factory.py",
        ),
        litellm="Drops the part without a word (measured through the loopback stand-ins).",
        evidence="verified",
    ),
    Quirk(
        number=73,
        providers=(
            "openai",
            "azure",
            "groq",
            "xai",
            "together_ai",
            "fireworks_ai",
            "openrouter",
        ),
        title="litellm's own part keys are not in OpenAI's schema",
        constraint=(
            "litellm's types allow image_url as a bare string, image_url.format, file.format, file.detail"
            " and file.video_metadata; OpenAI's schema has none of them. The profiles send the OpenAI "
            "form on OpenAI-shaped routes."
        ),
        errors=(),
        sources=("https://github.com/BerriAI/litellm/blob/main/litellm/types/llms/openai.py",),
        litellm="Sends the keys as given.",
        evidence="reported",
    ),
    Quirk(
        number=74,
        providers=("anthropic", "bedrock", "vertex_ai"),
        title="A cache breakpoint on a prefix shorter than the minimum is ignored",
        constraint=(
            "Anthropic caches a prefix only from a minimum length: 1024 tokens (Sonnet 4.5, Sonnet 4, "
            "Opus 4.1, Opus 4, Sonnet 3.7), 2048 (Sonnet 4.6, Haiku 3.5, Haiku 3), 4096 (Opus 4.6, Opus "
            "4.5, Haiku 4.5). A shorter marked prefix gives no error and no cache write. "
            "messages.caching.MIN_CACHEABLE_TOKENS holds these and place_cache_breakpoints never marks a "
            "shorter prefix."
        ),
        errors=(),
        sources=("https://docs.orq.ai/docs/proxy/prompt-caching",),
        litellm="Passes the marks on.",
        evidence="reported",
    ),
    Quirk(
        number=75,
        providers=("bedrock",),
        title="Bedrock Converse: cache points only for models litellm knows to cache",
        constraint=(
            "litellm writes cachePoint blocks on Bedrock Converse only for models its cost map marks as "
            "caching (claude-sonnet-4-5 yes; anthropic.claude-3-5-sonnet-20240620 no: every mark "
            "dropped), and puts an assistant message's cachePoint after all its text blocks."
        ),
        errors=(),
        sources=(
            "https://github.com/BerriAI/litellm/blob/main/litellm/llms/bedrock/chat/converse_transformation.py",
        ),
        litellm="Measured only (tests/test_extension_wire.py).",
        evidence="verified",
    ),
    Quirk(
        number=76,
        providers=("anthropic", "bedrock", "vertex_ai"),
        title="No cache_control on a thinking block",
        constraint=(
            "litellm's type allows a cache mark on a thinking block and copies it; Anthropic refuses it. "
            "Claude profiles remove it."
        ),
        errors=("messages.13.content.0.thinking.cache_control: Extra inputs are not permitted",),
        sources=("Wei-Shaw/sub2api#225",),
        litellm="Copies the mark.",
        evidence="reported",
    ),
    Quirk(
        number=77,
        providers=("*",),
        title="Media in an assistant turn are dropped by litellm, or refused",
        constraint=(
            "litellm's types allow image, audio and file parts in an assistant turn; OpenAI's shape "
            "allows only text and refusal there (OpenAI-shaped routes send them, and the provider refuses "
            "them: Mistral's validator too), and litellm drops them without a word for Anthropic (all "
            "parts) and for Bedrock and Ollama (audio and files). Gemini and Vertex AI take a model turn's "
            "inline media (litellm 1.110.2 sends them; 1.106.2 dropped them). Refused before the request, "
            "not fixable: only the caller can say in text what they showed."
        ),
        errors=(),
        sources=(
            "https://github.com/BerriAI/litellm/blob/main/litellm/litellm_core_utils/prompt_templates/factory.py",
        ),
        litellm="Drops them on its Anthropic route, images excepted on Bedrock and Ollama (measured).",
        evidence="verified",
    ),
    Quirk(
        number=80,
        providers=("mistral",),
        title="Mistral: no system message right after an assistant turn or a tool result",
        constraint=(
            "Mistral's validator allows a system message first, after a user turn or after another system "
            "message, and refuses one that follows an assistant turn or a tool result. The Mistral profile "
            "sends such a late instruction as a user message."
        ),
        errors=("Unexpected role 'system' after role 'assistant'",),
        sources=(
            "https://github.com/mistralai/mistral-common/blob/main/src/mistral_common/protocol/instruct/validator.py",
        ),
        litellm="Sends the message list as given.",
        evidence="verified",
    ),
    Quirk(
        number=81,
        providers=("mistral",),
        title="Mistral: the conversation must not open with an assistant turn",
        constraint=(
            "Mistral's validator wants a user or system message first. A lone opening assistant turn is "
            "refused outright; one that opens with tool calls fails the count of calls against results, "
            "because the first message's calls are never counted. The Mistral profile puts a user turn first."
        ),
        errors=(
            "Conversation must start with a user message or system message",
            "Not the same number of function calls and responses",
        ),
        sources=(
            "https://github.com/mistralai/mistral-common/blob/main/src/mistral_common/protocol/instruct/validator.py",
        ),
        litellm="Sends the message list as given.",
        evidence="verified",
    ),
    Quirk(
        number=82,
        providers=("mistral",),
        title="Mistral: tool names of letters, digits, underscores and dashes, at most 64",
        constraint=(
            "A called tool's name must match [a-zA-Z0-9_-]{1,64}. The name links the call to the tool's "
            "definition, so the profile cannot rename it: it is reported as not fixable."
        ),
        errors=(
            "Function name was X but must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum "  # noqa: E501
            "length of 64.",
        ),
        sources=(
            "https://github.com/mistralai/mistral-common/blob/main/src/mistral_common/protocol/instruct/validator.py",
        ),
        litellm="Sends the names as given.",
        evidence="verified",
    ),
    Quirk(
        number=83,
        providers=("openai", "azure"),
        title="OpenAI: one text of at most 10,485,760 characters",
        constraint=(
            "A message's string content (a tool result that returns a whole file or listing, most often) "
            "may hold at most 10,485,760 characters; a longer one fails the whole request. Reports from "
            "2024 give 1,048,576. The limit is on characters, not tokens, so it can bite before the context "
            "window does. The OpenAI profile reports it as not fixable: cutting the text is the caller's "
            "choice. Azure serves the same models and is assumed to share it."
        ),
        errors=(
            "Invalid 'messages[5].content': string too long. Expected a string with maximum length 10485760, "
            "but got a string with length 10605342 instead.",
            "Invalid 'messages[17].content': string too long. Expected a string with maximum length 1048576, "
            "but got a string with length 1744259 instead.",
        ),
        sources=("Shopify/roast#52", "gptscript-ai/clio#41"),
        litellm="Sends the text as given.",
        evidence="reported",
    ),
    Quirk(
        number=84,
        providers=("cohere",),
        title="Cohere's v2 chat takes text and images in user turns, text elsewhere",
        constraint=(
            "Cohere's own SDK types for the v2 chat (ChatMessageV2) hold text and image_url parts in a "
            "user message, text in a system or assistant message (beside tool calls, a tool plan and "
            "citations), and text (or Cohere's own documents) in a tool result. litellm's v2 route sends "
            "the OpenAI-shaped messages as they are, so an audio, file or video part, or an image in an "
            "assistant turn or a tool result, reaches Cohere in a form it has no place for. The Cohere "
            "profile refuses them before the request; the caller can describe them in text."
        ),
        errors=(),
        sources=("https://github.com/cohere-ai/cohere-python/blob/main/src/cohere/types/chat_message_v2.py",),
        litellm="Sends every part as given on its v2 route (measured).",
        evidence="verified",
    ),
    Quirk(
        number=85,
        providers=("*",),
        title="A system message holds text only",
        constraint=(
            "Every provider's request type takes text, and only text, for system instructions: OpenAI's "
            "ChatCompletionSystemMessageParam, Anthropic's system blocks, Gemini's system_instruction as "
            "litellm fills it, Cohere's SystemChatMessageV2, Bedrock's system blocks. litellm drops an "
            "image or other part of a system message on its converting routes and sends it as is on the "
            "OpenAI-shaped ones, which refuse it. Refused before the request: put the media in a user turn."
        ),
        errors=(),
        sources=(
            "https://github.com/openai/openai-python/blob/main/src/openai/types/chat/chat_completion_system_message_param.py",
        ),
        litellm="Drops media of a system message on converting routes; sends them on OpenAI-shaped ones.",
        evidence="verified",
    ),
    Quirk(
        number=86,
        providers=("bedrock",),
        title="Bedrock Converse through litellm: text, images and documents, inline",
        constraint=(
            "litellm's Converse route turns image and file parts given inline into image and document "
            "blocks, and an assistant's images into image blocks; it drops audio and video parts without a "
            "word, and fails on a file given by id ('Unsupported image type. Expected either image url or "
            "base64 encoded string'). The Bedrock profile refuses those before the request."
        ),
        errors=("Unsupported image type. Expected either image url or base64 encoded string",),
        sources=(
            "https://github.com/BerriAI/litellm/blob/main/litellm/llms/bedrock/chat/converse_transformation.py",
        ),
        litellm="Drops audio and video; raises on a file by id (measured on 1.110.2).",
        evidence="verified",
    ),
    Quirk(
        number=87,
        providers=("cohere",),
        title="litellm's Cohere v1 route sends the last message only",
        constraint=(
            "A Cohere model named with v1/ (cohere/v1/..., cohere_chat/v1/...) goes through litellm's v1 "
            "chat transformation, which computes the chat history, the system preamble and the tool "
            'results, and then sends {"message": <the last text>} alone: everything before the last '
            "message is lost without a word. Every other Cohere model string goes through the v2 "
            "transformation (CohereModelInfo.get_cohere_route), whatever its prefix. The v1 profile refuses "
            "any conversation longer than one message."
        ),
        errors=(),
        sources=("https://github.com/BerriAI/litellm/blob/main/litellm/llms/cohere/chat/transformation.py",),
        litellm="Sends only the last message on the v1 route (measured on 1.106.2 and 1.110.2).",
        evidence="verified",
    ),
)
"""Every row, in number order."""

QUIRKS: Mapping[int, Quirk] = {q.number: q for q in ROWS}
"""The rows, by number."""
