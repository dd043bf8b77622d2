"""Mixing the base model's weights back into trained ones (``base_weight``)."""

from __future__ import annotations

import pytest
import torch

from hierdoc.errors import InputError
from hierdoc.pipeline.tune import TrainSettings, mix_back
from tests.hash_embedder import hash_index


class Small(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(2, 2)
        self.register_buffer("steps", torch.tensor([3], dtype=torch.long))


def trained_from(model: Small) -> dict[str, torch.Tensor]:
    start = {name: value.detach().clone() for name, value in model.state_dict().items()}
    with torch.no_grad():
        model.linear.weight.fill_(1.0)
        model.linear.bias.fill_(-1.0)
        model.steps.fill_(7)
    for name in ("linear.weight", "linear.bias"):
        start[name] = torch.zeros_like(start[name])
    return start


def test_a_share_of_the_base_weights_is_mixed_back() -> None:
    model = Small()
    mix_back(model, trained_from(model), 0.25)
    assert torch.allclose(model.linear.weight, torch.full((2, 2), 0.75))
    assert torch.allclose(model.linear.bias, torch.full((2,), -0.75))
    assert model.steps.item() == 7


def test_no_share_keeps_the_trained_weights() -> None:
    model = Small()
    mix_back(model, trained_from(model), 0.0)
    assert torch.equal(model.linear.weight, torch.ones(2, 2))


def test_the_share_is_recorded_in_the_settings() -> None:
    assert TrainSettings(base_weight=0.5).to_dict()["base_weight"] == 0.5


@pytest.mark.parametrize("share", [-0.1, 1.0, True, "half"])
def test_a_share_outside_0_to_1_is_refused(tmp_path, share) -> None:
    refused = pytest.raises(InputError, match="base_weight")
    with hash_index(tmp_path / "index", {"a.md": "# A\n\nText."}) as index, refused:
        index.tune(base_weight=share)
