"""A token-limited window fed 1,000, 10,000 and 100,000 messages one at a time, read after each append.

Ours: ``TokenLimitedContext(8_000, model="gpt-4o-mini")``, counting each message once with litellm's
``token_counter``; and the same window counting ``len(message JSON) // 4`` per message, which shows the
window's own cost without the tokenizer's. The per-message cost should not grow with the size: the
ratio between sizes is printed (1.0x is linear; a window that recounts or rescans the history would
show about 10x per size step). All sizes are timed in the same interleaved rounds (best of 5), the
1,000-message run ten times over per round, so that a drifting machine load does not skew the ratios.

Baselines, on the same conversation and the same 8,000-token limit (measured in the same run):

* litellm ``litellm.utils.trim_messages(dicts, model="gpt-4o-mini", max_tokens=8000)``, which counts with
  the same ``token_counter``;
* LangChain ``langchain_core.messages.trim_messages(messages, max_tokens=8000, strategy="last",
  include_system=True, token_counter=count_tokens_approximately)``, its recommended counter on a hot path
  (about four characters per token), so compare it with our chars/4 row.

Both are functions that trim a whole list in one call and keep nothing between calls. Two fair uses:

* after every append, as a bot pays that trims its history before each model call (what our window
  does). Each call takes a prefix of the conversation; the run's per-message cost is the mean cost of a
  call over prefix sizes 1..n. Running every call is out of reach (litellm takes seconds per call), so it
  is estimated from calls at evenly spaced prefix sizes (the midpoints of equal strata, each call timed
  once); at 1,000 messages LangChain's full run is also timed, to check the estimate;
* once on the whole list: one call on all n messages, divided by n (their best case: a bot that trims once).

Each output is checked with ``protocol_errors`` (a window of ours is valid whenever the history is) and
against the limit: litellm's trim swallows its own exceptions and returns the list untrimmed, which is
reported, for the one call on the whole list and for each sampled call (a baseline that returns its input
untrimmed is a finding, not a crash).

``--quick`` (the smoke run of the test suite) measures 100 and 1,000 messages, once each, with one
sampled litellm call per size and every litellm call stopped at 1 s: a few seconds besides the imports;
its first counts are one round of three cases (``QUICK_FIRST_COUNTS``).

The first count. A bot's first turn pays for the window's first count in a fresh process: for
``TokenLimitedContext(model=...)``, importing the package, loading the tokenizer and counting three
messages. Timed in fresh interpreters (wall time, best of the runs, offline as everywhere here): with a
model whose count this package makes itself with tiktoken (``anthropic/claude-sonnet-4-5``, ``gpt-4``,
``gpt-4o-mini``: ``messages._tokens``), beside the same first count through litellm's ``token_counter``
(what the window did before, and still does for a model whose encoding it cannot be sure of:
``azure/gpt-4o``), and beside ``import messages`` alone.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from benchmarks._conversation import build_conversation
from benchmarks._timing import Table, fmt_time, gc_off, interleaved
from messages import Message, dump_messages, load_messages, protocol_errors
from messages.context import TokenLimitedContext

LIMIT = 8_000
MODEL = "gpt-4o-mini"
OURS = "ours: TokenLimitedContext, litellm counts"


def feed(conversation: list[Message], make: Callable[[], TokenLimitedContext]) -> TokenLimitedContext:
    """Add every message one at a time, reading the window after each: what a bot does."""
    context = make()
    add, read = context.add_message, context.get_messages
    for message in conversation:
        add(message)
        read()
    return context


def feed_times(
    conversation: list[Message], make: Callable[[], TokenLimitedContext], times: int
) -> TokenLimitedContext:
    """``feed`` ``times`` times over (a fresh context each time), so that a short run lasts a while."""
    for _ in range(times):
        context = feed(conversation, make)
    return context


def by_litellm() -> TokenLimitedContext:
    return TokenLimitedContext(LIMIT, model=MODEL)


def by_chars() -> TokenLimitedContext:
    return TokenLimitedContext(LIMIT, message_token_counter=lambda m: len(m.model_dump_json()) // 4)


class CapReached(BaseException):
    """Raised by the timer inside a call that ran past its cap (a BaseException: litellm's trim catches
    and swallows every Exception)."""


def _cap_reached(signum: int, frame: Any) -> None:
    raise CapReached


def timed(fn: Callable[[], Any], cap: float | None = None) -> tuple[float, Any]:
    """One call, timed with the garbage collector off (these calls take up to minutes: no repeats).

    With ``cap``, a call still running after ``cap`` seconds is stopped: the time returned is the cap (a
    lower bound) and the result ``CapReached``.
    """
    previous = signal.signal(signal.SIGALRM, _cap_reached) if cap else None
    start = time.perf_counter()
    try:
        with gc_off():
            if cap:
                signal.setitimer(signal.ITIMER_REAL, cap)
            result = fn()
            return time.perf_counter() - start, result
    except CapReached:
        return cap or 0.0, CapReached
    finally:
        if cap:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def midpoints(size: int, samples: int) -> list[int]:
    """Prefix sizes at the middle of ``samples`` equal strata of 1..size."""
    return [max(1, round(size * (2 * j + 1) / (2 * samples))) for j in range(samples)]


def describe(output: list[dict[str, Any]], size: int) -> str:
    """How many messages a trim kept, whether it fits the limit, and whether it keeps the protocol."""
    import litellm

    tokens = litellm.token_counter(model=MODEL, messages=output)
    errors = protocol_errors(load_messages(output))
    kinds = sorted({type(e).__name__ for e in errors})
    verdict = "valid" if not errors else f"INVALID ({len(errors)}: {', '.join(kinds)})"
    untrimmed = " UNTRIMMED (returned the input)" if len(output) == size and tokens > LIMIT else ""
    return f"{len(output):,} of {size:,} messages, {tokens:,} tokens, {verdict}{untrimmed}"


def main(quick: bool = False) -> None:
    import litellm
    from langchain_core.messages import convert_to_messages, convert_to_openai_messages, trim_messages
    from langchain_core.messages.utils import count_tokens_approximately
    from litellm.utils import trim_messages as litellm_trim

    litellm.suppress_debug_info = True
    litellm.disable_hf_tokenizer_download = True
    # litellm's trim logs a traceback each time it fails on a message it cannot shorten (an image part);
    # count those instead of printing them.
    failures: list[str] = []

    def swallow(record: logging.LogRecord) -> bool:
        failures.append(record.getMessage())
        return False

    logging.getLogger("LiteLLM").addFilter(swallow)

    sizes = [100, 1_000] if quick else [1_000, 10_000, 100_000]
    repeat = 1 if quick else 5
    litellm_samples = 1 if quick else 3
    langchain_samples = 2 if quick else 10
    # A litellm trim can take minutes (it shortens a message at the window's edge by repeated halving and
    # recounting): each litellm call is stopped at this cap and counted at the cap, a lower bound.
    cap = 1.0 if quick else 20.0
    # How many messages each timing of ours feeds (a short conversation is fed several times over).
    appends = 1_000 if quick else 10_000

    def lc_trim(messages: list[Any], k: int) -> list[Any]:
        return trim_messages(
            messages[:k],
            max_tokens=LIMIT,
            strategy="last",
            include_system=True,
            token_counter=count_tokens_approximately,
        )

    def lt_trim(dicts: list[dict[str, Any]], k: int) -> list[dict[str, Any]]:
        return litellm_trim(dicts[:k], model=MODEL, max_tokens=LIMIT)  # type: ignore[no-any-return]

    warm = build_conversation(50)  # load the tokenizer and the lazy modules: not what is measured
    lt_trim(dump_messages(warm), 50)
    lc_trim(convert_to_messages(dump_messages(warm)), 50)
    # Ours at every size in the same rounds (interleaved), so that the ratios between sizes hold while the
    # machine's load drifts; a short run is repeated within a round so that each timing lasts a while.
    conversations = {size: build_conversation(size) for size in sizes}
    runs = {size: max(1, appends // size) for size in sizes}
    fns = {
        f"{size} {counts}": partial(feed_times, conversations[size], make, runs[size])
        for size in sizes
        for counts, make in (("litellm", by_litellm), ("chars", by_chars))
    }
    best = interleaved(fns, repeat=repeat)
    ours_per_message = {
        counts: [best[f"{size} {counts}"] / (size * runs[size]) for size in sizes]
        for counts in ("litellm", "chars")
    }
    outputs: list[str] = []
    untrimmed_calls: list[str] = []
    capped = 0
    for position, size in enumerate(sizes):
        conversation = conversations[size]
        dicts = dump_messages(conversation)
        lc_messages = convert_to_messages(dicts)
        table = Table(f"{size:,} messages, one at a time, window read after each append: cost per message")
        table.add(OURS, ours_per_message["litellm"][position])
        table.add("ours: TokenLimitedContext, chars/4 counts", ours_per_message["chars"][position])
        window = feed(conversation, by_litellm).get_messages()
        outputs.append(f"{size:,}: ours, the last window: {describe(dump_messages(window), size)}")

        notes = []

        def lt_over(k: int, dicts: list[dict[str, Any]] = dicts) -> bool:
            return int(litellm.token_counter(model=MODEL, messages=dicts[:k])) > LIMIT

        def lc_over(k: int, lc_messages: list[Any] = lc_messages) -> bool:
            return int(count_tokens_approximately(lc_messages[:k])) > LIMIT

        trims: list[tuple[str, Callable[[int], Any], int, float | None, Callable[[int], bool]]] = [
            ("litellm trim_messages", partial(lt_trim, dicts), litellm_samples, cap, lt_over),
            ("langchain trim_messages", partial(lc_trim, lc_messages), langchain_samples, None, lc_over),
        ]
        for label, trim, samples, limit, over in trims:
            points = midpoints(size, samples)
            results = [timed(partial(trim, k), limit) for k in points]
            hit = sum(result is CapReached for _, result in results)
            capped += hit
            # A call that returned its whole input although the input is over the limit (by the baseline's
            # own counter) did not trim: litellm's trim does that when it swallows one of its own errors.
            same = [
                k
                for k, (_, result) in zip(points, results, strict=True)
                if result is not CapReached and len(result) == k and over(k)
            ]
            if same:
                untrimmed_calls.append(
                    f"{size:,}: {label}, after every append: {len(same)} of {samples} sampled calls "
                    f"(prefix sizes {', '.join(f'{k:,}' for k in same)}) returned their input untrimmed, "
                    "over the limit"
                )
            mean = sum(seconds for seconds, _ in results) / len(results)
            table.add(f"{label}, after every append (estimated)", mean)
            note = (
                f"{label} after every append: mean of {samples} calls at prefix sizes "
                f"{', '.join(f'{k:,}' for k in points)}"
            )
            if hit:
                note += f" ({hit} stopped at the {cap:.0f} s cap: a lower bound)"
            notes.append(f"{note}; a full run would take about {_duration(mean * size)}")
            seconds, output = timed(partial(trim, size), limit)
            table.add(f"{label}, once on the whole list", seconds / size)
            name = label.split()[0]
            if output is CapReached:
                capped += 1
                outputs.append(f"{size:,}: {name}, once: stopped at the {cap:.0f} s cap")
                continue
            if name == "langchain":
                output = convert_to_openai_messages(output)
            outputs.append(f"{size:,}: {name}, once: {describe(output, size)}")
        if size == 1_000 and not quick:
            start = time.perf_counter()
            for k in range(1, size + 1):
                lc_trim(lc_messages, k)
            measured = (time.perf_counter() - start) / size
            notes.append(
                f"check of the estimate: langchain's full run of {size:,} calls took "
                f"{fmt_time(measured).strip()} per message"
            )
        table.show(OURS, notes=notes)

    print("\n== growth of our per-message cost with the size (1.00x is linear; quadratic would be ~10x)")
    for name, values in ours_per_message.items():
        steps = ", ".join(
            f"{sizes[i]:,} -> {sizes[i + 1]:,}: {values[i + 1] / values[i]:.2f}x"
            for i in range(len(values) - 1)
        )
        per = " / ".join(fmt_time(v).strip() for v in values)
        print(f"  {name + ' counts':<15} {per} per message;  {steps}")
    print("\n== what each trim returned (our last window; each baseline's one trim of the whole list)")
    for line in outputs + untrimmed_calls:
        print(f"  {line}")
    if failures:
        print(
            f"  litellm's trim_messages raised and swallowed {len(failures)} errors in this run (last: "
            f"{failures[-1][:100]!r}); each time it returned its input untrimmed"
        )
    if capped:
        print(f"  {capped} litellm calls were stopped at the {cap:.0f} s cap")
    show_first_counts(1 if quick else 3, warm_up=not quick, names=QUICK_FIRST_COUNTS if quick else None)


FIRST_COUNT = """import time
t = time.perf_counter()
from messages import AIMessage, UserMessage
{body}
print(time.perf_counter() - t)"""

FIRST_COUNTS = {
    "import messages alone": "",
    "ours, anthropic/claude-sonnet-4-5 (tiktoken, cl100k_base)": (
        "from messages.context import TokenLimitedContext\n"
        "w = TokenLimitedContext(8000, model='anthropic/claude-sonnet-4-5')\n"
        "w.add_message(UserMessage(content='Weather in Paris?'))\n"
        "w.add_message(AIMessage(content='Sunny.'))\nw.add_message(UserMessage(content='And Oslo?'))\n"
        "assert len(w.get_messages()) == 3"
    ),
    "ours, gpt-4 (tiktoken, cl100k_base)": (
        "from messages.context import TokenLimitedContext\n"
        "w = TokenLimitedContext(8000, model='gpt-4')\n"
        "w.add_message(UserMessage(content='Weather in Paris?'))\n"
        "assert len(w.get_messages()) == 1"
    ),
    "ours, gpt-4o-mini (tiktoken, o200k_base)": (
        "from messages.context import TokenLimitedContext\n"
        "w = TokenLimitedContext(8000, model='gpt-4o-mini')\n"
        "w.add_message(UserMessage(content='Weather in Paris?'))\n"
        "assert len(w.get_messages()) == 1"
    ),
    "ours, azure/gpt-4o (litellm counts: an Azure deployment's encoding is litellm's to say)": (
        "from messages.context import TokenLimitedContext\n"
        "w = TokenLimitedContext(8000, model='azure/gpt-4o')\n"
        "w.add_message(UserMessage(content='Weather in Paris?'))\n"
        "assert len(w.get_messages()) == 1"
    ),
    "litellm.token_counter, anthropic/claude-sonnet-4-5": (
        "import litellm\nfrom litellm.utils import _return_openai_tokenizer\n"
        "m = 'anthropic/claude-sonnet-4-5'\n"
        "litellm.token_counter(model=m, custom_tokenizer=_return_openai_tokenizer(m), "
        "messages=[UserMessage(content='Weather in Paris?').model_dump()])"
    ),
}
LITELLM_FIRST = "litellm.token_counter, anthropic/claude-sonnet-4-5"
QUICK_FIRST_COUNTS = (
    "import messages alone",
    "ours, anthropic/claude-sonnet-4-5 (tiktoken, cl100k_base)",
    LITELLM_FIRST,
)
"""The smoke run's first counts: one of each kind (a fresh interpreter that imports litellm costs seconds)."""


