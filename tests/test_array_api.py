"""The portable form (``compile(..., backend="array_api")``) against TensorFlow's recorded results.

Each program of the TF parity corpora (``tests/tf_parity/programs*.py``) is compiled in
the portable form and run twice: on ``array_api_strict`` arrays (the standard's strict
reference implementation, pinned to the 2023.12 revision: anything NumPy-only fails
there) and on NumPy arrays. Results are converted with ``np.asarray`` for the comparison
only, which is exactly that of ``tests/test_tf_parity.py`` (same tolerances).

Runtime: CI runs a stratified sample, every corpus and each of its op families
(``SAMPLE_EVERY``-th program of each corpus, plus the named family representatives).
Set ``SYMGRAD_BACKENDS_PROFILE=full`` to run every program of every corpus.

Programs the portable form cannot express are listed in ``UNSUPPORTED`` with the reason:
their compile must raise :class:`symgrad.errors.BackendError` naming the op and the
backend (checked too). Programs that train through a Session (``"before"`` steps) are
skipped here: ``Session(backend=...)`` runs them.
"""

from __future__ import annotations

import importlib
import os
import warnings

import numpy as np
import pytest

import symgrad as sg
from symgrad.errors import BackendError
from symgrad.graph import sources_of
from tests.test_tf_parity import _non_finite, compare_fetches, load_fixtures
from tests.tf_parity.programs import flatten_fetches
from tests.tf_parity.record_tf import CORPORA

xps = pytest.importorskip("array_api_strict")
xps.set_array_api_strict_flags(api_version="2023.12")

FULL = os.environ.get("SYMGRAD_BACKENDS_PROFILE") == "full"
SAMPLE_EVERY = 12  # of each corpus, on array_api_strict; NumPy arrays run every third of those
# One program per op family whose portable form is a helper of its own, so the sample
# covers every helper of templates/array_api whichever programs the stride picks.
FAMILIES = {
    "conv_same_stride2_odd",
    "conv_dilated_grad_of_grad",
    "conv_transpose_same_stride2",
    "max_pool_grad_of_grad_ties",
    "avg_pool_grad_of_grad",
    "einsum_repeated_index",
    "ag_einsum_covsum",
    "kt_gather_higher_rank_indices",
    "kt_slice_gradients_all",
    "tf_strided_slice_negative_stride",
    "kt_tile_gradient_strided",
    "kt_one_hot_in_loss",
    "pad_reflect",
    "pad_symmetric_none_batch",
    "dropout_gradient_is_mask_times_scale",
    "random_shuffle_keeps_the_rows",
    "boolean_mask_axis1_fed",
    "truncatemod_int32",
    "xlogy",
    "cumsum_exclusive_reverse",
    "cumprod_exclusive_reverse",
    "diag_part_rank4",
    "linalg_diag_batch",
    "linalg_diag_part_wide",
    "matrix_band_part_triangles",
    "unsorted_segment_sum_rank2_ids",
    "unsorted_segment_max_ties_empty_dropped",
    "segment_mean_empty_segment",
    "local_response_normalization_params_f32",
    "kt_half_basic",
    "hessians_vec3_reduce_prod",
    "erf_float32_placeholder",
    "top_k_ties_and_gradient",
    "losses_softmax_cross_entropy_smoothing",
    "matmul_shapeless_left",
    "where_shapeless_condition_rows",
    "sparse_xent_shapeless_labels",
    "sparse_xent_shapeless_logits",
    "max_min_over_empty_batch",
    "sigmoid_xent_float64_unreduced_gradient",
    "zeros_ones_fill_of_sizes_known_when_run",
}


