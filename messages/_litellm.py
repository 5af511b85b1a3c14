"""What differs between the litellm releases the package supports, answered in one place.

The package takes any litellm from ``FLOOR`` to 2 (pyproject.toml), so that it installs beside the
frameworks that pin litellm themselves (llamabot, google-adk, crewai, ...). litellm's routes and helpers
change between those releases; the package follows the litellm it finds, through this module:

* ``Change``: a behaviour that some supported release has and an older one has not, with the first release
  measured to have it (``since``) and the last measured without it (``before``). Asked where litellm must not
  be imported (a profile's rules, the registry's routes, the token counts made without litellm: importing
  it takes seconds), ``Change.holds()`` reads the installed release from its distribution's metadata, not
  from litellm. Each was measured by sending the same request through each release to the loopback
  stand-ins (``messages.testing``) and calling its own helpers: the suites hold the package to litellm at
  ``FLOOR`` (``constraints-floor.txt``) and at the newest release (``constraints.txt``).
* Where litellm is imported anyway, its behaviour is measured on the spot, once per process:
  ``counts_file_parts`` (does ``token_counter`` take a ``file`` part?), and ``completion`` /
  ``acompletion``, which make a request again with litellm's own placeholder tool when the installed
  release refuses a history with tool calls and no ``tools=`` (Anthropic before 1.85, Bedrock before 1.103;
  later releases add the placeholder, or write the calls as text, themselves).
* ``vertex_api_base``: the address litellm is given for a Vertex AI model served elsewhere (the
  stand-ins), in the one form that every supported release turns into the same URL.

``docs/litellm.md`` ('What differs between litellm releases') lists the changes with what each one means
for a request; the quirk catalog says which releases each of litellm's own quirks was measured on.
"""

from __future__ import annotations

import functools
import importlib.metadata
import re
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "BEDROCK_CACHE_POINTS_GATED",
    "BEDROCK_REDACTED_THINKING",
    "CHANGES",
    "FLOOR",
    "GEMINI_MODEL_MEDIA",
    "MID_SYSTEM_AS_USER",
    "OPENAI_PREFIX_COUNTED",
    "TEXT_IN_PIECES",
    "TOOL_MEDIA_MOVED",
    "VERTEX_GEMMA_MAAS_OPENAI_LIKE",
    "VERTEX_XAI_OPENAI_LIKE",
    "Change",
    "acompletion",
    "completion",
    "counts_file_parts",
    "installed",
    "version_tuple",
    "vertex_api_base",
]

FLOOR: Final = "1.82.2"
"""The oldest litellm the package supports (pyproject.toml's ``litellm>=``), the oldest release on which
every suite passes. Before it, measured: 1.82.1 refuses ``tools=`` for OpenAI's o1 models
(``UnsupportedParamsError``), and 1.82.0 and earlier send Gemini and Vertex AI the function responses of
tool results in a content with no role, which Google refuses ("Please use a valid role: user, model",
litellm#22003; no profile can give litellm's own content a role), so that no conversation with a tool
result gets an answer there."""


def version_tuple(version: str) -> tuple[int, ...]:
    """The release numbers of a version string (``"1.77.2.post1"`` -> ``(1, 77, 2)``).

    Raises:
        ValueError: the string does not start with a number.
    """
    numbers = re.match(r"\d+(?:\.\d+)*", version.strip())
    if numbers is None:
        raise ValueError(f"not a version: {version!r}")
    return tuple(int(n) for n in numbers[0].split("."))


@functools.cache
def installed() -> tuple[int, ...] | None:
    """The installed litellm's release numbers, from its distribution's metadata (litellm is not
    imported); ``None`` when litellm is not installed.

    Raises nothing.
    """
    try:
        return version_tuple(importlib.metadata.version("litellm"))
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return None


@dataclass(frozen=True)
class Change:
    """A behaviour of litellm that the supported releases do not all share."""

    since: str
    """The first release measured to behave so."""
    before: str
    """The last release measured not to (every supported release between the two was not measured)."""
    what: str
    """What litellm does from ``since`` on, and what it did before."""
    quirk: int | None = None
    """The quirk catalog's row it touches, when it has one (``messages quirks N``)."""

    def holds(self) -> bool:
        """Whether the installed litellm behaves so; without litellm installed, as the newest release
        does (what ``pip install llm-messages`` gets).

        Raises nothing.
        """
        found = installed()
        return found is None or found >= version_tuple(self.since)


