"""Which value of a variable each read sees within one run, by TF1's order.

A run computes every value from the variables as they were when it started (a snapshot),
except where TF1 orders a read after a write: a read by an op that runs after an assignment
of the same variable sees the assigned value. An op runs after an assignment when the
assignment is among its ancestors through data inputs or control inputs (a
``control_dependencies`` block, ``tf.group``, ``tf.tuple``, or a value computed after it).
Reads that TF1 leaves unordered (not after the assignment) see the snapshot.

This is the order the tracer follows (:mod:`symgrad.lowering` reads the assignment's value in
place of the variable) and the one ``Session`` checks feeds against: feeding a variable that
the same run assigns is refused, as in TF1.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.Variable(1.0, name="x")
...     with sg.control_dependencies([sg.assign(x, 10.0, name="set_x")]):
...         y = sg.identity(x, name="y")
...     [(op.name, position, seen.name) for (op, position), seen in reads_after_writes([y.op]).items()]
[('y', 0, 'set_x:0')]
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from .graph import Operation, Tensor, ancestors

# One variable's latest assignment an op runs after, by variable.
Writes = dict[Tensor, Operation]
_NONE: Writes = {}


def reads_after_writes(
    roots: Sequence[Operation], fed: Collection[Tensor] = ()
) -> dict[tuple[Operation, int], Tensor]:
    """For each (op, input position) at which an op that ``roots`` run reads a variable after
    an assignment of it in the same run, the assignment's output: the value written.

    A fed tensor's op does not run, so it orders nothing. Of two assignments of one variable
    that an op runs after, the later one (by creation) is the one it sees.
    """
    every = ancestors(roots, control=True, stop=fed)
    if not any(op.type == "Assign" for op in every):
        return {}
    stopped = set(fed)
    before: dict[Operation, Writes] = {}
    reads: dict[tuple[Operation, int], Tensor] = {}
    for op in every:  # graph order: what an op depends on was made before it
        if any(t in stopped for t in op.outputs):
            before[op] = _NONE
            continue
        writes = _merged(op, before)
        before[op] = writes
        if not writes:
            continue
        for position, tensor in enumerate(op.inputs):
            written = writes.get(tensor)
            if written is not None and tensor.op.type == "VariableV2":
                reads[(op, position)] = written.outputs[0]
    return reads


def _merged(op: Operation, before: dict[Operation, Writes]) -> Writes:
    """The assignments ``op`` runs after: those of its inputs' and control inputs' ops, and
    those ops themselves where they assign."""
    merged: Writes | None = None
    for source in [t.op for t in op.inputs] + list(op.attrs.get("control", ())):
        inherited = before.get(source, _NONE)
        # An assignment writes its variable; a cond writes what its branch assigns.
        own = [source] if source.type == "Assign" else list(source.attrs.get("assigns", ()))
        if not inherited and not own:
            continue
        if merged is None:
            merged = {}
        for variable, assignment in inherited.items():
            _keep_later(merged, variable, assignment)
        for assignment in own:
            _keep_later(merged, assignment.attrs["variable"], assignment)
    return merged or _NONE


def _keep_later(writes: Writes, variable: Tensor, assignment: Operation) -> None:
    known = writes.get(variable)
    if known is None or known.index < assignment.index:
        writes[variable] = assignment
