"""Generated names come from roles and user names, not TF's op counters, so edits stay local.

Also: provenance comments on gradient statements, and the body's statement summary.
"""

from __future__ import annotations

import difflib
import io
import re
import tokenize

import numpy as np
import pytest

import symgrad as sg
from symgrad import naming

LAYERS = 50


def _chain(insert: bool = False, append: bool = False, optimize: bool = True) -> str:
    """``z = tanh(z*w_k) + 0.5*z`` for 50 layers; ``insert`` adds ``z = z + sin(z)`` before
    layer 3, ``append`` one ``sin`` after the last layer."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 8], name="x")
        weights = [
            sg.Variable(1.0 + 0.01 * k, dtype=sg.float64, name=f"w{k}") for k in range(LAYERS)
        ]
        z = x
        for k, w in enumerate(weights):
            if insert and k == 3:
                z = z + sg.sin(z)
            z = sg.tanh(z * w) + 0.5 * z
        if append:
            z = sg.sin(z)
        loss = sg.reduce_sum(z)
        return sg.compile(
            [loss, *sg.gradients(loss, weights)], name="chain", optimize=optimize
        ).source


def _changed_fraction(before: str, after: str) -> float:
    old, new = before.splitlines(), after.splitlines()
    changed = [
        line
        for line in difflib.unified_diff(old, new, lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    return len(changed) / len(old)


@pytest.fixture(scope="module", params=[True, False], ids=["fast", "readable"])
def chain_forms(request: pytest.FixtureRequest) -> dict[str, str]:
    optimize = request.param
    return {
        "base": _chain(optimize=optimize),
        "insert": _chain(insert=True, optimize=optimize),
        "append": _chain(append=True, optimize=optimize),
    }


def test_one_op_inserted_near_the_start_changes_few_lines(chain_forms: dict[str, str]) -> None:
    # With TF's counters every later add_k, mul_k, tanh_k was renamed: over half the lines.
    assert _changed_fraction(chain_forms["base"], chain_forms["insert"]) <= 0.10


def test_one_op_appended_changes_few_lines(chain_forms: dict[str, str]) -> None:
    assert _changed_fraction(chain_forms["base"], chain_forms["append"]) <= 0.05


def test_names_come_from_roles_and_user_names_not_op_counters(
    chain_forms: dict[str, str],
) -> None:
    source = chain_forms["base"]
    assert "tanh_w3 = " in source and "d_sum_d_add_w3 = " in source
    # no TF counter (add_2, mul_17, tanh_1) in any name; w0..w49 are the user's own
    counted = re.findall(r"\b(?:add|mul|tanh|sum|sin)_\d+\b", source)
    assert counted == [], counted[:10]


def test_names_are_deterministic() -> None:
    assert _chain(insert=True) == _chain(insert=True)


def _classifier(weight_name: str = "W") -> tuple[list, list]:
    images = sg.placeholder(sg.float64, [None, 5], name="images")
    labels = sg.placeholder(sg.int32, [None], name="labels")
    w = sg.Variable(np.linspace(-1.0, 1.0, 15).reshape(5, 3), name=weight_name)
    b = sg.Variable(np.zeros(3), name="b")
    logits = sg.add(sg.matmul(images, w), b, name="logits")
    # logits feed the loss twice: its cotangent is the sum of two terms
    xent = sg.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    loss = sg.add(sg.reduce_mean(xent), 0.01 * sg.reduce_sum(sg.square(logits)), name="loss")
    return [loss, *sg.gradients(loss, [w, b])], [images, labels, w, b]


def _comments(source: str) -> list[str]:
    return [
        t.string
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
        if t.type == tokenize.COMMENT
    ]


@pytest.mark.parametrize("optimize", [True, False], ids=["fast", "readable"])
def test_gradients_are_named_after_their_derivative(optimize: bool) -> None:
    with sg.Graph().as_default():
        outputs, inputs = _classifier()
        source = sg.compile(outputs, inputs=inputs, optimize=optimize).source
    assert "    d_loss_d_logits = " in source
    assert not re.search(r"\b(mul|add)(_\d+)? = ", source)


@pytest.mark.parametrize("optimize", [True, False], ids=["fast", "readable"])
def test_a_term_of_a_gradient_sum_says_where_it_comes_from(optimize: bool) -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 4], name="x")
        w = sg.Variable(np.ones((4,)), name="w")
        h = sg.tanh(x * w)
        # h reaches the loss through three ops: its cotangent is a sum of terms
        loss = sg.reduce_sum(sg.exp(h) * h + sg.sqrt(h * h + 1.0), name="loss")
        source = sg.compile([loss, *sg.gradients(loss, [w])], optimize=optimize).source
    lines = source.splitlines()
    position = lines.index("    # d loss / d tanh_w, through mul_w")
    assert lines[position + 1].startswith("    d_tanh_w_via_mul_w = "), lines[position + 1]


def test_provenance_comments_hold_only_sanitized_names() -> None:
    refused = pytest.raises(sg.errors.InvalidArgumentError, match="not a valid name")
    with sg.Graph().as_default(), refused:  # a name TF1 refuses never reaches the graph
        _classifier(weight_name='W"""\\ü\n# x')
    with sg.Graph().as_default():  # the oddest characters TF1 accepts
        outputs, inputs = _classifier(weight_name="W>.-/x")
        source = sg.compile(outputs, inputs=inputs, name='odd"""\\ü\n# x').source
    for comment in _comments(source):
        assert comment.isascii() and '"""' not in comment and "\\" not in comment, comment
    assert "d_loss_d_W_x" in source


def test_the_summary_counts_statements_and_blas_calls_alike_in_both_forms() -> None:
    summaries = []
    for optimize in (True, False):
        with sg.Graph().as_default():
            outputs, inputs = _classifier()
            source = sg.compile(outputs, inputs=inputs, optimize=optimize).source
        summary = re.search(r"# Statements: (\d+), BLAS calls: (\d+)", source)
        assert summary is not None and "Total ops" not in source
        # up to the next function: the fast form may add a body for inputs of equal sizes
        body = source.split(summary.group(0))[1].split("\ndef ")[0].splitlines()[1:]
        statements = [
            line for line in body if re.match(r"    \w", line) and not line.startswith("    del ")
        ]
        # one statement per unindented body line but the return (what the summary counts)
        assert int(summary.group(1)) >= len(statements) - 1
        summaries.append(int(summary.group(2)))
    # images @ W forward, d/dW = images.T @ g; the fast form also sums logits**2 as a dot
    assert summaries == [3, 2]


def test_unnamed_values_are_named_from_role_and_nearest_user_named_value() -> None:
    with sg.Graph().as_default():
        z = sg.placeholder(sg.float64, [None], name="z")
        w3 = sg.Variable(2.0, dtype=sg.float64, name="w3")
        h = sg.tanh(z * w3)
        loss = sg.reduce_sum(h, name="loss")
        unnamed = sg.Variable(1.0, dtype=sg.float64)
        assert naming.preferred_names(h) == ["tanh_w3"]
        assert naming.gradient_name([loss], h) == "d_loss_d_tanh_w3"
        # inputs the user did not name keep TF's name: they are the function's parameters
        assert naming.preferred_names(unnamed) == ["variable"]
