"""``python -m hierdoc [OPTIONS] COMMAND``: the same as the ``hierdoc`` command (``python -m
hierdoc serve --index DIR`` serves an index over MCP, for clients that start servers with a
Python interpreter)."""

from .cli import main

main()
