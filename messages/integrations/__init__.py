"""This package inside other frameworks: each subpackage is one framework, behind its own extra.

=================================  ===============================================================
subpackage                         what it gives the framework
=================================  ===============================================================
``messages.integrations.autogen``  AutoGen model contexts (the four windows) and a model client
                                   through litellm with the provider profiles (``[autogen]``)
``messages.integrations.``         an Agent Framework history provider over the package's thread
``agent_framework``                stores, sync or async (``[agent-framework]``)
``messages.integrations.``         an OpenAI Agents SDK session over the package's thread stores,
``openai_agents``                  sync or async (``[openai-agents]``)
``messages.integrations.``         llamabot's bots on the package's messages: a chat memory over the
``llamabot``                       stores, a ``SimpleBot`` sending the tool-call protocol, a decide
                                   node for ``AgentBot`` (``[llamabot]``)
=================================  ===============================================================

An integration is built on ``messages.convert``, ``messages.context``, ``messages.profiles`` and
``messages.stores``, and nothing below it imports it. Its framework is imported when the subpackage is,
never by ``import messages``; without the extra, importing the subpackage raises ``ImportError`` with the
pip command that installs it.
"""
