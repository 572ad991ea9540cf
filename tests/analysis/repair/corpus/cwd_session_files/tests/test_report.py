import os

import pytest

import report


@pytest.fixture(scope="session")
def work_dir(tmpdir_factory):
    """Every test works in one temporary directory."""
    os.chdir(str(tmpdir_factory.mktemp("work")))


def test_table(work_dir):
    report.write_table([(1, 2), (3, 4)])
    assert os.path.isfile("results.tsv")


def test_without_summary(work_dir):
    report.write_table([(1, 2)])
    assert report.summary_status() == "no summary"


def test_summary(work_dir):
    report.write_table([(1, 2)])
    report.write_summary()
    assert report.summary_status() == "with summary"
