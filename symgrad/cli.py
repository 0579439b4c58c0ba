"""The ``symgrad`` command: compile, show and check the code that graphs turn into.

    symgrad compile FILE.py[:OBJECT] -o OUT      write the generated module(s)
        [--checkpoint DIR]                       ... with the variables' values baked in
        [--backend array_api]                    ... in the portable form (array API standard)
    symgrad show OUT_OR_FILE                     inputs, outputs and formulas
    symgrad show --after PASS FILE.py[:OBJECT]   the Program after one pass (symgrad.passes)
    symgrad show FILE.py[:OBJECT] --graph G.svg  ... and a picture of the graph (.svg or .dot)
    symgrad check FILE.py[:OBJECT]               gradients against finite differences
    symgrad export MODEL -o OUT.py               a TensorFlow model (frozen .pb, .meta +
        [--inputs x:0] [--outputs logits:0]      checkpoint, SavedModel) as a NumPy module
    symgrad cache clear | info                   the cache of generated modules

``FILE.py`` alone runs the file as a script and collects every module it
compiles (directly or through a Session). ``FILE.py:OBJECT`` takes one object
of the file instead: a CompiledModule, a traced function (``sg.function``), or a
function without arguments that builds a graph and returns its outputs.
"""

from __future__ import annotations

import argparse
import runpy
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

from . import checkpoint, compiler, files
from .backends import registry
from .backends.numpy.printer import formula_text
from .errors import SymgradError
from .graph import Graph, Tensor, ancestors
from .model_export import export_model
from .ops.reductions import reduce_sum
from .passes import pass_names
from .program import Program
from .python_functions import Function, TracedFunction
from .shapes import format_shape


class CommandError(Exception):
    """A user error on the command line: reported on stderr with exit code 2."""


def _collect(target: str) -> list[compiler.CompiledModule]:
    path_text, _, object_name = target.partition(":")
    path = Path(path_text)
    if not path.is_file():
        raise CommandError(f"no such file: {path_text}")
    collected: list[compiler.CompiledModule] = []
    compiler._observers.append(collected.append)
    try:
        sys.path.insert(0, str(path.resolve().parent))
        namespace = runpy.run_path(
            str(path), run_name="__main__" if not object_name else "__symgrad__"
        )
    finally:
        compiler._observers.remove(collected.append)
        sys.path.pop(0)
    if not object_name:
        if not collected:
            raise CommandError(f"{path_text} compiled nothing; name an object: {path_text}:OBJECT")
        return collected
    if object_name not in namespace:
        raise CommandError(f"{path_text} has no object named {object_name!r}")
    return [_as_compiled(namespace[object_name], object_name)]


def _as_compiled(obj: Any, name: str) -> compiler.CompiledModule:

    if isinstance(obj, compiler.CompiledModule):
        return obj
    if isinstance(obj, Function):
        # Traced on call: only the shapes it was called with exist.
        if not obj.specializations:
            raise CommandError(
                f"{name!r} is an @sg.function that has not been called yet; call it once in "
                f"the file, or give it one sg.TensorSpec per argument"
            )
        return obj.last
    if isinstance(obj, TracedFunction):
        return obj.compile(name=name)
    if callable(obj):
        with Graph().as_default():
            result = obj()
            if isinstance(result, (compiler.CompiledModule, TracedFunction)):
                return _as_compiled(result, name)
            return compiler.compile(result, name=name)
    raise CommandError(
        f"{name!r} is a {type(obj).__name__}: expected a CompiledModule, a traced function, "
        f"or a function that builds a graph and returns its outputs"
    )


def _with_checkpoint(
    module: compiler.CompiledModule, folder: str, backend: str = "numpy"
) -> compiler.CompiledModule:
    """``module`` compiled again with its variables' values from a checkpoint as constants."""
    values = checkpoint.read_checkpoint(folder)
    outputs: dict[str, Tensor | None] = {
        o.name: t for o, t in zip(module.program.outputs, module.output_tensors, strict=True)
    }
    feeds = [t for t in module.input_tensors if t.op.type != "VariableV2"]
    return compiler.compile(
        outputs, inputs=feeds, name=module.program.name, values=values, backend=backend
    )


