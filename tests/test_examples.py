"""The examples train: a few epochs of each model of the digits example reach an accuracy
far above chance (10%), on the default backend."""
from __future__ import annotations

import pytest

pytest.importorskip("sklearn")

from lazyjit.examples import digits  # noqa: E402


@pytest.mark.parametrize("model", ["mlp", "cnn"])
def test_digits_trains(model):
    result = digits.train(epochs=6, progress=False, model=model)
    assert result["test_accuracy"] > 0.8, result
    assert result["steps"] == 6 * 12
