"""Fixtures shared by the engine tests: ``cluster`` (a dask LocalCluster per module) is in
tests/conftest.py, where the property tests of tests/test_engine_properties.py find it too."""
