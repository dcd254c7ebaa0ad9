"""The string expression grammar of complex(5) for STRING, CSTRING, RESTRING and HOST.

This module owns matching a requested expression against an offered string::

    expr   := and ( '|' and )*
    and    := simple ( '&' simple )*
    simple := '!' simple | '(' expr ')' | pattern
    pattern:= a run of characters other than ! | & ( ) and blank, matched like
              fnmatch(3) without flags: '*' any run, '?' one character, '[...]' a
              set with ranges ('[!...]' / '[^...]' negated), '\\' escapes.

Blanks may surround operators. An expression with none of ``* ? [ ] & | ! ( )`` is
compared literally (blanks and backslashes included), as Grid Engine does; so is a
single pattern without ``* ? [ ]``. CSTRING and HOST compare case-insensitively
(both sides lowered).

One deliberate choice where Grid Engine's sources and its man page disagree: a bracket
set is one pattern even when it contains an operator character, so complex(5)'s own
example ``lx2[4|6]-amd64`` matches ``lx24-amd64`` and ``lx26-amd64`` as the man page
promises (Grid Engine 8.1.9 would split it at the ``|``).

A malformed expression (``a|``, ``(a``, ``a b|c``) matches nothing: :func:`compare`
reports it as -1, like Grid Engine's evaluator, and :func:`check` explains it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

_OPERATORS = frozenset("!|&()")
_SPECIAL = frozenset("*?[]&|!()")
_GLOB = frozenset("*?[]")

Matcher = Callable[[str], bool]


class WildcardSyntaxError(ValueError):
    """A malformed expression; ``position`` is the offset where parsing stopped."""

    def __init__(self, expression: str, position: int) -> None:
        self.expression = expression
        self.position = position
        super().__init__(f'parse error at position {position} in expression "{expression}"')


@dataclass(frozen=True)
class Token:
    kind: str  # one of ! | & ( ) for operators, "pat" for a pattern, "end"
    text: str
    pos: int


# --------------------------------------------------------------------------- fnmatch

def bracket_end(pattern: str, start: int) -> int | None:
    """Index just past the ']' closing the set opened at ``pattern[start]``, if any."""
    i = start + 1
    if i < len(pattern) and pattern[i] in "!^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1  # a leading ']' is a member, not the end
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            i += 2
            continue
        if pattern[i] == "]":
            return i + 1
        i += 1
    return None


def _set_members(body: str) -> list[str]:
    """Regex fragments for the members of a bracket body (ranges kept)."""
    chars: list[str] = []
    i = 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            i += 1
        chars.append(body[i])
        i += 1
    parts: list[str] = []
    j = 0
    while j < len(chars):
        if j + 2 < len(chars) and chars[j + 1] == "-":
            if chars[j] <= chars[j + 2]:  # an inverted range matches nothing
                parts.append(re.escape(chars[j]) + "-" + re.escape(chars[j + 2]))
            j += 3
        else:
            parts.append(re.escape(chars[j]))
            j += 1
    return parts


def _bracket_regex(pattern: str, start: int, end: int) -> str:
    body = pattern[start + 1:end - 1]
    negate = body[:1] in ("!", "^")
    members = "".join(_set_members(body[1:] if negate else body))
    if not members:
        return "." if negate else "(?!)"
    return f"[{'^' if negate else ''}{members}]"


def glob_to_regex(pattern: str) -> str:
    """fnmatch(3) semantics (no flags) as a Python regular expression."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        end = bracket_end(pattern, i) if c == "[" else None
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif end is not None:
            out.append(_bracket_regex(pattern, i, end))
            i = end
            continue
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "(?s:" + "".join(out) + r")\Z"


def _pattern_matcher(text: str) -> Matcher:
    if not any(c in _GLOB for c in text):
        return lambda value: value == text
    regex = re.compile(glob_to_regex(text))
    return lambda value: regex.match(value) is not None


# --------------------------------------------------------------------------- tokenizer

def _scan_pattern(expr: str, i: int) -> int:
    """End of the pattern starting at ``expr[i]``; bracket sets are kept whole."""
    while i < len(expr) and expr[i] not in _OPERATORS and expr[i] != " ":
        end = bracket_end(expr, i) if expr[i] == "[" else None
        i = end if end is not None else i + 1
    return i


def tokenize(expr: str) -> list[Token]:
    tokens: list[Token] = []
    i = 0
    while True:
        while i < len(expr) and expr[i] == " ":
            i += 1
        if i == len(expr):
            tokens.append(Token("end", "", i))
            return tokens
        if expr[i] in _OPERATORS:
            tokens.append(Token(expr[i], expr[i], i))
            i += 1
            continue
        end = _scan_pattern(expr, i)
        tokens.append(Token("pat", expr[i:end], i))
        i = end


# --------------------------------------------------------------------------- parser

class _Parser:
    """Recursive descent over the tokens, building a closure per node."""

    def __init__(self, expr: str) -> None:
        self.expr = expr
        self.tokens = tokenize(expr)
        self.index = 0

    @property
    def current(self) -> Token:
        return self.tokens[self.index]

    def fail(self) -> WildcardSyntaxError:
        return WildcardSyntaxError(self.expr, self.current.pos)

    def parse(self) -> Matcher:
        node = self.parse_or()
        if self.current.kind != "end":
            raise self.fail()
        return node

    def parse_or(self) -> Matcher:
        parts = [self.parse_and()]
        while self.current.kind == "|":
            self.index += 1
            parts.append(self.parse_and())
        if len(parts) == 1:
            return parts[0]
        return lambda value: any(part(value) for part in parts)

    def parse_and(self) -> Matcher:
        parts = [self.parse_simple()]
        while self.current.kind == "&":
            self.index += 1
            parts.append(self.parse_simple())
        if len(parts) == 1:
            return parts[0]
        return lambda value: all(part(value) for part in parts)

    def parse_simple(self) -> Matcher:
        token = self.current
        if token.kind == "!":
            self.index += 1
            inner = self.parse_simple()
            return lambda value: not inner(value)
        if token.kind == "(":
            self.index += 1
            inner = self.parse_or()
            if self.current.kind != ")":
                raise self.fail()
            self.index += 1
            return inner
        if token.kind == "pat":
            self.index += 1
            return _pattern_matcher(token.text)
        raise self.fail()


# --------------------------------------------------------------------------- public API

def is_expression(expr: str) -> bool:
    """True when ``expr`` uses any operator or wildcard (else it is a literal)."""
    return any(c in _SPECIAL for c in expr)


@lru_cache(maxsize=4096)
def compile_expression(expr: str, ignore_case: bool = False) -> Matcher:
    """A cached predicate for ``expr``; raises :class:`WildcardSyntaxError`.

    With ``ignore_case`` the predicate expects an already lowered value.
    """
    if ignore_case:
        expr = expr.lower()
    if not is_expression(expr):
        return lambda value: value == expr
    return _Parser(expr).parse()


def check(expr: str) -> WildcardSyntaxError | None:
    """The syntax error of ``expr``, or None when it is well formed."""
    try:
        compile_expression(expr)
    except WildcardSyntaxError as err:
        return err
    return None


def compare(expr: str, value: str, *, ignore_case: bool = False) -> int:
    """Grid Engine's result: 0 match, 1 no match, -1 malformed expression."""
    try:
        matcher = compile_expression(expr, ignore_case)
    except WildcardSyntaxError:
        return -1
    return 0 if matcher(value.lower() if ignore_case else value) else 1


def match(pattern: str, value: str, *, ignore_case: bool = False) -> bool:
    """Does ``value`` satisfy the expression ``pattern``? Malformed -> False."""
    return compare(pattern, value, ignore_case=ignore_case) == 0