def _in_backend(module: compiler.CompiledModule, backend: str) -> compiler.CompiledModule:
    """``module`` compiled again, with the same inputs and outputs, for ``backend``."""
    if module.backend == backend:
        return module
    outputs: dict[str, Tensor | None] = {
        o.name: t for o, t in zip(module.program.outputs, module.output_tensors, strict=True)
    }
    return compiler.compile(
        outputs,
        inputs=module.input_tensors,
        name=module.program.name,
        simplify=module.simplified,
        backend=backend,
    )


def _compile(args: argparse.Namespace) -> None:
    modules = _collect(args.target)
    if args.checkpoint:
        modules = [_with_checkpoint(m, args.checkpoint, args.backend) for m in modules]
    else:
        modules = [_in_backend(m, args.backend) for m in modules]
    out = Path(args.output)
    if len(modules) == 1 and out.suffix == ".py":
        files.write_atomic(out, modules[0].source)
        print(f"wrote {out}")
        return
    for destination, module in zip(_file_names(out, modules), modules, strict=True):
        files.write_atomic(destination, module.source)
        print(f"wrote {destination}")


def _file_names(out: Path, modules: Sequence[compiler.CompiledModule]) -> list[Path]:
    """One file per module, never two with the same name: a script whose Sessions each compile a
    ``run_1`` gets ``run_1.py``, ``run_1_2.py``, ... (identical modules share one file)."""
    names: dict[str, str] = {}  # file name -> source written there
    chosen = []
    for module in modules:
        stem, number = module.program.name, 1
        name = f"{stem}.py"
        while name in names and names[name] != module.source:
            number += 1
            name = f"{stem}_{number}.py"
        names[name] = module.source
        chosen.append(out / name)
    return chosen


def _show(args: argparse.Namespace) -> None:
    path_text, _, object_name = args.target.partition(":")
    path = Path(path_text)
    if path.is_file() and not object_name:
        try:
            text = path.read_bytes().decode()
        except UnicodeDecodeError:
            raise CommandError(f"{path} is not a text file (it is not UTF-8)") from None
        if text.startswith('"""Generated by symgrad'):
            if args.graph:
                raise CommandError(
                    f"{path} is a generated module, which keeps no graph; for --graph, "
                    f"show the file that builds it: FILE.py[:OBJECT]"
                )
            print(text.split('"""')[1].strip())
            return
        if path.suffix != ".py":
            raise CommandError(f"{path} is neither a generated module nor a Python script")
    modules = _collect(args.target)
    for module in modules:
        if args.after:
            print(_program_text(module.program_after(args.after)))
            continue
        program = module.program
        print(f"{program.name}  ({module.path})")
        for item in program.inputs:
            shape = "any shape" if item.shape is None else item.shape
            print(f"  input  {item.name}: {item.dtype.name} {shape} ({item.kind})")
        for output in program.outputs:
            shape = "any shape" if output.shape is None else output.shape
            print(f"  output {output.name}: {output.dtype.name} {shape}")
        for line in module.explain().splitlines():
            print(f"  {line}")
    if args.graph:
        _write_pictures(modules, Path(args.graph))


def _write_pictures(modules: list[compiler.CompiledModule], target: Path) -> None:
    """One picture per module: ``target`` itself for one, ``stem.MODULE.suffix`` for several."""
    if target.suffix.lower() not in (".svg", ".dot", ".gv"):
        raise CommandError(f"--graph {target}: use a .svg, .dot or .gv file")
    target.parent.mkdir(parents=True, exist_ok=True)
    for module in modules:
        destination = target
        if len(modules) > 1:
            destination = target.with_name(f"{target.stem}.{module.program.name}{target.suffix}")
        module.graph().save(destination)
        print(f"wrote {destination}")


def _program_text(program: Program) -> str:
    """One line per statement: ``[section] name: dtype shape = formula``."""
    lines = [f"program {program.name}"]
    lines += [f"  input {i.name}: {i.dtype.name} {format_shape(i.shape)}" for i in program.inputs]
    for s in program.statements:
        dtype = getattr(s.dtype, "name", s.dtype)
        lines.append(f"  [{s.section}] {s.name}: {dtype} = {formula_text(s.expr)}")
    lines += [f"  output {o.name} = {o.symbol}" for o in program.outputs]
    return "\n".join(lines)


def _random_value(tensor: Tensor, rng: np.random.Generator) -> Any:
    if tensor.op.type == "VariableV2":
        return compiler.evaluate_constant(tensor.initial_value)  # type: ignore[attr-defined]  # a VariableV2's output is a Variable
    shape = () if tensor.shape is None else tuple(3 if d is None else d for d in tensor.shape)
    if tensor.dtype.is_floating:
        return rng.standard_normal(shape).astype(tensor.dtype.numpy)
    if tensor.dtype.is_bool:
        return rng.random(shape) < 0.5
    return rng.integers(0, 2, shape).astype(tensor.dtype.numpy)


