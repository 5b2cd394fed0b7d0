"""Query results to pandas DataFrames, without going through files.

INTEGER columns become int64 (pandas' nullable ``Int64`` when they hold NULLs, so that
nanosecond times beyond 2**53 keep every digit), REAL columns float64 (NULL -> NaN), TEXT
columns object (NULL -> None)."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

from . import _mltwin


def frame_from_columns(columns) -> pd.DataFrame:
    data = {}
    for name, kind, values, null in columns:
        if kind == "integer":
            values = np.asarray(values, dtype=np.int64)
            data[name] = pd.arrays.IntegerArray(values, np.asarray(null, dtype=bool)) if null.any() else values
        elif kind == "real":
            values = np.array(values, dtype=np.float64)
            values[null] = np.nan
            data[name] = values
        else:
            col = np.array(values, dtype=object)
            col[null] = None
            data[name] = col
    return pd.DataFrame(data, columns=[c[0] for c in columns])


def read_table(database: str | os.PathLike, table_or_sql: str) -> pd.DataFrame:
    """A table (or the rows of a SELECT) of a results database file, opened read-only, as a
    DataFrame typed as :meth:`mltwin.Run.table` types it. Raises RuntimeError (SQLite's
    message) on a bad query or a missing file."""
    path = os.fspath(database)
    if not os.path.exists(path):
        raise FileNotFoundError(path)
    sql = table_or_sql if " " in table_or_sql.strip() else f'SELECT * FROM "{table_or_sql}"'
    return frame_from_columns(_mltwin.query_file(path, sql))
