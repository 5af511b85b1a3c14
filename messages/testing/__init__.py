"""A loopback stand-in for a provider's HTTP API, for offline tests, demos and benchmarks.

``StandInServer`` listens on 127.0.0.1, answers the routes litellm calls as the real provider would
(status, JSON body, server-sent events when the request streams), and records every request body, so a
test can read exactly what litellm put on the wire. What the "model" says is decided by a responder: a
function from the request body to the ``AIMessage`` to send back.

```python
import litellm
from messages import AIMessage
from messages.testing import StandInServer, scripted

with StandInServer(scripted(AIMessage(content="hi"))) as server:
    response = litellm.completion(
        model="openai/gpt-4o-mini",
        messages=[{"role": "user", "content": "Hello"}],
        **server.completion_kwargs("openai/gpt-4o-mini"),  # api_base, a fake key
    )
    assert server.last_body()["messages"] == [{"role": "user", "content": "Hello"}]
assert AIMessage.from_litellm(response).content == "hi"
```

Routes (all served by default): OpenAI-shape chat completions (OpenAI, Mistral, Groq, DeepSeek, xAI,
OpenRouter, Together, ...), the OpenAI Responses API, Anthropic messages, Gemini and Vertex AI
generateContent (with the OAuth ``/token`` endpoint of Vertex service accounts), Bedrock converse and
converse-stream, Ollama ``/api/chat`` and ``/api/generate``, Cohere v2 chat. Each turns the responder's
``AIMessage`` into that API's native reply, streamed when the request asks for a stream.
"""

from messages.testing._anthropic import AnthropicMessagesRoute, AnthropicStreamRoute
from messages.testing._bedrock import BedrockConverseRoute
from messages.testing._cohere import CohereChatRoute
from messages.testing._gemini import GeminiRoute, GeminiStreamRoute, OAuthTokenRoute
from messages.testing._ollama import OllamaRoute
from messages.testing._openai import OpenAIChatRoute
from messages.testing._responses import OpenAIResponsesRoute
from messages.testing._route import Responder, Route
from messages.testing._server import Recorded, StandInServer, scripted

__all__ = [
    "AnthropicMessagesRoute",
    "AnthropicStreamRoute",
    "BedrockConverseRoute",
    "CohereChatRoute",
    "GeminiRoute",
    "GeminiStreamRoute",
    "OAuthTokenRoute",
    "OllamaRoute",
    "OpenAIChatRoute",
    "OpenAIResponsesRoute",
    "Recorded",
    "Responder",
    "Route",
    "StandInServer",
    "scripted",
]
