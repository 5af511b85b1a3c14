"""The documentation site's address, and the link to a quirk's entry on it: what errors print beside a
quirk's number. A module of its own, importing nothing, so that the rules can cite a page without importing
the catalog (``messages.quirks`` reads the profiles)."""

from __future__ import annotations

from typing import Final

__all__ = ["DOCS_URL", "quirk_url"]

DOCS_URL: Final = "https://llm-messages.github.io/llm-messages/"
"""The documentation site (pyproject's ``Documentation`` URL, mkdocs.yml's ``site_url``)."""


def quirk_url(number: int) -> str:
    """The address of quirk ``number``'s entry on the documentation site (``DOCS_URL``): the link that
    errors and ``messages quirks`` print beside a quirk's number. Made without reading the catalog.

    Args:
        number: a row of the quirk catalog.

    Returns:
        ``https://.../quirks/#quirk-N``.

    Raises nothing.
    """
    return f"{DOCS_URL}quirks/#quirk-{number}"
