"""The package's version and the scorecard dictionary's schema version (SPEC §12): no imports, the lowest layer."""

__version__ = "0.1.0"

#: ``schema_version`` of ``Scorecard.to_dict()`` and ``scorecard.json``; read by the model, the evidence
#: files and the stored-scorecard checks, so it lives below all of them.
SCHEMA_VERSION = 2
