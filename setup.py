"""Builds the `mltwin` Python package with the project's CMake build (see pyproject.toml).

`pip install --no-build-isolation .` configures the CMake build in $MLTWIN_BUILD_DIR (default:
build/ of this checkout, so that a build already made is reused), builds the Python module
target (`mltwin_python`: the pybind11 module and the pure-Python layer) and puts that package
in the wheel. The module is built for Debian's /usr/bin/python3: install into a venv created
from it with --system-site-packages (Debian's numpy and pandas).
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
DEBIAN_PYTHON = "/usr/bin/python3"


def version() -> str:
    text = (ROOT / "policies/include/mltwin/policy/version.hpp").read_text()
    parts = [re.search(rf"#define MLTWIN_VERSION_{p} (\d+)", text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


class CMakeBuild(build_ext):
    """build_ext that builds the package with CMake and copies it into the wheel's tree."""

    def run(self):
        if os.path.realpath(sys.executable) != os.path.realpath(DEBIAN_PYTHON):
            sys.exit(f"mltwin: the module is built for Debian's {DEBIAN_PYTHON} (its numpy and pandas); this is "
                     f"{sys.executable} ({os.path.realpath(sys.executable)}). Create the venv with "
                     f"'{DEBIAN_PYTHON} -m venv --system-site-packages .venv'.")
        build = pathlib.Path(os.environ.get("MLTWIN_BUILD_DIR", ROOT / "build"))
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        if not (build / "CMakeCache.txt").exists():
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), *generator, "-DCMAKE_BUILD_TYPE=Release"])
        jobs = str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", str(build), "-j", jobs, "--target", "mltwin_python"])
        stubs = subprocess.run(["cmake", "--build", str(build), "-j", jobs, "--target", "mltwin_python_stubs"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # optional (python3-mypy)
        built = build / "bindings" / "python" / "mltwin"
        target = pathlib.Path(self.build_lib) / "mltwin"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(built, target, ignore=shutil.ignore_patterns("__pycache__"))
        if stubs.returncode != 0 and not (target / "_mltwin.pyi").exists():
            self.announce("mltwin: no type stubs (python3-mypy not installed)", level=2)


class BinaryDistribution(Distribution):
    """The wheel holds a compiled module: tag it for this platform and interpreter."""

    def has_ext_modules(self):
        return True


# setuptools' own staging goes under the CMake build folder's setuptools/, not beside it.
setup(version=version(), packages=[], cmdclass={"build_ext": CMakeBuild}, distclass=BinaryDistribution,
      zip_safe=False, options={"build": {"build_base": "build/setuptools"}, "egg_info": {"egg_base": "build"}})
