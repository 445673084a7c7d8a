"""Retry delays: QStash-style expressions over ``retried`` and the default backoff.

A message may carry ``retry_delay``, an expression such as ``1000 * pow(2, retried)`` giving the
milliseconds to wait before retry number ``retried`` (1 for the first retry). Expressions come from
API callers, so they are never handed to ``eval``: they are parsed with :mod:`ast` and only a
whitelist of nodes is turned into a small tree of closures. Every value is a float, which keeps
arithmetic bounded (an int ``pow`` could allocate without limit) and makes overflow an error we can
report instead of a hang.

An expression is also evaluated for every retry a message can have (1 to its ``retries``) when it
is compiled, so a delay that is negative, not finite or longer than ``MAX_DELAY_MS`` is refused at
publish time rather than surprising the delivery engine later.
"""

from __future__ import annotations

import ast
import math
import random
from collections.abc import Callable

__all__ = [
    "DEFAULT_BACKOFF_BASE_MS",
    "DEFAULT_BACKOFF_CAP_MS",
    "MAX_DELAY_MS",
    "MAX_EXPRESSION_LENGTH",
    "MAX_RETRIED",
    "RetryDelay",
    "RetryDelayError",
    "compile_retry_delay",
    "default_backoff_ms",
]

MAX_EXPRESSION_LENGTH = 256
MAX_RETRIED = 20
MAX_DELAY_MS = 7 * 24 * 3600 * 1000.0
DEFAULT_BACKOFF_BASE_MS = 1000.0
DEFAULT_BACKOFF_CAP_MS = 3600 * 1000.0

_VARIABLE = "retried"

_Evaluator = Callable[[float], float]


class RetryDelayError(ValueError):
    """A ``retry_delay`` expression that is not allowed, or that gives an unusable delay."""


def _checked_round(value: float, digits: float | None = None) -> float:
    if digits is None:
        return float(round(value))
    if digits != int(digits):
        raise RetryDelayError(f"round() wants a whole number of digits, got {digits:g}")
    return float(round(value, int(digits)))


_FUNCTIONS: dict[str, tuple[Callable[..., float], int, int | None]] = {
    # name: (implementation, minimum arguments, maximum arguments or None for any number)
    "pow": (math.pow, 2, 2),
    "sqrt": (math.sqrt, 1, 1),
    "abs": (lambda value: float(abs(value)), 1, 1),
    "exp": (math.exp, 1, 1),
    "floor": (lambda value: float(math.floor(value)), 1, 1),
    "ceil": (lambda value: float(math.ceil(value)), 1, 1),
    "round": (_checked_round, 1, 2),
    "min": (lambda *values: float(min(values)), 1, None),
    "max": (lambda *values: float(max(values)), 1, None),
}

_BINARY: dict[type[ast.operator], tuple[str, Callable[[float, float], float]]] = {
    ast.Add: ("+", lambda left, right: left + right),
    ast.Sub: ("-", lambda left, right: left - right),
    ast.Mult: ("*", lambda left, right: left * right),
    ast.Div: ("/", lambda left, right: left / right),
    ast.Mod: ("%", lambda left, right: left % right),
}

_OPERATOR_NAMES: dict[type[ast.AST], str] = {
    ast.Pow: "** (use pow(a, b))",
    ast.FloorDiv: "// (use floor(a / b))",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.MatMult: "@",
    ast.Invert: "~",
    ast.Not: "not",
}


class RetryDelay:
    """A compiled ``retry_delay`` expression: call it with ``retried`` to get milliseconds."""

    __slots__ = ("_evaluate", "expression")

    def __init__(self, expression: str, evaluate: _Evaluator) -> None:
        self.expression = expression
        self._evaluate = evaluate

    def __call__(self, retried: int) -> float:
        """Milliseconds to wait before retry number ``retried``; ``RetryDelayError`` if unusable."""
        try:
            value = self._evaluate(float(retried))
        except RetryDelayError as error:
            raise RetryDelayError(
                f"retry_delay {self.expression!r}: {error} for retried={retried}"
            ) from None
        except ZeroDivisionError:
            raise RetryDelayError(
                f"retry_delay {self.expression!r} divides by zero for retried={retried}"
            ) from None
        except OverflowError:
            raise RetryDelayError(
                f"retry_delay {self.expression!r} overflows for retried={retried}"
            ) from None
        except ValueError as error:
            raise RetryDelayError(
                f"retry_delay {self.expression!r} is undefined for retried={retried}: {error}"
            ) from None
        if not math.isfinite(value):
            raise RetryDelayError(
                f"retry_delay {self.expression!r} is not a finite number for retried={retried}"
            )
        if value < 0:
            raise RetryDelayError(
                f"retry_delay {self.expression!r} is negative ({value:g} ms) for retried={retried}"
            )
        if value > MAX_DELAY_MS:
            raise RetryDelayError(
                f"retry_delay {self.expression!r} gives {value:g} ms for retried={retried}, "
                f"more than the {MAX_DELAY_MS:.0f} ms (7 days) limit"
            )
        return value

    def __repr__(self) -> str:
        return f"RetryDelay({self.expression!r})"


def _where(node: ast.AST) -> str:
    # The expression is parsed on one line, so the column is the position a user sees.
    return f"at position {getattr(node, 'col_offset', 0) + 1}"


