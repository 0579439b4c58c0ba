"""Data the public TF1 programs in ``programs/`` load instead of their downloads.

The programs were written for MNIST (``tensorflow.examples.tutorials.mnist.input_data``), or
for CSV files next to them. Here they get data that scikit-learn ships, so that the test suite
needs no network:

- ``input_data.read_data_sets(...)``: scikit-learn's 1,797 8x8 digits, each pixel repeated
  3x3 (``np.kron``, nearest-neighbour upsampling to 24x24) and padded with 2 zero pixels on
  every side to MNIST's 28x28, scaled to [0, 1] like MNIST's ``images``, flattened to 784
  floats. 1,497 training and 300 test images (a fixed split), ``one_hot`` as in the original.
  ``next_batch`` shuffles each epoch like TF's ``DataSet`` did, from NumPy's global
  generator (the runner seeds it), so batch order is reproducible.
- ``breast_cancer_csv()``: the ``xy`` array of a CSV with 8 feature columns and a 0/1 label
  column (scikit-learn's breast-cancer data, first 8 features min-max scaled to [0, 1]).
- ``zoo_like_csv()``: 16 feature columns and an integer class label in 0..6 (the digits 0-6,
  averaged to 4x4 images and scaled to [0, 1]).
- ``make_moons(n_samples, noise, random_state)``: two interleaving half circles with
  Gaussian noise, the data scikit-learn's function of that name describes, drawn here with
  NumPy (importing scikit-learn would take longer than the program).

Each program's header names the lines that load data this way.
"""

from __future__ import annotations

import importlib.util
import os
import types

import numpy as np

_TRAIN = 1497


def _sklearn_data(filename: str) -> str:
    """The path of a data file scikit-learn ships. Read directly: importing scikit-learn
    takes seconds (scipy and more), which would dominate the shortest programs' run time."""
    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the TF1 programs read scikit-learn's data: pip install scikit-learn")
    return os.path.join(spec.submodule_search_locations[0], "datasets", "data", filename)


def load_digits() -> types.SimpleNamespace:
    """scikit-learn's digits as ``load_digits()`` gives them: ``images`` (1797, 8, 8), ``target``."""
    table = np.loadtxt(_sklearn_data("digits.csv.gz"), delimiter=",")
    return types.SimpleNamespace(
        images=table[:, :-1].reshape(-1, 8, 8), target=table[:, -1].astype(int)
    )


def load_breast_cancer() -> types.SimpleNamespace:
    """scikit-learn's breast-cancer data as ``load_breast_cancer()`` gives it: ``data``, ``target``."""
    table = np.loadtxt(_sklearn_data("breast_cancer.csv"), delimiter=",", skiprows=1)
    return types.SimpleNamespace(data=table[:, :-1], target=table[:, -1].astype(int))


def digits_28x28() -> tuple[np.ndarray, np.ndarray]:
    """All 1,797 digits as float32 images of shape (1797, 28, 28) in [0, 1], and their labels.

    >>> images, labels = digits_28x28()
    >>> images.shape, labels[:3].tolist()
    ((1797, 28, 28), [0, 1, 2])
    """
    data = load_digits()
    big = np.kron(data.images, np.ones((1, 3, 3)))  # nearest-neighbour 8x8 -> 24x24
    big = np.pad(big, ((0, 0), (2, 2), (2, 2)))  # MNIST's digits also sit in a blank border
    return (big / 16.0).astype(np.float32), data.target.astype(np.int64)


class DataSet:
    """The part of TF's MNIST ``DataSet`` that tutorials use: ``images``, ``labels``,
    ``num_examples`` and ``next_batch``."""

    def __init__(self, images: np.ndarray, labels: np.ndarray) -> None:
        self.images = images
        self.labels = labels
        self.num_examples = len(images)
        self._order = np.arange(self.num_examples)
        self._pos = self.num_examples  # shuffle before the first batch

    def next_batch(self, batch_size: int, shuffle: bool = True) -> tuple[np.ndarray, np.ndarray]:
        if self._pos + batch_size > self.num_examples:
            if shuffle:
                self._order = np.random.permutation(self.num_examples)
            self._pos = 0
        idx = self._order[self._pos : self._pos + batch_size]
        self._pos += batch_size
        return self.images[idx], self.labels[idx]


