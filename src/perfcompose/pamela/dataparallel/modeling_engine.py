"""The Modeling Engine (paper 004, section 3): a data-parallel Python program's source read (never
run) into one PAMELA process, as docs/pamela.md, "The Modeling Engine", describes; what cannot be
read off the source comes from ``# pamela:`` annotations, and anything else is a located error.
"""
from __future__ import annotations

import ast
import copy
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from perfcompose.pamela.dataparallel.engine_expressions import ExpressionReader, pragmas
from perfcompose.pamela.dataparallel.engine_values import Array, Runs, Step, elementwise, paren, render
from perfcompose.pamela.language.syntax import PamelaError

__all__ = ["generate", "generate_text", "pragmas", "Generated"]


@dataclass(frozen=True)
class Generated:
    """A generated model: its text, parameters and how many annotations the program needed."""

    text: str
    parameters: tuple[str, ...]
    annotations: int
    #: the statements that cost something: (file, line, source), in the order they were read
    statements: tuple[tuple[str, int, str], ...] = ()


class _Substitute(ast.NodeTransformer):
    """A helper's parameters replaced by the caller's arguments."""

    def __init__(self, bound: dict[str, ast.expr]):
        self.bound = bound

    def visit_Name(self, node: ast.Name) -> ast.AST:  # noqa: N802 - ast's visitor naming
        arg = self.bound.get(node.id)
        return copy.deepcopy(arg) if arg is not None and isinstance(node.ctx, ast.Load) else node


