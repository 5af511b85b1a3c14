"""``DecideNode``: the decision step of llamabot's ``AgentBot`` (and ``AsyncAgentBot``), keeping the
conversation as the tool-call protocol has it, in a thread of this package's stores.

llamabot's ``AgentBot`` runs a PocketFlow graph: a decide node picks a tool, the tool's node runs it and
appends its result to ``shared["memory"]``, a list of strings, then loops back. Its own ``DecideNode``
sends that list as user messages ("Chosen Tool: add", then the raw result), so no ``tool_calls``,
``tool_call_id`` or ``role: tool`` ever reaches the provider, and the list grows without a window. This
node takes its place (``AgentBot(tools=[...], decide_node=DecideNode(memory))``) and keeps, in the
memory's thread, what happened: the user's query as a user message, the model's reply with its
``tool_calls``, each tool's result as a ``ToolMessage`` answering its call by id. Each decision sends the
system prompt and what the memory's window keeps of the thread (``ThreadStoreChatMemory.read``: whole
exchanges, compacted with a compactor), dumped with the model's profile (``dump_messages``).

What the node reads of ``shared`` (llamabot's graph is unchanged): the entries appended to
``shared["memory"]`` since its last step, and ``shared["execution_history"]``, whose newest entry says
whether a tool ran since (a tool's node appends one entry to each). The first new entry after a tool ran
is that tool's result; the others are queries of a new run (``AgentBot.__call__`` appends its query before
running the graph). Its own bookkeeping is kept in ``shared[STATE_KEY]``.

The decision, as llamabot's node makes it: the model is made to call a tool (``tool_choice="required"``;
``"auto"`` for Ollama); a reply with several calls runs them one after the other, one per step, without
asking the model again until the last has its result; a reply of text without calls is routed to
``respond_to_user`` with that text; past ``max_iterations`` decisions in a run (counted per run, from the
run's query), ``respond_to_user`` ends the run with llamabot's words, which are stored as the assistant's
reply. A call whose result never came (its tool raised, or a terminal tool ended the run before it) is
answered, when the next query comes, with ``messages.protocol.MISSING_RESULT``: the thread always keeps
the protocol, in this process or in the next one that goes on with it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from llamabot.components.pocketflow import DecideNode as LlamabotDecideNode
from llamabot.recorder import Span, get_current_span

from messages.errors import InvalidArgumentError
from messages.integrations.llamabot._bots import AsyncSimpleBot, SimpleBot
from messages.integrations.llamabot._memory import ThreadStoreChatMemory
from messages.models import AIMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage
from messages.protocol import MISSING_RESULT

__all__ = ["STATE_KEY", "DecideNode"]

STATE_KEY = "messages.integrations.llamabot"
"""The key of PocketFlow's ``shared`` dict under which the node keeps its bookkeeping."""

TERMINAL_TOOL = "respond_to_user"
"""The tool llamabot's agents answer the user with, and end a run with."""

_FORCED = "_force_terminate"  # what llamabot's DecideNode.prep sets in shared past max_iterations


class _State:
    """The node's bookkeeping in ``shared``: how much of ``shared["memory"]`` it has read, the newest
    entry of ``shared["execution_history"]`` it has seen, the call whose tool it routed to, the calls of
    the reply still to run, and whether the next tool run answers no call (a ``respond_to_user`` the node
    routed to itself, whose text is stored already)."""

    def __init__(self, shared: dict[str, Any]) -> None:
        kept = shared.setdefault(STATE_KEY, {})
        self.kept: dict[str, Any] = kept
        kept.setdefault("seen", 0)
        kept.setdefault("last_run", None)
        kept.setdefault("routed", None)
        kept.setdefault("queued", [])
        kept.setdefault("skip", False)

    def new_entries(self, shared: dict[str, Any]) -> tuple[Any, list[Any]]:
        """The result of the tool that ran since the last step (``_NO_RUN`` when none did) and the queries
        that came after it, read once."""
        entries = list(shared.get("memory", [])[self.kept["seen"] :])
        self.kept["seen"] = len(shared.get("memory", []))
        history = shared.get("execution_history") or []
        newest = history[-1] if history else None
        ran = newest is not None and newest is not self.kept["last_run"]
        self.kept["last_run"] = newest
        if ran and entries:
            return entries[0], entries[1:]
        return _NO_RUN, entries


