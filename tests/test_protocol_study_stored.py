"""Measures kept across pages (:mod:`recbias.protocol_study.stored`): a system measured on a split is read back,
not scored again, with the very values a fresh measurement gives; anything the values depend on changes the key."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from recbias import cache, datasets
from recbias import protocol_study as study
from recbias.protocol_study import measure, stored
from recbias.recommenders import make
from recbias.splits import make_folds


@pytest.fixture(scope="module")
def world():
    return datasets.load("synthetic-small", seed=2)


@pytest.fixture()
def measured(monkeypatch, tmp_path):
    """The systems scored by each measurement, in order, with the cache in a fresh directory."""
    monkeypatch.setenv("RECBIAS_CACHE_DIR", str(tmp_path))
    calls = Calls()
    real = measure._measure

    def counting(protocol_list, fitted, *args):
        calls.append(sorted(fitted))
        calls.protocols.append([p.label for p in protocol_list])
        return real(protocol_list, fitted, *args)

    monkeypatch.setattr(measure, "_measure", counting)
    return calls


class Calls(list):
    """The systems of each measurement (the list) and its protocols (``protocols``)."""

    def __init__(self) -> None:
        super().__init__()
        self.protocols: list[list[str]] = []


def systems():
    return {"Random": make("random"), "Popularity": make("popularity"), "MF": make("mf")}


def assert_same_study(got, expected):
    assert list(got.protocols) == list(expected.protocols) and list(got.truth) == list(expected.truth)
    for label, table in expected.protocols.items():
        pd.testing.assert_frame_equal(got.protocols[label], table)
    for metric, table in expected.truth.items():
        pd.testing.assert_frame_equal(got.truth[metric], table)
    for label, truth in expected.truth_of.items():
        pd.testing.assert_frame_equal(got.truth_of[label]["P@10"], truth["P@10"])


def test_a_kept_study_equals_a_fresh_one_and_is_read_back_without_scoring(world, measured):
    fresh = study.truth_study(world, systems=systems(), cache=False)
    assert measured == [["MF", "Popularity", "Random"]] * 2  # the coin-flip split, then the uniform one
    kept = study.truth_study(world, systems=systems())
    again = study.truth_study(world, systems=systems())
    assert len(measured) == 4  # the first kept study measured both splits, the second read them back
    assert_same_study(kept, fresh)
    assert_same_study(again, fresh)


def test_a_smaller_plan_and_fewer_systems_are_read_from_a_whole_study(world, measured):
    study.truth_study(world, systems=systems())
    plan = [p for p in study.protocols(world.n_items) if p.label in ("1R P@10", "sampled HR@10, corrected (BV 0.1)",
                                                                     "UAR P@10")]
    # the audit's labels need not be the catalogue's: a protocol is found by what it reads
    plan[0] = dataclasses.replace(plan[0], label="one relevant item, P@10")
    part = study.truth_study(world, systems={"MF": make("mf")}, plan=plan)
    alone = study.truth_study(world, systems={"MF": make("mf")}, plan=plan, cache=False)
    assert len(measured) == 2 + 2  # the whole study, then the uncached one; the kept part scored nothing
    assert_same_study(part, alone)


def test_only_systems_or_protocols_not_yet_measured_are_scored(world, measured):
    plan = [p for p in study.protocols(world.n_items) if p.label == "AR TI-AN P@10"]
    study.truth_study(world, systems=systems(), plan=plan)
    assert measured == [["MF", "Popularity", "Random"]]
    changed = systems() | {"MF": make("mf", factors=4)}  # another parameter: another system
    study.truth_study(world, systems=changed, plan=plan)
    assert measured[1:] == [["MF"]]
    wider = [p for p in study.protocols(world.n_items) if p.label in ("AR TI-AN P@10", "1R P@10")]
    both = study.truth_study(world, systems=systems(), plan=wider)
    assert measured[2:] == [["MF", "Popularity", "Random"]] and measured.protocols[2:] == [["1R P@10"]]
    assert_same_study(both, study.truth_study(world, systems=systems(), plan=wider, cache=False))
    study.truth_study(world, systems=systems(), plan=plan)  # a part of what the wider plan kept
    assert len(measured) == 4


def test_the_key_follows_the_split_the_dataset_the_seed_and_the_truth(world):
    coin, other = make_folds(world, folds=2, seed=0)
    base = stored.fold_key(coin, world, 0, True, None)
    assert base == stored.fold_key(coin, world, 0, True, None)
    assert base != stored.fold_key(other, world, 0, True, None)
    assert base != stored.fold_key(coin, world, 1, True, None)
    assert base != stored.fold_key(coin, world, 0, True, "Recall@5")
    assert base != stored.fold_key(coin, world, 0, False, None)
    truth = world.true_relevance.copy()
    truth[0, ~truth[0]] = True  # user 0 likes every item: another truth, the same ratings
    assert base != stored.fold_key(coin, dataclasses.replace(world, true_relevance=truth), 0, True, None)
    values = world.values.copy()
    values[0] = 6 - values[0]
    assert base != stored.fold_key(coin, dataclasses.replace(world, values=values), 0, True, None)
    mf = make("mf")
    assert stored.system_key(base, mf) == stored.system_key(base, make("mf"))
    assert stored.system_key(base, mf) != stored.system_key(base, make("mf", factors=4))
    assert stored.system_key(base, mf) != stored.system_key(stored.fold_key(other, world, 0, True, None), mf)


def test_a_damaged_or_outdated_entry_is_measured_again_and_reported(world, measured, tmp_path, monkeypatch):
    target = tmp_path.parent / f"{tmp_path.name}-report.txt"
    monkeypatch.setenv(cache.REPORT_VARIABLE, str(target))
    monkeypatch.setattr(cache, "_reported", set())
    plan = [p for p in study.protocols(world.n_items) if p.label == "AR TI-AN P@10"]
    first = study.truth_study(world, systems={"MF": make("mf")}, plan=plan)
    [entry] = (tmp_path / "measures").glob("*.pkl")
    entry.write_bytes(entry.read_bytes()[:-5])
    again = study.truth_study(world, systems={"MF": make("mf")}, plan=plan)
    assert measured == [["MF"], ["MF"]]
    assert_same_study(again, first)
    assert any(line.startswith("measuring MF again:") and "(truncated or damaged)" in line
               for line in target.read_text().splitlines())
    study.truth_study(world, systems={"MF": make("mf")}, plan=plan)
    assert len(measured) == 2  # rewritten whole
    monkeypatch.setattr(stored, "_measuring_code", lambda: "other code")
    study.truth_study(world, systems={"MF": make("mf")}, plan=plan)
    assert len(measured) == 3
