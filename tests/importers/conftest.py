"""Importer tests (SPEC §15): the helpers live in import_logs.py beside this file."""