class _Engine(ExpressionReader):
    """The statements of a program read into PAMELA steps, helpers of its own modules inlined."""

    def declare(self, node: ast.Call) -> Array:
        shape_node = node.args[0]
        dims = list(shape_node.elts) if isinstance(shape_node, ast.Tuple) else [shape_node]
        gshape = tuple(self.sym(d) for d in dims)
        layout, axis = "replicated", None
        lay = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "layout"), None)
        if lay is not None:
            if not (isinstance(lay, ast.Call) and isinstance(lay.func, ast.Name)
                    and lay.func.id in ("block", "cyclic", "replicated")):
                raise self.error(lay, "a layout is block(axis), cyclic(axis) or replicated()")
            layout = lay.func.id
            if layout != "replicated":
                first = lay.args[0] if lay.args else ast.Constant(0)
                axis = int(first.value) if isinstance(first, ast.Constant) and type(first.value) is int else -1
                if not 0 <= axis < len(gshape):
                    raise self.error(lay, f"the axis of {layout}() is a whole number from 0 to {len(gshape) - 1} "
                                     "(the array's last axis)")
        local = list(gshape)
        if axis is not None:
            local[axis] = f"ceil({paren(gshape[axis])} / P)"
        return Array(tuple(local), False, dist_axis=axis, layout=layout, global_shape=gshape)

    def assign_target(self, target: ast.AST, value: object) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = value
        elif not isinstance(target, (ast.Subscript, ast.Attribute)):
            raise self.error(target, "assign to one name or one subscript")

    def statement(self, node: ast.stmt) -> list[Step]:
        override = self.pragma(node, "cost")
        if override is not None:
            return self.kept(node, [Step(f"use(cpu(p), {override})", True)])
        call = node.value if isinstance(node, (ast.Expr, ast.Assign)) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in self.helpers:
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
            return self.inline(call, call.func.id, target)
        if isinstance(node, ast.For):
            return self.loop(node)
        if isinstance(node, ast.If):
            return self.branch(node)
        if isinstance(node, ast.Pass) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            return []  # pass, or a docstring
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)):
            return self.kept(node, self.simple(node))
        raise self.error(node, f"the engine cannot model a '{type(node).__name__}' statement",
                         "write the program with for, if, assignments and dp calls (no while, break, return)")

    def block(self, statements: list[ast.stmt]) -> list[Step]:
        """The steps of statements in sequence; a call short of arguments or with an axis that is no
        number (``dp.bcast(A)``, ``dp.redistribute(A, k)``) is an error at its statement."""
        steps = []
        for stmt in statements:
            try:
                steps += self.statement(stmt)
            except (IndexError, ValueError):
                raise self.error(stmt, "the engine cannot read this statement: a call short of arguments, or "
                                 "an axis that is not a whole number of the array", "give every call its arguments, "
                                 "axes as whole numbers written out") from None
        return steps

    def simple(self, node: ast.Assign | ast.AugAssign | ast.Expr) -> list[Step]:
        size = self.pragma(node, "size")
        value_node = node.value
        if isinstance(node, ast.Assign) and len(node.targets) != 1:
            raise self.error(node, "assign to one target at a time")
        if isinstance(value_node, ast.Call):
            name = self.call_name(value_node)
            if name == "dp.array":
                if not isinstance(node, ast.Assign):
                    raise self.error(node, "dp.array(...) declares an array: assign it to a name",
                                     "write 'a = dp.array((shape), layout)'")
                self.assign_target(node.targets[0], self.declare(value_node))
                return []
            if name.startswith("dp.") and name not in ("dp.after", "dp.merge"):
                text, result = self.comm(value_node, size)
                if isinstance(node, ast.Assign):
                    self.assign_target(node.targets[0], result)
                # a broadcast's root sends and goes on, a receiver waits for the root only: no step of
                # all processors together, each goes on with its own work (a pipeline over a loop)
                return [Step(text, name == "dp.bcast")]
            if name == "dp.merge":
                runs = self.value(value_node.args[0], [])
                n = size or self.elements(runs)
                k = runs.count if isinstance(runs, Runs) else "1"
                if isinstance(node, ast.Assign):
                    self.assign_target(node.targets[0], Array((n,)))
                return [Step(f"merge(p, {n}, {k})", True)]
        cost: list[str] = []
        value = self.value(value_node, cost, size)
        if isinstance(node, ast.AugAssign):
            target = self.value(node.target, cost)
            if isinstance(target, Array):
                cost.append(elementwise(target, target.strided, self.elements(target)))
        elif isinstance(node, ast.Assign):
            target = node.targets[0]
            if isinstance(target, ast.Subscript):
                t = self.value(target, cost)
                if isinstance(value, Array):  # the value is written into the target
                    cost.append(f"copy(p, {self.elements(t)})")
            else:
                if size is not None and isinstance(value, Array):
                    value = Array((size,), value.strided)
                self.assign_target(target, value)
        return [Step(s, True) for s in cost]

    def kept(self, node: ast.stmt, steps: list[Step]) -> list[Step]:
        """A statement's steps, noted; none where the model is of another statement alone."""
        where = (os.path.realpath(self.path or ""), node.lineno)
        if steps:
            self.statements.append((*where, self.lines[node.lineno - 1].strip() if node.lineno <= len(self.lines)
                                    else ""))
        return steps if self.only is None or self.only == where else []

    def loop(self, node: ast.For) -> list[Step]:
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "a loop runs over one index")
        if node.orelse:
            raise self.error(node, "for ... else cannot be modelled")
        index = node.target.id
        lower, upper = self.pragma(node, "lower"), self.pragma(node, "upper")
        it = node.iter
        if lower is None or upper is None:
            if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                    and 1 <= len(it.args) <= 2):
                raise self.error(it, "the engine reads loops over range(a, b); give other bounds",
                                 "annotate: '# pamela: lower = FIRST, upper = LAST'")
            a = self.sym(it.args[0]) if len(it.args) == 2 else "0"
            b = self.sym(it.args[-1])
            lower = lower or a
            upper = upper or f"{paren(b)} - 1"
        self.indices.add(index)
        body = self.block(node.body)
        if not body:
            return []
        compute = all(s.compute for s in body)
        inner = " ; ".join(s.text for s in body) if compute else render(body)
        return [Step(f"seq ({index} = {lower}, {upper}) {{ {inner} }}", compute)]

    def branch(self, node: ast.If) -> list[Step]:
        cond = self.pragma(node, "cond")
        if cond is None:
            try:
                cond = self.sym(node.test)
            except PamelaError:
                raise self.error(node.test, "the condition depends on the data",
                                 "give its probability: '# pamela: cond = 0.5'") from None
        then, other = self.block(node.body), self.block(node.orelse)
        if not then and not other:
            return []
        compute = all(s.compute for s in then + other)
        a, b = ((" ; ".join(s.text for s in part) if compute else render(part)) or "delay(0)" for part in (then, other))
        return [Step(f"if ({cond}) {{ {a} }} else {{ {b} }}", compute)]

    # -- helpers: functions of other modules the program calls, read as if written in place ------

    def find_helpers(self, tree: ast.Module) -> None:
        """Every ``from MODULE import name`` of the program whose module has Python source."""
        for node in tree.body:
            if not isinstance(node, ast.ImportFrom) or not node.module or node.level:
                continue
            try:
                spec = importlib.util.find_spec(node.module)
            except (ImportError, ValueError):
                continue
            if spec is None or not spec.origin or not spec.origin.endswith(".py"):
                continue
            for alias in node.names:
                self.helpers[alias.asname or alias.name] = (spec.origin, alias.name)

    def inline(self, call: ast.Call, helper: str, target: ast.expr | None) -> list[Step]:
        """The steps of the body of ``helper`` (the function ``call`` calls), its parameters replaced by
        the call's arguments; ``target = <the value it returns>`` where the call is assigned."""
        origin, name = self.helpers[helper]
        source = Path(origin).read_text(encoding="utf-8")
        fn = next((n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == name), None)
        if fn is None or call.keywords or len(call.args) != len(fn.args.args):
            raise self.error(call, f"'{ast.unparse(call.func)}' is not a function the engine can read here",
                             "call a function of a module of your own with its positional parameters")
        bound = dict(zip((a.arg for a in fn.args.args), call.args))
        body = [_Substitute(bound).visit(stmt) for stmt in fn.body]
        if body and isinstance(body[-1], ast.Return):
            value = body.pop().value
            if target is not None and value is not None:
                body.append(ast.copy_location(ast.Assign(targets=[target], value=value), fn.body[-1]))
        saved = (self.path, self.lines, self.pragmas)
        self.path, self.lines, self.pragmas = origin, source.splitlines(), pragmas(source, origin)
        try:
            return self.block(body)
        finally:
            self.path, self.lines, self.pragmas = saved

    def program(self, tree: ast.Module) -> Generated:
        fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "program"), None)
        if fn is None:
            raise PamelaError("no function 'program(dp, ...)'", path=self.path,
                              hint="define 'def program(dp, N): ...' whose parameters are the model's")
        args = [a.arg for a in fn.args.args]
        if not args:
            raise self.error(fn, "program takes the machine first: program(dp, N, ...)")
        self.dp = args[0]
        self.params = args[1:]
        for name in self.params:
            if name in ("P", "p"):
                raise self.error(fn, f"'{name}' names the processors; call the parameter something else")
        self.find_helpers(tree)
        body = render(self.block(fn.body)) or "delay(0)"
        header = "".join(f"numeric parameter {p}\n" for p in self.params)
        text = (f"% generated from {Path(self.path).name if self.path else 'a program'} by the Modeling Engine\n"
                + "{include}" + header + f"\nprocess main = {body}\n")
        return Generated(text, tuple(self.params) + ("P",), self.used_pragmas, tuple(self.statements))


def generate_text(source: str, path: str | Path | None = None, machine: str | None = "machine.pam",
                  only: tuple[str, int] | None = None) -> Generated:
    """The PAMELA model of a program's source; ``machine``: the machine model file it includes;
    ``only``: (file, line) of the one statement to model (the others cost nothing), for a cost
    per statement."""
    p = None if path is None else str(path)
    try:
        tree = ast.parse(source, filename=p or "<program>")
    except SyntaxError as exc:
        raise PamelaError(f"not Python: {exc.msg}", path=p, line=exc.lineno, column=exc.offset,
                          source_line=(exc.text or "").rstrip("\n") or None) from None
    g = _Engine(source, p, only).program(tree)
    include = f'include "{machine}"\n' if machine else ""
    return Generated(g.text.replace("{include}", include, 1), g.parameters, g.annotations, g.statements)


def generate(path: str | Path, machine: str | None = "machine.pam", only: tuple[str, int] | None = None) -> Generated:
    """The PAMELA model of a program file (``only``: as for :func:`generate_text`)."""
    p = Path(path)
    try:
        source = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PamelaError(f"cannot read {p}: {exc}", path=str(p), hint="check the path") from None
    return generate_text(source, p, machine, only)
