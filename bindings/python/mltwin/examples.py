"""Where the examples are: the mltwin checkout, its scenarios, and the data folder.

For notebooks and scripts that run the shipped scenarios::

    from mltwin import examples
    run = mltwin.Run(examples.scenario("mme-djl-blog-top-n"), data=examples.data_dir())

The checkout is ``$MLTWIN_SOURCE_DIR``, else the first folder at or above the current one that
holds ``scenarios/schema`` (a notebook runs in ``notebooks/``); the data folder is
``$MLTWIN_DATA``, else the first ``shared/data`` above the checkout — the CLI's own rule.
No absolute path is written anywhere.
"""
from __future__ import annotations

import math
import os
import pathlib
from typing import Iterable, Tuple

__all__ = ["check_text", "data_dir", "scenario", "scenarios_dir", "source_dir"]


def source_dir() -> pathlib.Path:
    """The mltwin checkout. Raises FileNotFoundError naming where it looked."""
    env = os.environ.get("MLTWIN_SOURCE_DIR")
    if env:
        return pathlib.Path(env).resolve()
    here = pathlib.Path.cwd().resolve()
    for d in (here, *here.parents):
        if (d / "scenarios" / "schema").is_dir():
            return d
    raise FileNotFoundError(f"cannot find the mltwin checkout at or above {here}: set MLTWIN_SOURCE_DIR")


def scenarios_dir() -> pathlib.Path:
    """The checkout's ``scenarios/``."""
    return source_dir() / "scenarios"


def scenario(name: str) -> pathlib.Path:
    """The path of a shipped scenario by name (``"eks-trn1-philly"``, ``.json`` optional).
    Raises FileNotFoundError listing the shipped ones."""
    path = scenarios_dir() / (name if name.endswith(".json") else name + ".json")
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in scenarios_dir().glob("*.json")))
        raise FileNotFoundError(f"no scenario {name!r} in {scenarios_dir()} (shipped: {known})")
    return path


def data_dir() -> pathlib.Path:
    """The data folder (``${MLTWIN_DATA}`` of the scenarios). Raises FileNotFoundError."""
    env = os.environ.get("MLTWIN_DATA")
    if env:
        return pathlib.Path(env).resolve()
    src = source_dir()
    for d in (src, *src.parents):
        if (d / "shared" / "data").is_dir():
            return d / "shared" / "data"
    raise FileNotFoundError(f"cannot find the data folder (shared/data) above {src}: set MLTWIN_DATA")


def check_text(claims: Iterable[Tuple[str, float, float, float]]) -> int:
    """Checks the numbers a notebook's prose quotes against what the notebook computed, so that
    text and results cannot drift apart: each claim is ``(what the text says, quoted value,
    computed value, tolerance)`` and holds when ``|computed - quoted| <= tolerance`` (the
    tolerance is the rounding the text uses). Returns how many claims were checked; raises
    AssertionError listing every claim that does not hold, with the computed value."""
    claims = list(claims)
    wrong = []
    for text, quoted, computed, tol in claims:
        c = float(computed)
        # (a value on the edge of the rounding, 8.45 quoted as 8.5, passes despite binary fractions)
        if math.isnan(c) or abs(c - float(quoted)) > tol + 1e-9 * max(1.0, abs(float(quoted))):
            wrong.append(f"  the text says {text!r} ({quoted} within {tol}); this run gives {c:.6g}")
    if wrong:
        raise AssertionError(f"{len(wrong)} of {len(claims)} numbers in the text differ from this run "
                             "(update the text or find what changed):\n" + "\n".join(wrong))
    return len(claims)
