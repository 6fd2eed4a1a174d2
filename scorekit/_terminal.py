"""Text a user supplied, made safe to print on a terminal or in a CI log.

The rules live in the one escaping module, :mod:`scorekit._escape` (SPEC §20);
this module keeps the names the command-line modules import.

Examples
--------
>>> terminal_text("helpfulness\\n::error::forged")
'helpfulness\\\\n::error::forged'
"""

from __future__ import annotations

from ._escape import BIDI_CONTROLS, annotation_line, terminal_text, workflow_command

__all__ = ["BIDI_CONTROLS", "annotation_line", "terminal_text", "workflow_command"]