def _compile_node(node: ast.AST) -> _Evaluator:
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise RetryDelayError(f"only numbers are allowed, not {value!r} {_where(node)}")
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            raise RetryDelayError(f"the number {_where(node)} is too large")
        return lambda _retried: number
    if isinstance(node, ast.Name):
        if node.id != _VARIABLE:
            raise RetryDelayError(
                f"unknown name {node.id!r} {_where(node)}: the only variable is {_VARIABLE!r}"
            )
        return lambda retried: retried
    if isinstance(node, ast.UnaryOp):
        operand = _compile_node(node.operand)
        if isinstance(node.op, ast.USub):
            return lambda retried: -operand(retried)
        if isinstance(node.op, ast.UAdd):
            return operand
        raise RetryDelayError(f"operator {_operator_name(node.op)} {_where(node)} is not allowed")
    if isinstance(node, ast.BinOp):
        known = _BINARY.get(type(node.op))
        if known is None:
            raise RetryDelayError(
                f"operator {_operator_name(node.op)} {_where(node)} is not allowed; "
                "use + - * / % and the functions"
            )
        left, right = _compile_node(node.left), _compile_node(node.right)
        operation = known[1]
        return lambda retried: operation(left(retried), right(retried))
    if isinstance(node, ast.Call):
        return _compile_call(node)
    raise RetryDelayError(f"{_describe(node)} {_where(node)} is not allowed")


def _compile_call(node: ast.Call) -> _Evaluator:
    if not isinstance(node.func, ast.Name):
        raise RetryDelayError(f"only plain function calls are allowed {_where(node)}")
    name = node.func.id
    known = _FUNCTIONS.get(name)
    if known is None:
        allowed = ", ".join(_FUNCTIONS)
        raise RetryDelayError(
            f"unknown function {name!r} {_where(node)}; the functions are {allowed}"
        )
    if node.keywords:
        raise RetryDelayError(f"{name}() takes no keyword arguments {_where(node)}")
    function, least, most = known
    count = len(node.args)
    if count < least or (most is not None and count > most):
        wanted = (
            str(least)
            if least == most
            else f"{least} or more"
            if most is None
            else f"{least}-{most}"
        )
        raise RetryDelayError(f"{name}() takes {wanted} argument(s), got {count} {_where(node)}")
    if any(isinstance(argument, ast.Starred) for argument in node.args):
        raise RetryDelayError(f"{name}() does not take *arguments {_where(node)}")
    arguments = [_compile_node(argument) for argument in node.args]
    return lambda retried: function(*(argument(retried) for argument in arguments))


def _operator_name(operator: ast.AST) -> str:
    return _OPERATOR_NAMES.get(type(operator), type(operator).__name__)


def _describe(node: ast.AST) -> str:
    descriptions: dict[type[ast.AST], str] = {
        ast.Compare: "a comparison",
        ast.BoolOp: "and/or",
        ast.IfExp: "a conditional expression",
        ast.Attribute: "attribute access",
        ast.Subscript: "indexing",
        ast.Lambda: "a lambda",
        ast.List: "a list",
        ast.Tuple: "a tuple",
        ast.Dict: "a dict",
        ast.Set: "a set",
        ast.JoinedStr: "an f-string",
        ast.NamedExpr: "an assignment",
    }
    return descriptions.get(type(node), type(node).__name__)


def compile_retry_delay(expression: str, *, max_retried: int = MAX_RETRIED) -> RetryDelay:
    """Compile and validate a ``retry_delay`` expression, or raise ``RetryDelayError`` saying why.

    The delay is checked for every ``retried`` from 1 to ``max_retried``: pass the message's
    ``retries`` so that an exponential expression is judged only on the retries it will really
    have (``1000 * pow(2, retried)`` passes 7 days only after retry 19).
    """
    if isinstance(max_retried, bool) or not isinstance(max_retried, int) or max_retried < 0:
        raise ValueError(f"max_retried must be a whole number >= 0, not {max_retried!r}")
    if not isinstance(expression, str):
        raise RetryDelayError(f"retry_delay must be a string, not {type(expression).__name__}")
    text = expression.strip()
    if not text:
        raise RetryDelayError("retry_delay is empty")
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise RetryDelayError(
            f"retry_delay is {len(text)} characters long; at most {MAX_EXPRESSION_LENGTH} allowed"
        )
    if "\n" in text or "\r" in text:
        raise RetryDelayError("retry_delay must be on one line")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as error:
        # Python reports offset 0 for an expression cut short; the user sees that as "at the end".
        position = f"at position {error.offset}" if error.offset else "at the end"
        raise RetryDelayError(
            f"retry_delay {text!r} is not a valid expression {position} ({error.msg})"
        ) from None
    except (RecursionError, MemoryError):
        raise RetryDelayError(f"retry_delay {text!r} is nested too deeply") from None
    try:
        evaluate = _compile_node(tree.body)
    except RecursionError:
        raise RetryDelayError(f"retry_delay {text!r} is nested too deeply") from None
    delay = RetryDelay(text, evaluate)
    for retried in range(1, max_retried + 1):
        delay(retried)
    return delay


def default_backoff_ms(retried: int, *, rng: Callable[[], float] = random.random) -> float:
    """Exponential backoff with full jitter: uniform in [0, min(1 h, 1 s * 2**(retried - 1))).

    Full jitter spreads the retries of many messages that failed together (one receiver down) over
    the whole window, instead of bringing them back at the same instant.
    """
    # The exponent is bounded so that a large ``retried`` cannot build a huge integer.
    exponent = min(max(retried - 1, 0), 32)
    ceiling = min(DEFAULT_BACKOFF_CAP_MS, DEFAULT_BACKOFF_BASE_MS * 2.0**exponent)
    return rng() * ceiling