def _check_module(module: compiler.CompiledModule, rng: np.random.Generator) -> list[float]:
    """The relative error of each of the module's gradients against central differences
    (gradients of inputs only; where the difference is not finite, none)."""
    inputs = module.input_tensors
    values = [_random_value(t, rng) for t in inputs]
    flat = module.function(*values, *_fixed_streams(module))
    flat = flat if isinstance(flat, tuple) else (flat,)
    errors: list[float] = []
    for tensor, grad in zip(module.output_tensors, flat, strict=False):
        info = tensor.op.attrs.get("gradient_of")
        if not info or not info[2] or info[1] not in inputs or not info[1].dtype.is_floating:
            continue
        ys, x, _ = info
        if _stopped_between(x, ys):
            continue  # stop_gradient makes the gradient differ from the function's derivative on purpose
        with x.graph.as_default():
            # ys has several tensors here, so the sum (from 0) is a tensor.
            total = (
                reduce_sum(ys[0]) if len(ys) == 1 else cast(Tensor, sum(reduce_sum(y) for y in ys))
            )
            compiled = compiler.compile(total, inputs=inputs, name="objective")
            objective = compiled.function
        position = inputs.index(x)
        direction = rng.standard_normal(np.shape(values[position]))
        step = 1e-6 if x.dtype.numpy == np.float64 else 1e-2
        plus, minus = list(values), list(values)
        plus[position] = values[position] + step * direction
        minus[position] = values[position] - step * direction
        numeric = (
            float(objective(*plus, *_fixed_streams(compiled)))
            - float(objective(*minus, *_fixed_streams(compiled)))
        ) / (2 * step)
        analytic = float(np.sum(np.asarray(grad, dtype=np.float64) * direction))
        error = abs(numeric - analytic) / max(abs(numeric), abs(analytic), 1e-12)
        if np.isfinite(error):
            errors.append(error)
    return errors


def _fixed_streams(module: compiler.CompiledModule) -> list[Any]:
    """The ``rng`` argument of a module with random ops (none for one without): one generator
    per op, seeded by its name, so every call and every module draws the same mask and finite
    differences see a smooth function."""
    names = module.program.random_streams
    if not names:
        return []
    return [[np.random.default_rng([0, zlib.crc32(name.encode())]) for name in names]]


def _stopped_between(x: Tensor, ys: Sequence[Tensor]) -> bool:
    """True if a stop_gradient lies on some path from x to the ys."""
    stack, seen = [y.op for y in ys], set()
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.type in ("StopGradient", "ZeroGradient") and x.op in ancestors([op]):
            return True
        stack.extend(t.op for t in op.inputs)
    return False


def _check(args: argparse.Namespace) -> int:
    """Exit status 0 if every gradient checked agrees within ``--rtol``, 1 if one does not or
    there was nothing to check. The last line, ``symgrad check: PASS|FAIL|NOTHING ...``, is
    for CI logs to grep."""
    rng = np.random.default_rng(args.seed)
    worst_overall, checked, failed = 0.0, 0, 0
    for module in _collect(args.target):
        errors = _check_module(module, rng)
        if not errors:
            print(f"{module.program.name}: no gradient of its inputs to check")
            continue
        worst = max(errors)
        bad = sum(error > args.rtol for error in errors)
        worst_overall, checked, failed = (
            max(worst_overall, worst),
            checked + len(errors),
            failed + bad,
        )
        verdict = "ok" if not bad else f"{bad} of {len(errors)} above rtol"
        print(f"{module.program.name}: worst relative error {worst:.2e} ({verdict})")
    if not checked:
        print("symgrad check: NOTHING to check: no gradient of an input was computed")
        return 1
    print(f"worst relative error: {worst_overall:.2e}")
    if failed:
        print(
            f"symgrad check: FAIL: {failed} of {checked} gradients differ from central "
            f"differences by more than rtol={args.rtol:g} (worst {worst_overall:.2e})"
        )
        return 1
    print(f"symgrad check: PASS: {checked} gradients within rtol={args.rtol:g}")
    return 0


