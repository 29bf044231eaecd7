"""The pinned PyTorch version against the running one (sketchwise_training.torch_version)."""
import torch

from sketchwise_training.torch_version import pinned_torch, torch_mismatch, warn_if_torch_differs


def test_the_pin_is_read_from_the_requirements(tmp_path):
    assert pinned_torch().startswith("2."), "training/requirements.txt pins torch==…"
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("# torch==1.0 in a comment is no pin\nnumpy>=1.24\ntorch==2.9.1+cpu  # the CPU wheel\n")
    assert pinned_torch(requirements) == "2.9.1+cpu"
    requirements.write_text("numpy>=1.24\n")
    assert pinned_torch(requirements) is None


def test_only_another_version_is_a_mismatch_not_another_build():
    assert torch_mismatch("2.13.0+cu128", "2.13.0+cpu") is None, "CUDA and CPU builds of one version agree"
    assert torch_mismatch("2.13.0", "2.13.0+cpu") is None
    problem = torch_mismatch("2.12.1+cu126", "2.13.0+cpu")
    assert "2.12.1+cu126" in problem and "2.13.0+cpu" in problem and "requirements.txt" in problem


def test_the_warning_goes_to_standard_error_only_on_a_mismatch(monkeypatch, capsys):
    monkeypatch.setattr(torch, "__version__", pinned_torch())
    warn_if_torch_differs()
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(torch, "__version__", "1.0.0")
    warn_if_torch_differs()
    err = capsys.readouterr().err
    assert err.startswith("warning: PyTorch 1.0.0 is running, not the pinned ")
