"""The package example of the README runs as written, on a CSV file of ratings."""

import re
from pathlib import Path

import pandas as pd

from recbias import datasets

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_package_example_runs(tmp_path, monkeypatch, capsys):
    example = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    ratings = datasets.load("synthetic-small")
    frame = pd.DataFrame(
        {"user": ratings.user_ids[ratings.users], "item": ratings.item_ids[ratings.items], "rating": ratings.values}
    )
    frame.to_csv(tmp_path / "my_ratings.csv", index=False)
    monkeypatch.chdir(tmp_path)
    exec(compile(example, str(README), "exec"), {})
    printed = capsys.readouterr().out
    assert "popularity" in printed and "mf" in printed and "nDCG@10" in printed