def read_data_sets(train_dir: str = "", one_hot: bool = False, **_ignored) -> types.SimpleNamespace:
    """MNIST-shaped digits: ``.train``, ``.validation`` (the test images) and ``.test``."""
    images, labels = digits_28x28()
    flat = images.reshape(len(images), 784)
    # A fixed split, independent of the run's seed: every run tests on the same 300 images.
    order = np.random.default_rng(20261203).permutation(len(flat))
    target = np.eye(10, dtype=np.float32)[labels] if one_hot else labels
    train = DataSet(flat[order[:_TRAIN]], target[order[:_TRAIN]])
    test = DataSet(flat[order[_TRAIN:]], target[order[_TRAIN:]])
    return types.SimpleNamespace(train=train, validation=test, test=test)


# ``from tf1_data import input_data`` replaces ``from tensorflow.examples.tutorials.mnist import
# input_data`` in the programs, so their ``input_data.read_data_sets(...)`` lines stay as written.
input_data = types.SimpleNamespace(read_data_sets=read_data_sets)


def breast_cancer_csv() -> np.ndarray:
    """float32 rows: 8 features in [0, 1], then the 0/1 label (569 rows)."""
    data = load_breast_cancer()
    x = data.data[:, :8]
    x = (x - x.min(axis=0)) / (x.max(axis=0) - x.min(axis=0))
    return np.column_stack([x, data.target]).astype(np.float32)


def zoo_like_csv() -> np.ndarray:
    """float32 rows: 16 features in [0, 1], then the class 0..6 (the digits 0-6 at 4x4)."""
    data = load_digits()
    keep = data.target <= 6
    small = data.images[keep].reshape(-1, 4, 2, 4, 2).mean(axis=(2, 4)) / 16.0
    return np.column_stack([small.reshape(len(small), 16), data.target[keep]]).astype(np.float32)


def iris_csv() -> np.ndarray:
    """float32 rows: the 4 iris measurements (cm), then the class 0..2 (150 rows)."""
    return np.loadtxt(_sklearn_data("iris.csv"), delimiter=",", skiprows=1).astype(np.float32)


def diabetes_csv() -> np.ndarray:
    """float32 rows: the 10 diabetes features min-max scaled to [0, 1], then the disease
    progression a year later divided by 100 (442 rows)."""
    x = np.loadtxt(_sklearn_data("diabetes_data_raw.csv.gz"))
    y = np.loadtxt(_sklearn_data("diabetes_target.csv.gz"))
    x = (x - x.min(axis=0)) / (x.max(axis=0) - x.min(axis=0))
    return np.column_stack([x, y / 100.0]).astype(np.float32)


def make_moons(
    n_samples: int = 100, noise: float = 0.0, random_state: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(points (n, 2), labels (n,) in {0, 1}): the upper half circle of radius 1 centred at
    (0, 0) is class 0, the lower one centred at (1, 0.5) class 1, shuffled, with N(0, noise)
    added to each coordinate."""
    rng = np.random.RandomState(random_state)
    outer = n_samples // 2
    inner = n_samples - outer
    angles_outer, angles_inner = np.linspace(0, np.pi, outer), np.linspace(0, np.pi, inner)
    points = np.vstack(
        [
            np.column_stack([np.cos(angles_outer), np.sin(angles_outer)]),
            np.column_stack([1 - np.cos(angles_inner), 0.5 - np.sin(angles_inner)]),
        ]
    )
    labels = np.hstack([np.zeros(outer, np.int64), np.ones(inner, np.int64)])
    order = rng.permutation(n_samples)
    points, labels = points[order], labels[order]
    return points + rng.normal(scale=noise, size=points.shape), labels
