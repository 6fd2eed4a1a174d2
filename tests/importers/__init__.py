"""Tests of the importers (SPEC §15); a package, so its module names do not clash with tests/scorers/."""