TOOL_MEDIA_MOVED: Final = Change(
    since="1.98.0",
    before="1.97.0",
    what=(
        "litellm's OpenAI-shaped routes move the images, audio and files of a tool result into a user "
        "message after the results; before, they send them in the tool message, which OpenAI refuses (its "
        "tool messages take text parts only)"
    ),
    quirk=7,
)
"""The OpenAI-shaped profiles (OpenAI, Azure, Groq, xAI, OpenRouter) move them themselves before it."""

MID_SYSTEM_AS_USER: Final = Change(
    since="1.104.0",
    before="1.103.11",
    what=(
        "litellm's Anthropic and Bedrock routes send a system message that comes after the first turn as "
        'a user turn ("Operator note (not from the user): ..."); before, they hoist every system message '
        "into the system prompt, so a conversation that ends on one ends on the turn before it"
    ),
    quirk=19,
)
"""Where the conversation ends as litellm sends it: the rules that want a user turn last (no prefill)
read the list as the installed litellm will send it."""

VERTEX_XAI_OPENAI_LIKE: Final = Change(
    since="1.84.0",
    before="1.83.14",
    what=(
        "litellm sends vertex_ai/xai/... models through its model garden's OpenAI-shaped handler; before, "
        "through its Gemini transformation"
    ),
)
"""Which profile ``vertex_ai/xai/...`` resolves to: the transformation litellm uses for it."""

VERTEX_GEMMA_MAAS_OPENAI_LIKE: Final = Change(
    since="1.89.0",
    before="1.88.6",
    what=(
        "litellm sends vertex_ai/google/gemma-...-maas models through the partner models' OpenAI-shaped "
        "handler; before, through its Gemini transformation"
    ),
)
"""Which profile ``vertex_ai/google/gemma-...`` resolves to: the transformation litellm uses for it."""

TEXT_IN_PIECES: Final = Change(
    since="1.99.0",
    before="1.98.1",
    what=(
        "litellm's token_counter encodes a text in pieces of 1,024 characters, and past 4,000,000 characters "
        "counts 16 samples and scales; before, it encodes the whole text (counts differ by a token or two "
        "where a piece ends inside a word)"
    ),
)
"""How ``messages._tokens`` counts a text, to give litellm's own count without importing it."""

OPENAI_PREFIX_COUNTED: Final = Change(
    since="1.109.0",
    before="1.108.14",
    what=(
        "litellm's token_counter counts an OpenAI model named with its prefix (openai/gpt-4o) with that "
        "model's encoding; before, as gpt-3.5-turbo, with cl100k_base (as any name missing from its list "
        "of OpenAI chat models)"
    ),
)
"""How ``messages._tokens`` picks the encoding of ``openai/...`` names, to give litellm's own count."""

BEDROCK_REDACTED_THINKING: Final = Change(
    since="1.85.0",
    before="1.84.10",
    what=(
        "litellm's Bedrock Converse route no longer sends a redacted thinking block as an empty text block, "
        "which Bedrock refuses (1.85 to 1.106 leave it out, 1.108 on send it as reasoningContent); before, "
        "an empty text block"
    ),
    quirk=48,
)
"""Before it, the Bedrock profile leaves redacted thinking blocks out itself (``RedactedThinking``)."""

BEDROCK_CACHE_POINTS_GATED: Final = Change(
    since="1.101.0",
    before="1.100.5",
    what=(
        "litellm's Bedrock Converse route writes cachePoint blocks only for the models its cost map marks "
        "as caching; before, for every model, and Bedrock refuses them on a model without prompt caching "
        '("You invoked an unsupported model or your request did not allow prompt caching")'
    ),
    quirk=75,
)
"""Before it, the Bedrock profile keeps cache marks only for the Claude models that cache on Bedrock."""

GEMINI_MODEL_MEDIA: Final = Change(
    since="1.109.0",
    before="1.108.14",
    what=(
        "litellm's Gemini and Vertex AI routes send the images, audio and inline files of an assistant turn "
        "as parts of the model turn; before, they drop them without a word"
    ),
    quirk=77,
)
"""Before it, the Gemini and Vertex AI profiles refuse media in an assistant turn rather than lose it."""

