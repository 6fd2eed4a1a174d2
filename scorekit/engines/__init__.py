"""Engines (SPEC §16): where partitions of rows are scored and combined.

``pandas`` (the default) scores in this process and, for a large JSON Lines
file, in local worker processes (:mod:`.local`). The scoring code is the same
in all of them (:mod:`scorekit._partial`).
"""
