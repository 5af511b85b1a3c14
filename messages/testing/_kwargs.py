"""How to point ``litellm.completion`` at a stand-in server for a given model."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from messages._litellm import vertex_api_base

__all__ = ["completion_kwargs", "vertex_credentials"]


def completion_kwargs(url: str, model: str) -> dict[str, Any]:
    """The keyword arguments that make ``litellm.completion(model=model, ...)`` talk to the stand-in at
    ``url`` instead of the provider: its address in the form that provider's route wants, fake keys, no
    retries. Nothing here is secret or reaches the network."""
    from messages.profiles import provider_of

    provider, _ = provider_of(model)
    base: dict[str, Any] = {"num_retries": 0, "timeout": 30}
    if provider == "cohere":
        return {**base, "api_base": url + "/v2/chat", "api_key": "stand-in-key"}
    if provider == "bedrock":
        return {
            **base,
            "aws_bedrock_runtime_endpoint": url,
            "aws_access_key_id": "AKIDSTANDIN",
            "aws_secret_access_key": "stand-in-secret",
            "aws_region_name": "us-east-1",
        }
    if provider == "vertex_ai":
        project, location = "stand-in-project", "us-central1"
        return {
            **base,
            "api_base": vertex_api_base(url, model, project, location),
            "vertex_credentials": vertex_credentials(url),
            "vertex_project": project,
            "vertex_location": location,
        }
    if provider == "azure":
        return {**base, "api_base": url, "api_key": "stand-in-key", "api_version": "2024-10-21"}
    return {**base, "api_base": url, "api_key": "stand-in-key"}


@cache
def _throwaway_key() -> str:
    # A fresh key that signs nothing real: google-auth needs a service account's private key to build the
    # JWT it trades for a token at the stand-in's /token route.
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def vertex_credentials(url: str) -> str:
    """Service-account credentials whose ``token_uri`` is the stand-in (``authorized_user`` credentials
    cannot be pointed elsewhere: google-auth overrides their token_uri)."""
    return json.dumps(
        {
            "type": "service_account",
            "project_id": "stand-in-project",
            "private_key_id": "stand-in",
            "private_key": _throwaway_key(),
            "client_email": "stand-in@stand-in-project.iam.gserviceaccount.com",
            "client_id": "1",
            "token_uri": url + "/token",
        }
    )
