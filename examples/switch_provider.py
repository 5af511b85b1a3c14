"""One conversation, four providers: switch ``model=`` mid-conversation and change nothing else.

The chat starts on OpenAI, continues on Gemini (whose tool-call ids carry thought signatures, and whose
reasoning is signed), then on Mistral (which takes only 9-alphanumeric ids and rejects reasoning fields),
then on Anthropic (which rejects other providers' signatures and ids outside ``[a-zA-Z0-9_-]``). Each hop
sends ``dump_messages(conversation, model=model)``: the provider profile rewrites ids (the same way on the
call and its result), keeps signed reasoning for the provider that signed it, and drops what the next
provider rejects. For each hop the example prints what litellm alone would have sent wrong, by rule and
quirk (``messages quirks N``), and checks that nothing is left after the profile.

    python examples/switch_provider.py      # offline: each provider's API stood in for on 127.0.0.1

Offline, the stand-in answers in each provider's own wire format (Anthropic messages, Gemini
generateContent, ...), and the real ``litellm.completion`` translates both ways.
"""

from __future__ import annotations

import os
import sys
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tool_loop import TOOLS, run_tool, transcript

from messages import (
    AIMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    dump_messages,
    get_profile,
)
from messages.testing import StandInServer

# Each hop: the model, the user's question, and what the stand-in "model" answers on that provider: a
# tool call (with the reasoning and signature that provider would attach), then the answer.
HOPS: list[tuple[str, str, AIMessage, str]] = [
    (
        "openai/gpt-4o-mini",
        "What's the weather in Paris?",
        AIMessage(
            tool_calls=[
                ToolCall(id="call_Ab12Cd34Ef56Gh78Ij90Kl", name="get_weather", arguments={"city": "Paris"})
            ]
        ),
        "Light rain in Paris, 14 °C.",
    ),
    (
        "gemini/gemini-2.5-flash",
        "And in Tokyo?",
        AIMessage(
            reasoning_content="The user wants Tokyo now; call the weather tool.",
            tool_calls=[
                ToolCall(
                    id="unused-gemini-mints-its-own",
                    name="get_weather",
                    arguments={"city": "Tokyo"},
                    provider_specific_fields={"thought_signature": "Q2hlY2sgVG9reW8gbmV4dA=="},
                )
            ],
        ),
        "Clear in Tokyo, 22 °C.",
    ),
    (
        "mistral/mistral-large-latest",
        "Oslo?",
        AIMessage(tool_calls=[ToolCall(id="Xy7Kq2Lm9", name="get_weather", arguments={"city": "Oslo"})]),
        "Snow in Oslo, -3 °C.",
    ),
    (
        "anthropic/claude-sonnet-4-5",
        "Finally, Lima. Which of the four is warmest?",
        AIMessage(
            reasoning_content="Lima is the last city; then compare all four.",
            tool_calls=[
                ToolCall(id="toolu_01A09q90qw90lq917835lq9", name="get_weather", arguments={"city": "Lima"})
            ],
        ),
        "Lima: overcast, 19 °C. Tokyo is the warmest at 22 °C.",
    ),
]


def hop(
    server: StandInServer,
    conversation: list[Message],
    model: str,
    question: str,
    call: AIMessage,
    answer: str,
) -> None:
    """One user turn on ``model``: a tool call, its result, the answer."""
    import litellm

    replies = iter([call, AIMessage(content=answer)])
    server.responder = lambda body: next(replies)
    conversation.append(UserMessage(content=question))
    profile = get_profile(model)
    alone = profile.check(dump_messages(conversation))
    print(f"\n== {model} (profile {profile.name})")
    if alone:
        print(f"   litellm alone would send {len(alone)} problem(s):")
        for violation in alone:
            print(f"     {violation}")
    plain, sent = dump_messages(conversation), dump_messages(conversation, model=model)
    print(f"   with the profile: {_changes(plain, sent)}; check() finds nothing left to fix")
    while True:
        assert not [v for v in profile.check(sent) if v.fixable]
        response = litellm.completion(
            model=model, messages=sent, tools=TOOLS, **server.completion_kwargs(model)
        )
        reply = AIMessage.from_litellm(response)
        conversation.append(reply)
        if not reply.tool_calls:
            break
        conversation.extend(ToolMessage.for_call(c, run_tool(c)) for c in reply.tool_calls)
        sent = dump_messages(conversation, model=model)


def _changes(plain: list[dict[str, Any]], sent: list[dict[str, Any]]) -> str:
    """What the profile changed, counted by comparing the two lists."""
    ids = {
        (c["id"], s["id"])
        for p, q in zip(plain, sent, strict=False)
        for c, s in zip(p.get("tool_calls", []), q.get("tool_calls", []), strict=False)
        if c["id"] != s["id"]
    }
    dropped = sorted({k for p, q in zip(plain, sent, strict=False) for k in p if k not in q})
    parts = [f"{len(ids)} tool-call id(s) rewritten (results alike)"] if ids else []
    parts += [f"keys dropped: {', '.join(dropped)}"] if dropped else []
    if len(sent) != len(plain):
        parts.append(f"{len(plain)} messages sent as {len(sent)}")
    return "; ".join(parts) or "nothing to change"


def main() -> int:
    conversation: list[Message] = [SystemMessage(content="You are a concise assistant with a weather tool.")]
    with StandInServer() as server:
        for model, question, call, answer in HOPS:
            hop(server, conversation, model, question, call, answer)
    print("\n" + transcript(conversation))
    providers = {m.provider for m in conversation if isinstance(m, AIMessage) and m.provider}
    print(f"\nsigned reasoning kept in history from: {sorted(providers)}; {len(conversation)} messages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
