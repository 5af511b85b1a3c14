"""``python -m messages check FILE``: the same as the installed ``messages`` command (``messages.cli``)."""

from messages.cli import main

raise SystemExit(main())
