"""Token counts as litellm's ``token_counter`` makes them, counted with tiktoken directly where that is the
tokenizer litellm uses, without importing litellm (2 s and more, and a network fetch of its model map when
``LITELLM_LOCAL_MODEL_COST_MAP`` is unset).

``messages.context.TokenLimitedContext(model=...)`` and the AutoGen client count with
``token_counter(model=..., custom_tokenizer=<litellm's tiktoken tokenizer>, messages=[m])``: litellm's
arithmetic for a message (3 tokens, then each string field's tokens, a ``name`` one more, a tool call's
arguments, a text part's text) over the tiktoken encoding litellm picks for the model's name
(``openai_tokenizer_encoding_name``): ``cl100k_base`` for every model that is not OpenAI's, tiktoken's own
choice for OpenAI's (``o200k_base`` for ``gpt-4o`` and later). ``direct_counter(model)`` does the same
arithmetic itself when it can be sure of litellm's answer and the encoding's file is on this machine
(litellm ships the files of both, which tiktoken reads offline): a message of text and tool calls is
counted here, and anything else (images, files, audio) by litellm, imported then. Where litellm's releases
differ, this follows the one installed (``messages._litellm``: a text in pieces or whole, ``TEXT_IN_PIECES``;
``openai/<name>`` read as its model or as gpt-3.5-turbo, ``OPENAI_PREFIX_COUNTED``).
``tests/test_tokens.py`` holds the counts equal to litellm's over generated conversations and litellm's
whole model map; ``python -m benchmarks context`` times the first count.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from messages._litellm import OPENAI_PREFIX_COUNTED, TEXT_IN_PIECES

if TYPE_CHECKING:
    import tiktoken

    from messages.models import Message

__all__ = ["OVERHEAD", "DirectCounter", "direct_counter", "encoding_name"]

OVERHEAD = 3
"""What ``token_counter(messages=[])`` counts: the reply's priming, and no tools."""

_PER_MESSAGE = 3
_PER_NAME = 1
_CHUNK = 1024  # litellm's TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS: it encodes long texts in pieces this long
_MAX_EXACT = 4_000_000  # litellm's TOKEN_COUNTER_MAX_EXACT_CHARS: beyond it, it extrapolates from samples
_SAMPLES = 16
_ENCODINGS_KNOWN: dict[str, tuple[str, str, str, dict[str, int]]] = {
    # name: (tiktoken's URL for its file, the file's sha256, its pattern, its special tokens), as
    # tiktoken_ext.openai_public builds them (tiktoken 0.14): the encodings are fixed once published.
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|"""
        r"""\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
        {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    ),
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
                r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
                r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    ),
}
_OPENAI_NAME = re.compile(
    r"gpt|chatgpt|davinci|babbage|curie|^ada|^text-|^code-|^o\d|codex|computer-use|omni|ft:|whisper|tts|"
    r"dall-e|sora|realtime|^chat-latest|daybreak"
)
"""A model name that may be (or be listed as) one of OpenAI's: litellm's choice for it depends on its
model map, so this module leaves such a name to litellm unless it is plainly OpenAI's."""
_OTHER_PROVIDERS = frozenset(
    {
        "anthropic", "bedrock", "cohere", "cohere_chat", "deepseek", "fireworks_ai", "gemini", "groq",
        "mistral", "ollama", "ollama_chat", "perplexity", "together_ai", "vertex_ai", "xai", "hosted_vllm",
        "huggingface", "openrouter", "cerebras", "sambanova", "deepinfra", "nvidia_nim", "replicate",
        "watsonx", "databricks", "dashscope", "moonshot", "lm_studio",
    }
)  # fmt: skip
"""litellm providers that serve models other than OpenAI's: a model there whose name is not OpenAI-like is
counted with ``cl100k_base`` (litellm's choice for any model it does not list as OpenAI's)."""
_OTHER_FAMILIES = (
    "claude", "gemini", "gemma", "mistral", "mixtral", "codestral", "llama", "command", "deepseek", "qwen",
    "grok", "phi", "sonar",
)  # fmt: skip
"""Model families that are not OpenAI's, for a model string given without its provider."""
_LOCK = threading.Lock()
_ENCODINGS: dict[str, tiktoken.Encoding | None] = {}


def encoding_name(model: str) -> str | None:
    """The tiktoken encoding litellm's ``token_counter`` uses for ``model`` (with its tiktoken tokenizer),
    when this can say so without litellm's model map: ``cl100k_base`` for a model of another provider than
    OpenAI (or a family of one), tiktoken's own choice for a model of OpenAI's it knows (``o200k_base`` for
    ``gpt-4o``; ``cl100k_base`` for an ``openai/`` name with litellm before 1.109, which counts it as
    gpt-3.5-turbo); ``None`` when unsure (an OpenAI-like name anywhere else, Azure's deployments, a
    fine-tuned model, ``gpt-3.5-turbo-0301``, which litellm prices differently): litellm counts those."""
    provider, _, rest = model.lower().partition("/")
    name = model.rsplit("/", 1)[-1].lower()
    if _OPENAI_NAME.search(name):
        if (rest and provider != "openai") or name.startswith("ft:") or "oss" in name:
            return None
        if rest and not OPENAI_PREFIX_COUNTED.holds():
            return "cl100k_base"  # litellm before 1.109 counts openai/<name> as gpt-3.5-turbo
        if name == "gpt-3.5-turbo-0301":
            return None
        if "gpt-4o" in name:
            return "o200k_base"
        import tiktoken.model

        try:
            return tiktoken.model.encoding_name_for_model(name)
        except KeyError:
            return None
    if rest and provider in _OTHER_PROVIDERS:
        return "cl100k_base"
    if not rest and name.startswith(_OTHER_FAMILIES):
        return "cl100k_base"
    return None


