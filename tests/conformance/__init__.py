"""The conformance suite of the provider profiles (issue 4): the real ``litellm.completion`` against the
loopback stand-in for every route litellm uses, a rule checker per provider family over the native body
litellm sends (each rule citing its quirk, ``messages quirks N``), the provider SDKs' own request types as
oracles, and an extractor per native format that proves no text and no tool result was lost."""
