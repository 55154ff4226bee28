"""Every example in the package's docstrings runs and prints what it shows."""

import doctest
import importlib
from pathlib import Path

import pytest

import recbias

ROOT = Path(recbias.__file__).parent
WITH_EXAMPLES = sorted(
    ".".join(("recbias", *path.relative_to(ROOT).with_suffix("").parts))
    for path in ROOT.rglob("*.py") if ">>>" in path.read_text()
)


def test_examples_are_found():
    assert "recbias.sampled.distribution" in WITH_EXAMPLES and "recbias.recommenders._pairs" in WITH_EXAMPLES


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_pass(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
