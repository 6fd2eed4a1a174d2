"""Build hook: compile scorekit's C helper (scorekit/_speedups.c) into the wheel.

The helper is optional. Without a C compiler the build warns and the package
stays pure Python: scorekit/_hashing.py, _rows.py and _validate.py fall back to
their Python paths, which give the same results (tests compare them), only
slower. ``SCOREKIT_PURE_PYTHON=1`` skips the compile on purpose.

An editable install (``pip install -e .``) gets the compiled module copied next
to its source, where the checkout's ``scorekit`` package imports it.
"""

from __future__ import annotations

import os
import shutil
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

MODULE = "scorekit._speedups"
SOURCE = "scorekit/_speedups.c"


class SpeedupsBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        if version == "editable":
            # An editable install imports the module from the checkout: remove the
            # last build's copy first, so a skipped or failed build never leaves
            # outdated C code behind (the Python paths take over instead).
            for stale in (Path(self.root) / "scorekit").glob("_speedups*" + os.path.splitext(
                    sysconfig.get_config_var("EXT_SUFFIX"))[1]):
                stale.unlink()
        if os.environ.get("SCOREKIT_PURE_PYTHON"):
            return
        self._temp = tempfile.mkdtemp(prefix="scorekit-build-")
        try:
            built = self._compile(Path(self._temp))
        except Exception as exc:  # noqa: BLE001 - any failure means "no C helper", never a failed install
            self.app.display_warning(
                f"scorekit: the C helper {SOURCE} was not compiled ({type(exc).__name__}: {exc}); "
                "scorekit works without it, more slowly"
            )
            return
        target = MODULE.replace(".", "/") + sysconfig.get_config_var("EXT_SUFFIX")
        if version == "editable":
            shutil.copyfile(built, Path(self.root) / target)
        else:
            build_data["force_include"][str(built)] = target
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        temp = getattr(self, "_temp", None)
        if temp:
            shutil.rmtree(temp, ignore_errors=True)

    def _compile(self, temp: Path) -> Path:
        from setuptools import Distribution, Extension

        extension = Extension(MODULE, [SOURCE], extra_compile_args=["-O2"] if os.name != "nt" else [])
        cwd = os.getcwd()
        os.chdir(self.root)  # setuptools wants source paths relative to the project
        try:
            dist = Distribution({"name": "scorekit", "ext_modules": [extension]})
            command = dist.get_command_obj("build_ext")
            command.build_lib = str(temp / "lib")
            command.build_temp = str(temp / "temp")
            command.ensure_finalized()
            command.run()
            return Path(command.get_ext_fullpath(MODULE)).resolve()
        finally:
            os.chdir(cwd)
