"""Run(seed=, until=, out=, max_jobs=) are checked in Python with messages naming the
argument (as the CLI names its flags); `out` is written directly at the path named, and
refuses a directory, a fifo, a symbolic link to either, and the run's own inputs; the end
reasons are the store's five."""
import os
import shutil

import pytest

import mltwin

S = 1_000_000_000


@pytest.fixture
def scenario_copy(tiny_gang, tmp_path):
    """tiny-gang copied into tmp_path (a test that should refuse to overwrite it must never
    risk the checked-in file)."""
    path = tmp_path / "tiny-gang.json"
    shutil.copy(tiny_gang.path, path)
    return path


@pytest.mark.parametrize("seed", [-1, 2**64, True, 1.5, "7"])
def test_seed_out_of_range_or_not_an_integer(tiny_gang, seed):
    with pytest.raises(ValueError, match=r"^seed: expected an integer from 0 to 18446744073709551615"):
        mltwin.Run(tiny_gang, seed=seed)


def test_the_largest_seed_runs(tiny_gang):
    run = mltwin.Run(tiny_gang, seed=2**64 - 1)
    assert run.seed == 2**64 - 1
    run.run("10m")
    assert run.table("run_meta").set_index("key")["value"]["seed"] == "18446744073709551615"


@pytest.mark.parametrize("until", [-1, 0, "0s", "-5s", "soon", 2**63, 1e30, float("inf"), float("nan"), "1e400s", True])
def test_until_checked_naming_the_argument(tiny_gang, until):
    with pytest.raises(ValueError, match=r"^until: "):
        mltwin.Run(tiny_gang, until=until)
    with pytest.raises(ValueError, match=r"^until: "):
        mltwin.Run(tiny_gang).run(until)


def test_run_until_past_the_int64_range(tiny_gang):
    # 2**63 ns is one past the largest simulated time; 9.3e9 s is about 2**63 ns as well.
    for t in [2**63 // S + 1, 9.3e9]:
        with pytest.raises(ValueError, match=r"^t: time .* is out of range"):
            mltwin.Run(tiny_gang).run_until(t)
    with pytest.raises(ValueError, match=r"^chunk: "):
        mltwin.Run(tiny_gang).run(chunk=-1)


@pytest.mark.parametrize("max_jobs", [-1, 2**31, 2**64, 1.0, True])
def test_max_jobs_out_of_range(tiny_gang, max_jobs):
    with pytest.raises(ValueError, match=r"^max_jobs: expected an integer from 0 \(all jobs\) to 2147483647"):
        mltwin.Run(tiny_gang, max_jobs=max_jobs)


def test_max_jobs_on_a_workload_that_is_not_philly(tiny_gang):
    with pytest.raises(ValueError, match=r"^max_jobs applies to Philly workloads"):
        mltwin.Run(tiny_gang, max_jobs=3)


@pytest.mark.parametrize("out", ["", 5, b"x.sqlite", "a\0b.sqlite"])
def test_out_that_is_no_path(tiny_gang, out):
    with pytest.raises(ValueError, match=r"^out: "):
        mltwin.Run(tiny_gang, out=out)


def test_out_refuses_what_is_not_a_regular_file_and_leaves_it(tiny_gang, tmp_path):
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    os.symlink(tmp_path / "dir", tmp_path / "link")
    os.symlink(tmp_path / "nothing", tmp_path / "dangling")
    for name, what in [("dir", "is a directory"), ("fifo", "is a fifo"), ("link", "is a symbolic link to a directory"),
                       ("dangling", "is a symbolic link to nothing")]:
        path = tmp_path / name
        with pytest.raises(ValueError, match=rf"^out '{path}': {what}"):
            mltwin.Run(tiny_gang, out=path)
    assert (tmp_path / "dir").is_dir() and list((tmp_path / "dir").iterdir()) == []
    assert (tmp_path / "fifo").is_fifo()
    assert (tmp_path / "link").is_symlink() and (tmp_path / "dangling").is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "dir", "fifo", "link"]


def test_out_refuses_the_scenario_however_it_is_spelled(scenario_copy, tmp_path):
    before = scenario_copy.read_bytes()
    os.symlink(scenario_copy, tmp_path / "link.json")
    os.link(scenario_copy, tmp_path / "hard.json")
    spellings = [scenario_copy, str(tmp_path / "." / "tiny-gang.json"), tmp_path / "link.json", tmp_path / "hard.json"]
    for out in spellings:
        with pytest.raises(ValueError, match=r"is the run's scenario .*which it would overwrite"):
            mltwin.Run(str(scenario_copy), out=out)
    assert scenario_copy.read_bytes() == before


def test_out_is_written_directly_and_readable_while_the_run_goes_on(tiny_gang, tmp_path):
    db = tmp_path / "live.sqlite"
    db.write_text("the previous results")
    run = mltwin.Run(tiny_gang, out=db)
    # Replaced when the Run is made, at that very path (no temporary name beside it).
    assert sorted(p.name for p in tmp_path.iterdir()) == ["live.sqlite"]
    run.run_until("30m")
    run.checkpoint()
    meta = mltwin.read_table(db, "run_meta").set_index("key")["value"]
    assert int(meta["checkpoint_ns"]) == 1800 * S
    assert "end_reason" not in meta  # still running
    run.run()
    assert mltwin.read_table(db, "run_meta").set_index("key")["value"]["end_reason"] == "completed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["live.sqlite"]


def test_the_end_reasons(tiny_gang):
    assert mltwin.end_reasons == ("completed", "until", "interrupted", "terminated", "failed")
    run = mltwin.Run(tiny_gang)
    with pytest.raises(ValueError, match=r"reason 'killed': expected one of completed, until, interrupted, terminated, failed"):
        run.finish("killed")
    run.run_until("10m")
    run.finish("terminated")
    meta = run.table("run_meta").set_index("key")["value"]
    assert meta["end_reason"] == "terminated"
    assert int(meta["end_ns"]) == 600 * S