def first_count_times(
    runs: int, *, warm_up: bool = True, names: tuple[str, ...] | None = None
) -> dict[str, float]:
    """The best wall time, in a fresh interpreter each, from the first import to the first count (after a
    first, unmeasured round that writes the byte-code caches, unless ``warm_up`` is false: the smoke run's
    single round, which the suite's set-up has compiled already), for every case or those ``names``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    cases = {name: FIRST_COUNTS[name] for name in (FIRST_COUNTS if names is None else names)}
    best = dict.fromkeys(cases, float("inf"))
    unmeasured = 1 if warm_up else 0
    for attempt in range(unmeasured + runs):
        for name, body in cases.items():
            out = subprocess.run(
                [sys.executable, "-c", FIRST_COUNT.format(body=body)],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            if attempt >= unmeasured:
                best[name] = min(best[name], float(out.stdout.strip().splitlines()[-1]))
    return best


def show_first_counts(runs: int, *, warm_up: bool = True, names: tuple[str, ...] | None = None) -> None:
    table = Table("the first count in a fresh process: import, tokenizer, three messages (wall time)")
    for name, seconds in first_count_times(runs, warm_up=warm_up, names=names).items():
        table.add(name, seconds)
    table.show(LITELLM_FIRST)


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} hours"
    if seconds >= 60:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds:.1f} s"