CHANGES: Final = (
    VERTEX_XAI_OPENAI_LIKE,
    BEDROCK_REDACTED_THINKING,
    VERTEX_GEMMA_MAAS_OPENAI_LIKE,
    TOOL_MEDIA_MOVED,
    TEXT_IN_PIECES,
    BEDROCK_CACHE_POINTS_GATED,
    MID_SYSTEM_AS_USER,
    OPENAI_PREFIX_COUNTED,
    GEMINI_MODEL_MEDIA,
)
"""Every ``Change`` the package follows, in the order of the releases that made them."""


@functools.cache
def counts_file_parts() -> bool:
    """Whether the installed litellm's ``token_counter`` counts a message with a ``file`` part (since 1.101,
    measured; before, it raises ``ValueError``). Measured once, by asking it (litellm is imported).

    Raises nothing.
    """
    import litellm

    probe = [{"role": "user", "content": [{"type": "file", "file": {"file_id": "file-probe"}}]}]
    try:
        litellm.token_counter(model="gpt-4o-mini", messages=probe)
    except ValueError:
        return False
    return True


_NO_TOOLS: Final = "without `tools=`"
"""What litellm's refusal of tool calls without tools says (its Anthropic and Bedrock routes, before 1.85
and 1.103: "Anthropic doesn't support tool calling without `tools=` param specified")."""


def _with_placeholder_tool(request: dict[str, Any], error: Exception) -> dict[str, Any] | None:
    """``request`` with litellm's own placeholder tool, when ``error`` is litellm refusing a history with tool
    calls for want of ``tools=`` (which it raises before sending anything); else ``None``."""
    from litellm.exceptions import UnsupportedParamsError
    from litellm.utils import add_dummy_tool

    if not isinstance(error, UnsupportedParamsError) or _NO_TOOLS not in str(error):
        return None
    if request.get("tools"):
        return None
    provider = getattr(error, "llm_provider", None) or "anthropic"
    return {**request, "tools": add_dummy_tool(custom_llm_provider=str(provider))}


def completion(**request: Any) -> Any:
    """``litellm.completion(**request)``; where the installed litellm refuses a history with tool calls
    and no ``tools=`` (before it added a placeholder itself), the request again with litellm's own
    placeholder tool, as later releases send it (``add_dummy_tool``).

    Raises:
        Exception: what ``litellm.completion`` raises.
    """
    import litellm
    from litellm.exceptions import UnsupportedParamsError

    try:
        return litellm.completion(**request)
    except UnsupportedParamsError as error:
        again = _with_placeholder_tool(request, error)
        if again is None:
            raise
    return litellm.completion(**again)


async def acompletion(**request: Any) -> Any:
    """``litellm.acompletion(**request)``, made again with litellm's placeholder tool where ``completion``
    would.

    Raises:
        Exception: what ``litellm.acompletion`` raises.
    """
    import litellm
    from litellm.exceptions import UnsupportedParamsError

    try:
        return await litellm.acompletion(**request)
    except UnsupportedParamsError as error:
        again = _with_placeholder_tool(request, error)
        if again is None:
            raise
    return await litellm.acompletion(**again)


def vertex_api_base(url: str, model: str, project: str, location: str) -> str:
    """The ``api_base`` that makes litellm send a Vertex AI model's request (``vertex_project``
    ``project``, ``vertex_location`` ``location``) to the server at ``url``.

    litellm before 1.93 appends ``:generateContent`` (or ``:rawPredict``) to the ``api_base`` it is
    given, and from 1.93 on it joins its own path to a base that has none: a Gemini or Claude model is
    given the whole path of its model (``.../publishers/google/models/gemini-2.5-flash``), which every
    release completes the same way. Other Vertex models get ``url`` itself (the OpenAI-shaped partner
    models, which litellm before 1.93 cannot send to an address with a port at all).

    Raises nothing.
    """
    name = model.split("/", 1)[1] if model.startswith(("vertex_ai/", "vertex_ai_beta/")) else model
    if "/" in name:
        return url
    if name.startswith("claude"):
        publisher = "anthropic"
    elif name.startswith(("gemini", "gemma")):
        publisher = "google"
    else:
        return url
    return f"{url}/v1/projects/{project}/locations/{location}/publishers/{publisher}/models/{name}"
