"""Shared fixtures: where the checkout, the CLI and the scenarios are (set by CTest; the
defaults work from a checkout whose build folder is build/)."""
import os
import pathlib

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("MLTWIN_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))


@pytest.fixture
def source_dir() -> pathlib.Path:
    return SOURCE_DIR


@pytest.fixture
def tiny_gang(source_dir):
    import mltwin

    return mltwin.load_scenario(source_dir / "tests" / "scenarios" / "tiny-gang.json")


@pytest.fixture
def cli() -> str:
    path = os.environ.get("MLTWIN_CLI", str(SOURCE_DIR / "build" / "apps" / "mltwin"))
    if not os.path.exists(path):
        pytest.skip(f"the mltwin CLI is not built at {path}")
    return path
