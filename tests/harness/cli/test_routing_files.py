"""hopbench route / verify / export on bad routing-table files and failing outputs: one-line errors, exit 2."""
import errno
import json
import os

import pytest


@pytest.fixture
def table_file(cli, tmp_path):
    path = tmp_path / "t.json"
    code, _, err = cli("route", "--torus", "4x4", "--solver", "dor", "-o", path)
    assert code == 0, err
    return path


def _edited(path, tmp_path, name, edit):
    doc = json.loads(path.read_text())
    edit(doc)
    out = tmp_path / name
    out.write_text(json.dumps(doc))
    return out


@pytest.mark.parametrize("torus", [[4.0, 4], [True, 4], ["4", 4], [[4], 4]])
def test_a_torus_of_non_integers_is_a_one_line_error(cli, table_file, tmp_path, torus):
    bad = _edited(table_file, tmp_path, "bad.json", lambda d: d.update(torus=torus))
    for args in (["verify", bad], ["export", bad, "--format", "json"]):
        code, out, err = cli(*args)
        assert code == 2, (args, out, err)
        assert "malformed" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_long_node_list_in_an_error_is_shortened(cli, table_file, tmp_path):
    # the 16 nodes of 4x4 claimed as subset 'all' of 8x8x8x2 (1,024 nodes)
    bad = _edited(table_file, tmp_path, "bad.json", lambda d: d.update(torus=[8, 8, 8, 2]))
    code, _, err = cli("verify", bad)
    assert code == 2
    assert "and 1,018 more" in err and "and 10 more" in err
    assert len(err) < 300, err


def test_export_refuses_invalid_tables(cli, table_file, tmp_path):
    out = tmp_path / "x.json"

    def wrong_end(d):
        d["routes"]["0,1"] = ["+Y"]

    def missing(d):
        del d["routes"]["0,1"]

    for name, edit, words in (("end.json", wrong_end, "ends at node"), ("missing.json", missing, "no route for pair")):
        bad = _edited(table_file, tmp_path, name, edit)
        code, _, err = cli("export", bad, "--format", "json", "-o", out)
        assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err
        assert not out.exists()
    code, _, err = cli("export", table_file, "--format", "json", "-o", out)
    assert code == 0, err
    assert json.loads(out.read_text())["routes"]


def test_export_refuses_a_deadlocked_table(cli, tmp_path):
    from hopbench.harness.errors import InvalidSolution
    from tests.harness.problems.routing.test_routing_table import cyclic_table

    table = cyclic_table()  # shortest walks on 3x3 whose turns close a dependency cycle
    with pytest.raises(InvalidSolution, match="deadlock"):
        table.evaluate()
    table.evaluation = _fake_metrics()  # to_dict would evaluate (and raise) first
    path = tmp_path / "dead.json"
    path.write_text(json.dumps(table.to_dict()))
    code, _, err = cli("verify", path)
    assert code == 1
    code, _, err = cli("export", path, "--format", "json", "-o", tmp_path / "x.json")
    assert code == 2 and "deadlock" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x.json").exists()


def _fake_metrics():
    from hopbench.harness.problems.routing.table import RoutingEvaluation

    return RoutingEvaluation(objective=1.0, max_load=1, min_load=1, sigma4=0.0, gamma_perfect=1.0, channels=1,
                             max_length=2, mean_length=1.0, alpha_sat=1.0, pairs=72)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_route_to_a_full_device_is_a_one_line_error(cli):
    code, _, err = cli("route", "--torus", "4x4", "--solver", "dor", "-o", "/dev/full")
    assert code == 2 and "cannot write /dev/full" in err and "No space left" in err
    assert len(err.strip().splitlines()) == 1


def test_a_failed_write_leaves_nothing_behind(cli, tmp_path, monkeypatch):
    out = tmp_path / "t.json"
    out.write_text("old\n")
    real_fdopen = os.fdopen

    class FullFile:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            self.fh.write(data[:10])  # part of it, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: FullFile(real_fdopen(fd, *a, **k)))
    code, _, err = cli("route", "--torus", "4x4", "--solver", "dor", "-o", out, "--force")  # (not ours)
    assert code == 2 and "No space left" in err
    assert out.read_text() == "old\n"  # the old file, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]  # no temporary file


def test_route_refuses_a_table_over_the_pairs_cap(cli, monkeypatch):
    code, _, err = cli("route", "--torus", "8x8x8x8", "--solver", "dor", "--time-limit", "5")
    assert code == 2 and "HOPBENCH_MAX_ROUTING_PAIRS" in err and "16,773,120" in err
    monkeypatch.setenv("HOPBENCH_MAX_ROUTING_PAIRS", "100")
    code, _, err = cli("route", "--torus", "4x4", "--solver", "dor")
    assert code == 2 and "240" in err and "HOPBENCH_MAX_ROUTING_PAIRS" in err
