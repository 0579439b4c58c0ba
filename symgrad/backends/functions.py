"""The text of the functions a generated module defines besides its main one: loop
drivers (a ``while`` or ``for`` statement calling the body) and bodies (a branch of a
``cond``, a loop's condition or body), shared by the backends, which pass their own
statement lines and their spelling of ``stack``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..program import Function, Program

# A body line: its text, whether it runs with floating-point warnings silenced, its comment.
BodyLine = tuple[str, bool, str]


def _call(name: str, arguments: Sequence[str]) -> str:
    return f"{name}({', '.join(arguments)})"


def _targets(names: Sequence[str]) -> str:
    return ", ".join(names) + ("," if len(names) == 1 else "")


def loop_text(
    function: Function,
    stack: str,
    truth: Callable[[str, str], str] = lambda text, _: text,
    rest: str = "",
) -> list[str]:
    """The lines of a loop function (unindented), ``stack`` the backend's stacking call
    (``np.stack``, ``xp.stack``), ``truth(test, where)`` its spelling of a condition's truth,
    ``rest`` what follows a row's index (the array API wants ``x[t, ...]``)."""
    loop = function.loop
    assert loop is not None
    lines = [
        f"def {_call(function.name, function.parameters)}:",
        f'    """{function.description}"""',
    ]
    step_outputs = list(loop.outputs)
    for name in step_outputs:
        lines.append(f"    {name} = []")
    if loop.saves:
        lines.append(f"    {loop.trace} = []")
    if loop.kept:
        lines.append(f"    {loop.shapes} = ({_targets([f'{n}.shape' for n in loop.kept])})")
    if loop.kind == "while":
        rng = ["rng"] if loop.rng else []
        test = truth(_call(loop.condition, [*loop.carried, *loop.captured, *rng]), function.name)
        if loop.limit:
            lines.append(f"    {loop.step} = 0")
            test = f"{truth(f'{loop.step} < {loop.limit}', function.name)} and {test}"
        lines.append(f"    while {test}:")
        rows: list[str] = []
    else:
        first, width = loop.sequences[0]
        count = f"{first}.shape[0]" if width is None else f"len({first})"
        steps = f"range({count})"
        lines.append(
            f"    for {loop.step} in {'reversed(' + steps + ')' if loop.reverse else steps}:"
        )
        cuts = loop.cuts or (False,) * len(loop.sequences)
        rows = [
            f"{name}[{loop.step}{rest}]"
            if width is None
            else f"*{name}[{loop.step}][:{width}]"
            if cut
            else f"*{name}[{loop.step}]"
            for (name, width), cut in zip(loop.sequences, cuts, strict=True)
            if width != 0
        ]
    if loop.saves:
        lines.append(f"        {loop.trace}.append(({_targets(loop.carried)}))")
    results = [*loop.carried, *(f"{name}_row" for name in step_outputs), *loop.draws]
    body = _call(loop.body, [*loop.carried, *rows, *loop.captured, *(["rng"] if loop.rng else [])])
    lines.append(f"        {_targets(results) if len(results) > 1 else results[0]} = {body}")
    if loop.saves and loop.draws:  # what the step drew, for the gradient to see again
        lines.append(f"        {loop.trace}[-1] += ({_targets(loop.draws)})")
    if loop.kept:
        names = _targets([f'"{n}"' for n in loop.kept])
        lines.append(
            f'        _kept_shapes("{function.name}", ({names}), ({_targets(loop.kept)}), '
            f"{loop.shapes})"
        )
    for name in step_outputs:
        lines.append(f"        {name}.append({name}_row)")
    if loop.kind == "while" and loop.limit:
        lines.append(f"        {loop.step} += 1")
    if loop.reverse:  # the rows' order, whichever way the loop ran
        for name in step_outputs + ([loop.trace] if loop.saves else []):
            lines.append(f"    {name}.reverse()")
    returned = [*loop.carried, *(f"{stack}({name})" for name in step_outputs)]
    returned += [loop.trace] if loop.saves else []
    lines.append(f"    return {_targets(returned)}")
    return lines


def body_text(
    function: Function,
    lines: Sequence[BodyLine],
    summary: str,
    quiet: Callable[[str], str],
) -> list[str]:
    """The lines of a body function (unindented): its parameters are its program's inputs,
    it returns its outputs. ``quiet(text)`` is the backend's block that silences
    floating-point warnings around a guarded line."""
    program = function.program
    assert program is not None
    parameters = [i.name for i in program.inputs] + (["rng"] if function.takes_rng else [])
    text = [
        f"def {_call(function.name, parameters)}:",
        f'    """{function.description}"""',
        f"    # {summary}",
    ]
    for line, guarded, comment in lines:
        if comment:
            text.append(f"    # {comment}")
        if guarded:
            text.append(f"    {quiet(line)}")
            text.append(f"        {line}")
        else:
            text.append(f"    {line}")
    text.append(f"    return {_returned(program, function.returns_tuple)}")
    return text


def _returned(program: Program, as_tuple: bool) -> str:
    names = [str(o.symbol) for o in program.outputs]
    return _targets(names) if as_tuple else ", ".join(names)
