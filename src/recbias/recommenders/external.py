"""Systems named on a command line: a preset, a Python class ``module:Class``, or a directory of scores.

:func:`parse_systems` turns ``"mf, mypkg.models:MyRec, runs/mine"`` into display label -> system, ready for
:func:`recbias.evaluate.experiment.fit_systems`.  A class must subclass :class:`Recommender`
and implement ``_fit(train)`` and ``score_users(users)`` (:meth:`Recommender.fit` and :meth:`Recommender.score`
come with it); :func:`try_system` tries it on a small slice of the data before anything long runs; its module is imported by
name, or from a file given as ``path/to/file.py:Class``.  A directory holds score files of
:mod:`recbias.recommenders.scorefiles`.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import numpy as np

from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender
from recbias.recommenders.factory import PRESETS, make
from recbias.recommenders.scorefiles import ScoreFile


def load_class(spec: str) -> type[Recommender]:
    """The class named by ``module:Class`` or ``path/to/file.py:Class``; it must subclass :class:`Recommender`."""
    module_name, _, class_name = spec.rpartition(":")
    if not module_name or not class_name:
        raise ValueError(f"system {spec!r}: write a class as module:Class (e.g. examples.item_mean:ItemMean)")
    if module_name.endswith(".py"):
        path = Path(module_name)
        if not path.exists():
            raise ValueError(f"system {spec!r}: no file {path}")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[path.stem] = module
        module_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise ValueError(f"system {spec!r}: cannot import {module_name!r} ({error}); is it on PYTHONPATH?") from None
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ValueError(f"system {spec!r}: module {module_name!r} has no {class_name!r}")
    if not (isinstance(cls, type) and issubclass(cls, Recommender)):
        raise ValueError(f"system {spec!r}: {class_name} must subclass recbias.recommenders.Recommender "
                         "and implement _fit(train) and score_users(users)")
    return cls


def system_from_spec(spec: str, seed: int = 0) -> tuple[str, str | Recommender]:
    """``(label, system)`` of one system: a preset name, ``module:Class`` or a directory of score files."""
    spec = spec.strip()
    if spec in PRESETS:
        return make(spec).name, spec
    if Path(spec).is_dir():
        recommender = ScoreFile(spec, seed=seed)
        return Path(spec).resolve().name, recommender
    if ":" in spec:
        recommender = load_class(spec)(seed=seed)
        return spec.rpartition(":")[2], recommender
    raise ValueError(f"unknown system {spec!r}: use a preset ({', '.join(PRESETS)}), module:Class "
                     "or a directory of score files")


#: the systems an audit always measures beside the audited ones (display label -> preset)
REFERENCES = {"Random": "random", "Popularity": "popularity"}


def parse_systems(text: str, seed: int = 0) -> dict[str, str | Recommender]:
    """Label -> system for a comma-separated list of :func:`system_from_spec` specs; labels must differ, and
    differ from those of the :data:`REFERENCES`.

    >>> list(parse_systems("mf, item-knn"))
    ['implicit MF (top-N)', 'item-kNN']
    """
    specs = [s for s in text.split(",") if s.strip()]
    if not specs:
        raise ValueError("name at least one system to audit")
    systems: dict[str, str | Recommender] = {}
    for spec in specs:
        label, system = system_from_spec(spec, seed)
        if label in REFERENCES:
            raise ValueError(f"system {spec.strip()!r} is called {label!r}, the name of a reference every audit "
                             f"measures ({', '.join(REFERENCES)}); audit other systems, or rename the class or "
                             "score directory")
        if label in systems:
            raise ValueError(f"two systems are called {label!r}; rename a class or a score directory")
        systems[label] = system
    return systems


#: users of the slice of the data a class is tried on
TRIAL_USERS = 50


def try_system(label: str, system: Recommender, ratings: Ratings) -> None:
    """Fit ``system`` on the ratings of the first :data:`TRIAL_USERS` users and score them, or a ValueError naming
    the system and what went wrong: an exception, or scores of the wrong shape or not finite."""
    trial = ratings.subset(ratings.users < TRIAL_USERS, name=f"{ratings.name} (trial)")
    users = np.arange(min(TRIAL_USERS, ratings.n_users))
    try:
        scores = np.asarray(type(system)(seed=system.seed).fit(trial).score_users(users), dtype=float)
    except Exception as error:  # the user's code: any failure is reported with its class
        raise ValueError(f"system {label!r}: fitting and scoring a slice of {ratings.name} failed: "
                         f"{type(error).__name__}: {error}") from None
    if scores.shape != (len(users), ratings.n_items):
        raise ValueError(f"system {label!r}: score_users returned shape {scores.shape} for {len(users)} users; "
                         f"expected ({len(users)}, {ratings.n_items}), one score per user and item")
    if not np.isfinite(scores).all():
        raise ValueError(f"system {label!r}: score_users returned values that are not finite (NaN or infinite)")
