"""The competition's host-switch file format."""
from __future__ import annotations

import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.hostswitch import golf_file


def test_round_trip():
    counts = np.array([2, 0, 3])
    links = np.array([[0, 1], [1, 2], [0, 2]])
    text = golf_file.write_text(5, counts, links)
    assert text.splitlines()[:3] == ["5 3 5", "0 5", "1 5"]
    n, r, c, l = golf_file.parse_text(text)
    assert (n, r) == (5, 5)
    assert c.tolist() == counts.tolist() and l.tolist() == links.tolist()


def test_orp_example_from_its_readme_shape():
    # hosts may come in any order, on either end of a line
    n, r, c, l = golf_file.parse_text("4 2 3\n4 0\n1 4\n5 2\n3 5\n4 5\n")
    assert c.tolist() == [2, 2] and l.tolist() == [[0, 1]]


@pytest.mark.parametrize("text, words", [
    ("", "empty"), ("3 1\n", "three integers"), ("3 1 4\n0 3\n1 3\n", "host 2 has 0 links"),
    ("3 1 4\n0 3\n1 3\n2 3\n0 3\n", "host 0 has 2 links"), ("3 1 4\n0 1\n1 3\n2 3\n", "two hosts"),
    ("3 1 4\n0 3\n1 3\n2 9\n", "outside"), ("3 1 4\n0 3\n1 x\n", "not a link"),
    ("99999999 1 4\n", "hosts")])
def test_bad_files(text, words):
    with pytest.raises(HopbenchError, match=words):
        golf_file.parse_text(text)
