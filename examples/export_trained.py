"""Train the digits MLP in a Session, export it as a standalone NumPy module, run it without symgrad.

1. Train the 64-64 tanh MLP of ``digits_models.py`` with Adam, saving a
   checkpoint every epoch (``train.Saver``, the newest three kept).
2. ``sg.compile(logits, values=sess)`` writes ``digits_mlp.py``: the trained
   weights are baked in (as base64 arrays), the only parameter left is the batch
   of images.
3. Run that file in a fresh Python process in which ``import symgrad`` fails,
   and check that it predicts exactly what the Session predicts.

The same module can be made from the checkpoints alone, on the command line:

    symgrad compile examples/export_trained.py:predictions \\
        --checkpoint examples/output/digits_checkpoints -o digits_mlp.py

Run:  python examples/export_trained.py            (needs: pip install scikit-learn)
"""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np

import symgrad as sg

# The model and the data of digits_models.py, next to this file (run from anywhere).
_DIGITS = runpy.run_path(str(Path(__file__).with_name("digits_models.py")), run_name="digits")
build, load_digits = _DIGITS["build"], _DIGITS["load_digits"]

OUTPUT = Path(os.environ.get("SYMGRAD_EXAMPLES_OUTPUT", Path(__file__).resolve().parent / "output"))
HIDDEN = (64, 64)

# Runs in the subprocess: symgrad is made unimportable before the exported module is loaded.
_RUN_EXPORTED = textwrap.dedent(
    """
    import importlib.util, sys
    sys.modules["symgrad"] = None  # any `import symgrad` now raises ImportError
    import numpy as np
    module_path, images_path, out_path = sys.argv[1:]
    spec = importlib.util.spec_from_file_location("digits_mlp", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    np.save(out_path, module.digits_mlp(np.load(images_path)))
    assert not any(name.startswith("symgrad") for name in sys.modules if sys.modules[name])
    """
)


def predictions() -> dict:
    """The prediction graph alone (what ``symgrad compile ... --checkpoint`` compiles)."""
    return {"logits": build(HIDDEN)["logits"]}


def train_and_export(epochs: int = 10, output: Path = OUTPUT) -> tuple[Path, np.ndarray, float]:
    """Train, checkpoint and export; return the module's path, the test images and the accuracy."""
    x_train, y_train, x_test, y_test = load_digits()
    checkpoints = output / "digits_checkpoints"
    checkpoints.mkdir(parents=True, exist_ok=True)
    with sg.Graph().as_default():
        model = build(HIDDEN)
        train_op = sg.train.AdamOptimizer(0.01).minimize(model["loss"])
        saver = sg.train.Saver(max_to_keep=3)
        rng = np.random.default_rng(1)
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            for epoch in range(1, epochs + 1):
                order = rng.permutation(len(x_train))
                for start in range(0, len(order), 64):
                    chosen = order[start : start + 64]
                    feed = {model["images"]: x_train[chosen], model["labels"]: y_train[chosen]}
                    sess.run(train_op, feed)
                saver.save(sess, str(checkpoints / "model.ckpt"), global_step=epoch)
            session_logits = sess.run(model["logits"], {model["images"]: x_test})
            exported = sg.compile(
                {"logits": model["logits"]},
                name="digits_mlp",
                path=output / "digits_mlp.py",
                values=sess,  # bake the trained weights in
            )
    accuracy = float(np.mean(np.argmax(session_logits, axis=1) == y_test))
    return exported.path, session_logits, accuracy


def run_without_symgrad(module_path: Path, images: np.ndarray) -> np.ndarray:
    """The exported module's logits for ``images``, computed in a process without symgrad."""
    with tempfile.TemporaryDirectory() as folder:
        images_path, out_path = Path(folder, "images.npy"), Path(folder, "logits.npy")
        np.save(images_path, images)
        subprocess.run(
            [
                sys.executable,
                "-c",
                _RUN_EXPORTED,
                str(module_path),
                str(images_path),
                str(out_path),
            ],
            check=True,
            cwd=folder,
        )
        return np.load(out_path)


def main(epochs: int = 10) -> None:
    module_path, session_logits, accuracy = train_and_export(epochs)
    _, _, x_test, y_test = load_digits()
    standalone = run_without_symgrad(module_path, x_test)
    same = np.array_equal(np.argmax(standalone, axis=1), np.argmax(session_logits, axis=1))
    print(f"trained MLP: test accuracy {accuracy:.1%}; exported to {module_path}")
    print(
        f"exported module without symgrad: same predictions {same}, "
        f"bit-identical logits {np.array_equal(standalone, session_logits)}"
    )
    if not same:
        raise SystemExit("the exported module predicts differently from the Session")


if __name__ == "__main__":
    main()