def _cache(args: argparse.Namespace) -> None:
    directory = files.cache_directory()
    if args.action == "clear":
        removed = files.clear_cache(directory)
        print(f"removed {len(removed)} files from {directory}")
        return
    modules = files.cached_modules(directory)
    size = sum(p.stat().st_size for p in modules if p.exists())
    print(
        f"{directory}: {len(modules)} modules, {size / 1e6:.1f} MB "
        f"(keeps at most {files.cache_max_files()}: SYMGRAD_CACHE_MAX_FILES)"
    )


def _export(args: argparse.Namespace) -> None:
    module = export_model(
        args.source,
        args.output,
        inputs=args.inputs,
        outputs=args.outputs,
        checkpoint=args.checkpoint,
        name=args.name,
        backend=args.backend,
    )
    names = ", ".join(output.name for output in module.program.outputs)
    print(
        f"wrote {args.output}: {module.program.name}({', '.join(i.name for i in module.program.inputs)}) -> {names}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="symgrad", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    compile_parser = commands.add_parser(
        "compile", help="write the generated module(s) of FILE.py[:OBJECT]"
    )
    compile_parser.add_argument("target", metavar="FILE.py[:OBJECT]")
    compile_parser.add_argument(
        "-o", "--output", required=True, help="a .py file (one module) or a folder"
    )
    compile_parser.add_argument(
        "--checkpoint",
        metavar="DIR",
        help="a checkpoint folder (its latest checkpoint) or prefix: bake the saved values "
        "of the variables into the module",
    )
    compile_parser.add_argument(
        "--backend",
        choices=registry.names(),
        default="numpy",
        help="numpy: the NumPy module (default); array_api: the portable module, written "
        "against the Python array API standard (runs on NumPy, PyTorch, JAX, CuPy, Dask)",
    )
    compile_parser.set_defaults(run=_compile)
    show_parser = commands.add_parser(
        "show", help="inputs, outputs and formulas of a module or FILE.py[:OBJECT]"
    )
    show_parser.add_argument("target", metavar="OUT_OR_FILE")
    show_parser.add_argument(
        "--after",
        metavar="PASS",
        choices=pass_names(),
        help="print the Program after this pass: " + ", ".join(pass_names()),
    )
    show_parser.add_argument(
        "--graph",
        metavar="OUT.svg|OUT.dot",
        help="also draw the graph: DOT text, or SVG when Graphviz is installed",
    )
    show_parser.set_defaults(run=_show)
    check_parser = commands.add_parser("check", help="compare gradients with finite differences")
    check_parser.add_argument("target", metavar="FILE.py[:OBJECT]")
    check_parser.add_argument(
        "--seed", type=int, default=0, help="seed of the random points (default 0)"
    )
    check_parser.add_argument(
        "--rtol",
        type=float,
        default=1e-3,
        help="largest relative error that passes (default 1e-3)",
    )
    check_parser.set_defaults(run=_check)
    export_parser = commands.add_parser(
        "export",
        help="a TensorFlow model (frozen .pb/.pbtxt, .meta + checkpoint, SavedModel folder) "
        "as a standalone NumPy module with its trained weights",
    )
    export_parser.add_argument("source", metavar="MODEL", help="a .pb, .pbtxt, .meta or folder")
    export_parser.add_argument("-o", "--output", required=True, help="the .py file to write")
    export_parser.add_argument(
        "--inputs",
        nargs="+",
        metavar="TENSOR",
        help="input tensors (x:0); default: the placeholders",
    )
    export_parser.add_argument(
        "--outputs", nargs="+", metavar="TENSOR", help="output tensors (logits:0)"
    )
    export_parser.add_argument(
        "--checkpoint", metavar="PREFIX_OR_DIR", help="the weights of a .meta (default: beside it)"
    )
    export_parser.add_argument("--name", help="the function's name (default: the file's)")
    export_parser.add_argument(
        "--backend", choices=registry.names(), default=registry.DEFAULT, help="as for compile"
    )
    export_parser.set_defaults(run=_export)
    cache_parser = commands.add_parser(
        "cache", help="'clear' deletes the cached generated modules; 'info' counts them"
    )
    cache_parser.add_argument("action", choices=["clear", "info"])
    cache_parser.set_defaults(run=_cache)
    args = parser.parse_args(argv)
    try:
        status = args.run(args)
    except (CommandError, SymgradError) as error:
        print(f"symgrad {args.command}: {error}", file=sys.stderr)
        return 2
    return status or 0


if __name__ == "__main__":
    sys.exit(main())
