"""The former import path of ``hierdoc eval``, kept while ``hierdoc.cli`` imports it from here.

The command is :func:`hierdoc.eval.command.eval_command`.
"""

from __future__ import annotations

from .command import eval_command

__all__ = ["eval_command"]