def _bpe_file(name: str) -> Path | None:
    """Where tiktoken's file for the encoding ``name`` is on this machine: tiktoken's cache (its own
    directories), or litellm's copy (it ships both); ``None`` if nowhere (it would be fetched)."""
    url = _ENCODINGS_KNOWN[name][0]
    key = hashlib.sha1(url.encode()).hexdigest()  # tiktoken's cache key
    places = [os.environ.get("TIKTOKEN_CACHE_DIR"), os.environ.get("DATA_GYM_CACHE_DIR")]
    places.append(os.path.join(tempfile.gettempdir(), "data-gym-cache"))
    spec = importlib.util.find_spec("litellm")  # finds the package without importing it
    if spec is not None and spec.submodule_search_locations:
        root = next(iter(spec.submodule_search_locations))
        places.append(os.path.join(root, "litellm_core_utils", "tokenizers"))
    for place in places:
        if place and (path := Path(place) / key).is_file():
            return path
    return None


def _encoding(name: str) -> tiktoken.Encoding | None:
    """The tiktoken encoding ``name`` from its file on this machine (never fetched), once per process."""
    with _LOCK:
        if name not in _ENCODINGS:
            _ENCODINGS[name] = _load(name)
        return _ENCODINGS[name]


def _load(name: str) -> tiktoken.Encoding | None:
    path = _bpe_file(name)
    if path is None:
        return None
    import base64

    import tiktoken

    _, digest, pattern, special = _ENCODINGS_KNOWN[name]
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != digest:
        return None
    ranks = {}
    for line in data.splitlines():  # the .tiktoken format: a base64 token and its rank a line
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=special)


class DirectCounter:
    """litellm's count of one message (``token_counter(messages=[m])`` less the list's ``OVERHEAD``), for
    the messages of text and tool calls; ``None`` for the others (litellm counts those)."""

    def __init__(self, encoding: tiktoken.Encoding, *, pieces: bool = True) -> None:
        self._encode = encoding.encode_ordinary
        self._pieces = pieces

    def text(self, text: str) -> int:
        """The tokens of one string, in pieces as litellm encodes them (sampled past 4,000,000 characters);
        whole, as litellm before 1.99 encodes it, when made with ``pieces=False``
        (``messages._litellm.TEXT_IN_PIECES``)."""
        if not self._pieces:
            return len(self._encode(text))
        if len(text) <= _MAX_EXACT:
            return self._exact(text)
        sample_count = min(_SAMPLES, _MAX_EXACT)
        size = _MAX_EXACT // sample_count
        last = len(text) - size
        samples = [
            text[start : start + size]
            for start in (last * index // max(sample_count - 1, 1) for index in range(sample_count))
        ]
        sampled = sum(len(sample) for sample in samples)
        return round(sum(self._exact(sample) for sample in samples) * len(text) / sampled)

    def _exact(self, text: str) -> int:
        encode = self._encode
        return sum(len(encode(text[start : start + _CHUNK])) for start in range(0, len(text), _CHUNK))

    def dumped(self, m: Mapping[str, Any]) -> int | None:
        """The count of one dumped message, or ``None`` when litellm must count it (media parts)."""
        total = _PER_MESSAGE
        for key, value in m.items():
            if value is None:
                continue
            if key == "tool_calls":
                total += sum(self.text(str(call["function"].get("arguments", ""))) for call in value)
            elif isinstance(value, str):
                total += self.text(value) + (_PER_NAME if key == "name" else 0)
            elif key == "content" and isinstance(value, list):
                for part in value:
                    if not isinstance(part, dict) or part.get("type") != "text":
                        return None
                    if part.get("text"):
                        total += self.text(str(part["text"]))
            elif key == "provider_specific_fields":
                blocks = value.get("compaction_blocks") if isinstance(value, dict) else None
                if blocks:
                    return None  # litellm counts a compaction summary's text: rare, and its to count
        return total

    def __call__(self, message: Message) -> int | None:
        return self.dumped(message.model_dump())


def direct_counter(model: str) -> Callable[[Message], int | None] | None:
    """A counter of ``model``'s messages equal to litellm's, without litellm (see the module docstring);
    ``None`` when this cannot be sure of litellm's encoding or does not have its file."""
    name = encoding_name(model)
    if name is None:
        return None
    encoding = _encoding(name)
    return None if encoding is None else DirectCounter(encoding, pieces=TEXT_IN_PIECES.holds())
