"""training/ as a package: the console scripts of pyproject.toml name real ``main`` functions, the
scripts at the old paths (``python3 training/train.py``, ...) run from anywhere without the package
installed, and no Python file of training/ or bench/ edits ``sys.path``."""
import importlib
import os
import re
import subprocess
import sys
import tomllib

from conftest import TRAINING

SCRIPTS = tomllib.loads((TRAINING / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
# the modules run at their old paths (named in Swift tests and help texts, model cards, fixtures)
OLD_PATHS = sorted(p.stem for p in TRAINING.glob("*.py"))


def test_console_scripts_name_main_functions():
    for name, target in SCRIPTS.items():
        module, function = target.split(":")
        assert callable(getattr(importlib.import_module(module), function)), name


def test_every_old_path_is_a_console_script_too():
    assert OLD_PATHS and {f"sketchwise_training.{m}:main" for m in OLD_PATHS} <= set(SCRIPTS.values())


def test_the_old_paths_run_from_anywhere(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    procs = {m: subprocess.Popen([sys.executable, str(TRAINING / f"{m}.py"), "--help"], cwd=tmp_path, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for m in OLD_PATHS}
    for m, proc in procs.items():
        output = proc.communicate(timeout=300)[0]
        assert proc.returncode == 0 and output.startswith("usage:"), f"training/{m}.py --help: {output[-2000:]}"


def test_no_python_file_edits_sys_path():
    edits = re.compile(r"sys\.path\.(insert|append|extend)|sys\.path\s*(\+?=|\[)")
    found = [f"{p.relative_to(TRAINING.parent)}:{i}" for folder in (TRAINING, TRAINING.parent / "bench")
             for p in sorted(folder.rglob("*.py")) if p.name not in ("churn.py", "soak.py")  # they read Tests/Browser
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if edits.search(line)]
    assert not found, "use the package (pip install -e training, or python3 -m from training/): " + ", ".join(found)
