"""The package as a user meets it: what `import messages` costs and pulls in, and its public names."""

from __future__ import annotations

import json
import subprocess
import sys

import messages

DESIGN_NAMES = {
    "SystemMessage",
    "UserMessage",
    "AIMessage",
    "ToolMessage",
    "ToolCall",
    "Message",
    "TextPart",
    "ImagePart",
    "AudioPart",
    "FilePart",
    "load_messages",
    "dump_messages",
    "validate_conversation",
    "repair_conversation",
    "MessagesError",
    "ToolArgumentsError",
    "ConversationError",
    "OrphanToolResultError",
    "UnansweredToolCallError",
    "DuplicateToolCallIdError",
    "EmptyConversationError",
    "ProfileError",
    "UnknownProfileError",
    "Profile",
    "get_profile",
    "register_profile",
    "StoreError",
    "ThreadNotFoundError",
    "StreamAccumulator",
}


def test_import_messages_does_not_import_litellm():
    code = (
        "import sys, json, messages; print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('litellm', 'openai', 'hypothesis', 'httpx'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


def test_import_messages_leaves_the_library_converters_unloaded():
    # messages.convert loads for the Responses converter; LangChain's and pydantic-ai's modules (which
    # build validators at import) only on first use.
    code = (
        "import sys, json, messages; print(json.dumps(sorted(m for m in sys.modules if m in "
        "('messages.convert.langchain', 'messages.convert.pydantic_ai', 'messages.convert.autogen', "
        "'messages.convert.agent_framework', 'messages.convert.llamabot'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []
    from messages.convert import from_langchain, to_pydantic_ai

    assert from_langchain.__module__ == "messages.convert.langchain"
    assert to_pydantic_ai.__module__ == "messages.convert.pydantic_ai"


def test_import_messages_leaves_the_stores_unloaded_and_dir_lists_what_loads_on_first_use():
    code = (
        "import sys, json, messages, messages.convert; print(json.dumps(["
        "'messages.stores' in sys.modules, sorted(set(messages.__all__) - set(dir(messages))), "
        "sorted(set(messages.convert.__all__) - set(dir(messages.convert))), "
        "'messages.stores' in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [False, [], [], False]  # dir() names them without loading them
    from messages import SQLiteThreadStore

    assert SQLiteThreadStore.__module__ == "messages.stores.sqlite"


def test_import_messages_imports_no_framework_and_no_integration():
    code = (
        "import sys, json, messages, messages.convert, messages.context; print(json.dumps(sorted(m for m in "
        "sys.modules if m.split('.')[0] in ('autogen_core', 'autogen_ext', 'autogen_agentchat', 'PIL', "
        "'agent_framework') "
        "or m.startswith('messages.integrations'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


def test_the_autogen_integration_without_autogen_says_how_to_install_it():
    code = "import sys; sys.modules['autogen_core'] = None; import messages.integrations.autogen"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert (
        "ImportError: messages.integrations.autogen needs AutoGen's core package: pip install "
        in result.stderr
    )
    assert "'llm-messages[autogen]'" in result.stderr


def test_the_agent_framework_integration_without_agent_framework_says_how_to_install_it():
    code = "import sys; sys.modules['agent_framework'] = None; import messages.integrations.agent_framework"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert (
        "ImportError: messages.integrations.agent_framework needs Agent Framework's core package: "
        "pip install 'llm-messages[agent-framework]'"
    ) in result.stderr


def test_the_llamabot_integration_without_llamabot_says_how_to_install_it():
    code = "import sys; sys.modules['llamabot'] = None; import messages.integrations.llamabot"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert (
        "ImportError: messages.integrations.llamabot needs llamabot and PocketFlow: pip install "
        "'llm-messages[llamabot]'"
    ) in result.stderr


def test_public_names_are_exported_once_and_sorted():
    # In ruff's isort-style order (RUF022): constants, then classes, then functions.
    def kind(name: str) -> int:
        return 0 if name.isupper() else 1 if name[:1].isupper() else 2

    assert messages.__all__ == sorted(messages.__all__, key=lambda name: (kind(name), name))
    assert len(messages.__all__) == len(set(messages.__all__))
    for name in messages.__all__:
        assert getattr(messages, name) is not None


def test_every_name_design_fixes_is_public():
    assert set(messages.__all__) >= DESIGN_NAMES


def test_errors_subclass_the_matching_builtins():
    assert issubclass(messages.ToolArgumentsError, ValueError)
    assert issubclass(messages.ConversationError, ValueError)
    assert issubclass(messages.UnknownProfileError, KeyError)
    assert issubclass(messages.ThreadNotFoundError, KeyError)
    assert issubclass(messages.MessageTypeError, TypeError)
    for name in messages.__all__:
        value = getattr(messages, name)
        if isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, messages.MessagesError), name