# Programs whose ops have no portable form yet: compile raises BackendError.
UNSUPPORTED: dict[str, str] = {
    "unary_float16": "float16: not a dtype of the array API standard",
    "kt_log_softmax_f16": "float16: not a dtype of the array API standard",
    "kt_xent_large_logits_f16": "float16: not a dtype of the array API standard",
    "kt_l2_loss_f16_f32": "float16: not a dtype of the array API standard",
    "kt_relu_gradient_f16": "float16: not a dtype of the array API standard",
    "kt_half_basic": "float16: not a dtype of the array API standard",
    "kt_mean_f16": "float16: not a dtype of the array API standard",
    "kt_matmul_f16": "float16: not a dtype of the array API standard",
    "kt_cast_gradients": "float16: not a dtype of the array API standard",
    "tangent_tfe_squared_difference_f16": "float16: not a dtype of the array API standard",
    "ag_binary_add_f16_none": "float16: not a dtype of the array API standard",
    "ag_binary_subtract_f16_none": "float16: not a dtype of the array API standard",
    "ag_binary_multiply_f16_none": "float16: not a dtype of the array API standard",
    "ag_binary_truediv_f16_none": "float16: not a dtype of the array API standard",
    "ag_binary_divide_f16_none": "float16: not a dtype of the array API standard",
    "ag_binary_pow_f16_none": "float16: not a dtype of the array API standard",
    "ag_binary_maximum_f16_none": "float16: not a dtype of the array API standard",
    "ag_binary_minimum_f16_none": "float16: not a dtype of the array API standard",
    "kt_sigmoid_xent_f16": "float16: not a dtype of the array API standard",
    "tf_grad_ys_f16": "float16: not a dtype of the array API standard",
    "gradients_keep_dtype_float16": "float16: not a dtype of the array API standard",
}


def _cases(every: int) -> list:  # type: ignore[type-arg]
    """The corpus programs to run: all of them (full profile), else every ``every``-th of each
    corpus and the op-family representatives."""
    cases = []
    for module_name, fixture_file in CORPORA.items():
        programs = importlib.import_module(f"tests.tf_parity.{module_name}").PROGRAMS
        fixtures = load_fixtures(fixture_file)
        for index, program in enumerate(programs):
            if not (FULL or index % every == 0 or program.__name__ in FAMILIES):
                continue
            cases.append(
                pytest.param(
                    program,
                    fixtures[program.__name__]["fetches"],
                    id=f"{module_name}.{program.__name__}",
                )
            )
    return cases


def all_program_names() -> set[str]:
    return {
        p.__name__
        for module_name in CORPORA
        for p in importlib.import_module(f"tests.tf_parity.{module_name}").PROGRAMS
    }


def test_listed_programs_exist() -> None:
    names = all_program_names()
    assert set(UNSUPPORTED) <= names
    assert names >= FAMILIES


def run_portable(program, to_array):  # type: ignore[no-untyped-def]
    """Build ``program``, compile its fetches in the portable form, run them on its feeds
    converted by ``to_array``; the results as NumPy arrays."""
    with sg.Graph().as_default():
        built = program(sg)
        if "before" in built:
            pytest.skip("trains through a Session: Session(backend=...) runs it")
        fetches = flatten_fetches(built["fetches"])
        tensors = [t for t in fetches if t is not None]
        if not tensors:
            return fetches, built
        # Fed intermediate tensors and variables become inputs, as a TF1 feed replaces them.
        inputs = sources_of(tensors, fed=list(built["feeds"]))
        compiled = sg.compile(tensors, inputs=inputs, name=program.__name__, backend="array_api")
        by_tensor_name = {t.name: value for t, value in built["feeds"].items()}
        arguments = {
            i.name: to_array(by_tensor_name[i.tensor_name])
            for i in compiled.program.inputs
            if i.tensor_name in by_tensor_name
        }
        values = iter(compiled(**arguments))
        results = [None if t is None else np.asarray(next(values)) for t in fetches]
        return results, built


def _strict(value):  # type: ignore[no-untyped-def]
    return xps.asarray(np.asarray(value))


@pytest.mark.parametrize("program, expected", _cases(SAMPLE_EVERY))
def test_portable_on_array_api_strict(program, expected) -> None:  # type: ignore[no-untyped-def]
    assert_portable_matches(program, expected, _strict)


@pytest.mark.parametrize("program, expected", _cases(3 * SAMPLE_EVERY))
def test_portable_on_numpy(program, expected) -> None:  # type: ignore[no-untyped-def]
    assert_portable_matches(program, expected, np.asarray)


def assert_portable_matches(program, expected, to_array) -> None:  # type: ignore[no-untyped-def]
    """The portable module of ``program``, fed through ``to_array``, against TensorFlow."""
    if program.__name__ in UNSUPPORTED:
        with pytest.raises(BackendError, match="array_api"):
            run_portable(program, to_array)
        return
    with warnings.catch_warnings():
        if not any(w is not None and _non_finite(w["value"]) for w in expected):
            warnings.simplefilter("error", RuntimeWarning)
        actual, built = run_portable(program, to_array)
    compare_fetches(program.__name__, actual, expected, built.get("rtol"))