_NO_RUN = object()


def _content(value: Any) -> str:
    """A tool's result (or a query) as a message's text: a string as it is, else its JSON, else ``str``."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _call_of(data: dict[str, Any]) -> ToolCall:
    return ToolCall.model_validate(data)


class DecideNode(LlamabotDecideNode):  # type: ignore[misc]
    """llamabot's ``DecideNode``, keeping the agent's conversation in ``memory``'s thread as the tool-call
    protocol has it (see the module docstring): give it to ``AgentBot(decide_node=...)`` or
    ``AsyncAgentBot(decide_node=...)``, which set its ``tools``.

    Args:
        memory: The thread the agent's conversation is kept in, and the window each decision sends.
        tools: The tools (llamabot ``@tool`` functions); ``AgentBot`` sets them.
        system_prompt: The system prompt of each decision; llamabot's ``decision_bot_system_prompt``
            when ``None``.
        model_name: The litellm model that decides.
        max_iterations: The most decisions in one run before ``respond_to_user`` ends it (``None``: no
            limit).
        completion_kwargs: More keyword arguments of ``litellm.completion`` (``api_base``, ...).

    Raises:
        InvalidArgumentError: ``memory`` is not a ``ThreadStoreChatMemory``.

    Examples:
        >>> from llamabot import AgentBot
        >>> from messages import InMemoryThreadStore
        >>> from messages.integrations.llamabot import ThreadStoreChatMemory
        >>> memory = ThreadStoreChatMemory(InMemoryThreadStore(), "agent-1")
        >>> decide = DecideNode(memory, model_name="openai/gpt-4o-mini")
        >>> agent = AgentBot(tools=[], decide_node=decide)
        >>> agent.decide_node.memory is memory
        True
    """

    def __init__(
        self,
        memory: ThreadStoreChatMemory,
        tools: Sequence[Any] = (),
        system_prompt: str | None = None,
        model_name: str = "gpt-4.1",
        max_iterations: int | None = None,
        **completion_kwargs: Any,
    ) -> None:
        if not isinstance(memory, ThreadStoreChatMemory):
            raise InvalidArgumentError(
                f"DecideNode(): memory is a ThreadStoreChatMemory, not a {type(memory).__name__}",
                argument="memory",
            )
        if system_prompt is None:
            from llamabot.prompt_library.agentbot import decision_bot_system_prompt

            made = decision_bot_system_prompt()
            system_prompt = made if isinstance(made, str) else made.content
        super().__init__(
            list(tools),
            system_prompt,
            model_name,
            max_iterations,
            **completion_kwargs,
        )
        self.memory = memory
        """The thread the agent's conversation is kept in."""

    # -- PocketFlow's steps --------------------------------------------------------------------------------

    def prep(self, shared: dict[str, Any]) -> Any:
        """Count this decision in the run (a new query starts a new count), then llamabot's ``prep``:
        past ``max_iterations`` it flags the run for termination.

        Args:
            shared: PocketFlow's shared store of the run (llamabot's ``memory``, ``iteration_count``, ...).

        Returns:
            What llamabot's ``prep`` returns: the shared store, which ``exec`` is given.

        Raises nothing.
        """
        state = _State(shared)
        seen = state.kept["seen"]
        entries = len(shared.get("memory", [])) - seen
        history = shared.get("execution_history") or []
        ran = bool(history) and history[-1] is not state.kept["last_run"]
        if entries > (1 if ran else 0):  # a query came: a new run
            shared["iteration_count"] = 0
            shared.pop(_FORCED, None)
        return super().prep(shared)

    def exec(self, prep_res: dict[str, Any]) -> str:
        """Store what happened since the last decision, ask the model (unless calls of its last reply are
        still to run), store its reply; the name of the tool to run next, its arguments in
        ``shared["func_call"]``.

        Args:
            prep_res: what ``prep`` returned (the run's shared store).

        Returns:
            The name of the tool to run next (``respond_to_user`` when the model answered with text).

        Raises:
            ToolArgumentsError: the model's arguments for the call are not a JSON object (a ``ValueError``,
                as llamabot's node raises).
            ValueError: the model replied with neither a call nor text.
            RuntimeError: ``max_iterations`` is exceeded and there is no ``respond_to_user`` tool.

        And what ``ThreadStoreChatMemory`` and ``litellm.completion`` raise (as ``SimpleBot`` does).
        """
        with self._decision_span(prep_res) as span:
            state = _State(prep_res)
            result, queries = state.new_entries(prep_res)
            opened = self.memory._open_calls() if queries else []
            new = self._news(state, result, queries, opened)
            forced = self._forced(state, prep_res, new, span)
            if forced is None and not state.kept["queued"]:
                if new:
                    self.memory.append(new)
                reply = self._bot(SimpleBot)._send(self._conversation(self.memory.read()))
                new = [reply]
                forced = self._route(state, prep_res, reply, span)
            if forced is not None:
                self.memory.append(new)
                return forced
            answered: list[Message] = []
            try:
                name, answered = self._dispatch(state, prep_res, span)
            finally:  # what happened is stored even when the call's arguments cannot be read
                if new or answered:
                    self.memory.append([*new, *answered])
            return name

    async def aexec(self, prep_res: dict[str, Any]) -> str:
        """``exec``, awaited (``AsyncAgentBot``): the memory's async methods and ``litellm.acompletion``.

        Args:
            prep_res: what ``prep`` returned (the run's shared store).

        Returns:
            The name of the tool to run next.

        Raises what ``exec`` raises.
        """
        with self._decision_span(prep_res) as span:
            state = _State(prep_res)
            result, queries = state.new_entries(prep_res)
            opened = await self.memory._aopen_calls() if queries else []
            new = self._news(state, result, queries, opened)
            forced = self._forced(state, prep_res, new, span)
            if forced is None and not state.kept["queued"]:
                if new:
                    await self.memory.aappend(new)
                bot = self._bot(AsyncSimpleBot)
                reply = await bot._asend(self._conversation(await self.memory.aread()))
                new = [reply]
                forced = self._route(state, prep_res, reply, span)
            if forced is not None:
                await self.memory.aappend(new)
                return forced
            answered: list[Message] = []
            try:
                name, answered = self._dispatch(state, prep_res, span)
            finally:
                if new or answered:
                    await self.memory.aappend([*new, *answered])
            return name

    def post(self, shared: dict[str, Any], prep_res: Any, exec_res: str) -> str:
        """Route to the tool ``exec`` chose (llamabot's node also appends "Chosen Tool: ..." to
        ``shared["memory"]``; this one keeps the choice in the thread, as the model's call).

        Args:
            shared: PocketFlow's shared store of the run (not changed).
            prep_res: what ``prep`` returned (not read).
            exec_res: the tool ``exec`` chose.

        Returns:
            ``exec_res``: PocketFlow follows the edge of that name to the tool's node.

        Raises nothing.
        """
        return exec_res

    # -- the steps' parts -----------------------------------------------------------------------------

    def _decision_span(self, prep_res: dict[str, Any]) -> Any:
        """The span of one decision, as llamabot's node opens it."""
        current = get_current_span()
        iteration = prep_res.get("iteration_count", 0)
        if current:
            return current.span("decision", iteration=iteration, model=self.model_name)
        return Span("decision", trace_id=prep_res.get("trace_id"), iteration=iteration, model=self.model_name)

    def _bot(self, kind: type[SimpleBot] | type[AsyncSimpleBot]) -> Any:
        bot = kind(
            self.system_prompt,
            model_name=self.model_name,
            stream_target="none",
            **self.completion_kwargs,
        )
        bot.tools = [tool.json_schema for tool in self.tools]
        ollama = self.model_name.startswith(("ollama/", "ollama_chat/"))
        bot.tool_choice = "auto" if ollama else "required"  # Ollama refuses "required" (llamabot's rule)
        return bot

    def _conversation(self, history: list[Message]) -> list[Message]:
        return [SystemMessage(content=self.system_prompt), *history]

    def _news(self, state: _State, result: Any, queries: list[Any], opened: list[str]) -> list[Message]:
        """What happened since the last step, as messages: the result of the tool that ran (unless it
        answers no call), then, when queries came, a result for each call left without one and the
        queries."""
        kept = state.kept
        new: list[Message] = []
        routed = kept["routed"]
        if result is not _NO_RUN:
            if kept["skip"]:
                kept["skip"] = False
            elif routed is not None:
                new.append(ToolMessage(tool_call_id=routed["id"], content=_content(result)))
            kept["routed"] = None
        if queries:
            answered = {m.tool_call_id for m in new if isinstance(m, ToolMessage)}
            new.extend(
                ToolMessage(tool_call_id=call_id, content=MISSING_RESULT)
                for call_id in opened
                if call_id not in answered
            )
            kept["routed"], kept["queued"], kept["skip"] = None, [], False
            new.extend(UserMessage(content=_content(query)) for query in queries)
        return new

    def _terminal(self) -> bool:
        return any(getattr(tool, "func", tool).__name__ == TERMINAL_TOOL for tool in self.tools)

    def _forced(self, state: _State, shared: dict[str, Any], new: list[Message], span: Any) -> str | None:
        """Past ``max_iterations``: the calls still to run answered as not run, llamabot's words stored as
        the reply and sent to ``respond_to_user``."""
        if not shared.get(_FORCED, False):
            return None
        if not self._terminal():
            raise RuntimeError(
                f"Max iterations ({self.max_iterations}) exceeded and respond_to_user tool not found. Cannot "
                "force termination."
            )
        text = (
            f"Maximum iteration limit ({self.max_iterations}) reached. Terminating execution to prevent "
            "infinite loop."
        )
        kept = state.kept
        pending = [*([kept["routed"]] if kept["routed"] else []), *kept["queued"]]
        new.extend(ToolMessage(tool_call_id=call["id"], content=MISSING_RESULT) for call in pending)
        new.append(AIMessage(content=text))
        kept["routed"], kept["queued"], kept["skip"] = None, [], True
        shared["func_call"] = {"response": text}
        span["forced_termination"] = True
        span.log("forced_termination", reason="max_iterations_exceeded")
        return TERMINAL_TOOL

    def _route(self, state: _State, shared: dict[str, Any], reply: AIMessage, span: Any) -> str | None:
        """Queue the reply's calls; a reply of text alone goes to ``respond_to_user`` (``None``: calls to
        run)."""
        if reply.tool_calls:
            state.kept["queued"] = [call.model_dump(mode="json") for call in reply.tool_calls]
            return None
        text = reply.content if isinstance(reply.content, str) else ""
        if not text:
            raise ValueError(f"No tool calls and no content from model: {self.model_name}.")
        state.kept["skip"] = True
        shared["func_call"] = {"response": text}
        span["auto_terminated"] = True
        span.log("auto_terminated", reason="model_returned_text_without_tool_call")
        return TERMINAL_TOOL

    def _dispatch(self, state: _State, shared: dict[str, Any], span: Any) -> tuple[str, list[Message]]:
        """Route to the next queued call: its arguments in ``shared["func_call"]``, its name returned, with
        its result when it is known before it runs: llamabot's ``respond_to_user`` returns its
        ``response``, and ends the run, after which no step of this node would store it."""
        kept = state.kept
        data = kept["queued"].pop(0)
        kept["routed"] = data
        call = _call_of(data)
        span["chosen_tool"] = call.name
        span.log("tool_selected", tool_name=call.name)
        arguments = call.parse_arguments()
        shared["func_call"] = arguments
        answered: list[Message] = []
        response = arguments.get("response")
        if call.name == TERMINAL_TOOL and self._own_terminal() and isinstance(response, str):
            answered.append(ToolMessage(tool_call_id=call.id, content=response))
            kept["routed"], kept["skip"] = None, True
        return call.name, answered

    def _own_terminal(self) -> bool:
        """Whether this agent's ``respond_to_user`` is llamabot's own (it returns its argument)."""
        from llamabot.components.tools import respond_to_user

        own = getattr(respond_to_user, "func", respond_to_user)
        return any(getattr(tool, "func", tool) is own for tool in self.tools)
