"""The wildcard expression grammar of complex(5), checked against a reference matcher."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.resource import wildcard as w

# --------------------------------------------------------------------------- complex(5)

# Every example of complex(5), "With STRING ...": (expression, matching, not matching)
MAN_PAGE_EXAMPLES = [
    ("*x*|sol*", ["lx-x86", "lx-amd64", "sol-amd64"], ["hp11", "darwin-ppc"]),
    ("sol-x??", ["sol-x86", "sol-x64"], ["sol-amd64", "sol-x8", "lx-x86"]),
    ("lx2[246]-x86", ["lx22-x86", "lx24-x86", "lx26-x86"], ["lx25-x86", "lx2-x86"]),
    ("lx2[4-6]-x86", ["lx24-x86", "lx25-x86", "lx26-x86"], ["lx22-x86", "lx27-x86"]),
    ("lx2[24-6]-x86", ["lx22-x86", "lx24-x86", "lx25-x86", "lx26-x86"],
     ["lx23-x86", "lx27-x86"]),
    ("!lx-x86&!sol-amd64", ["lx-amd64", "sol-x86"], ["lx-x86", "sol-amd64"]),
    ("lx2[4|6]-amd64", ["lx24-amd64", "lx26-amd64"], ["lx25-amd64", "lx2[4"]),
]


@pytest.mark.parametrize("expr, good, bad", MAN_PAGE_EXAMPLES)
def test_man_page_examples(expr: str, good: list[str], bad: list[str]) -> None:
    for value in good:
        assert w.match(expr, value), value
    for value in bad:
        assert not w.match(expr, value), value


def test_spec_2003_examples() -> None:
    assert w.match("linux|solaris", "linux")
    assert w.match("linux|solaris", "solaris")
    assert not w.match("linux|solaris", "linux|solaris")
    assert w.match("a\\*", "a*") and not w.match("a\\*b*", "ab")
    assert w.match("a.c*", "a.cd") and not w.match("a.c*", "abcd")
    assert w.match("?", "x") and not w.match("?", "")


def test_literals_compare_exactly() -> None:
    assert w.match("lx-amd64", "lx-amd64")
    assert not w.match("lx-amd64", "lx-amd6")
    assert w.match("a b", "a b")  # no operator: blanks are part of the value
    assert w.match("a\\b", "a\\b")  # and so are backslashes
    assert w.match("", "") and not w.match("", "x")


def test_case() -> None:
    assert not w.match("LX*", "lx-amd64")
    assert w.match("LX*", "lx-amd64", ignore_case=True)
    assert w.match("lx-AMD64", "LX-amd64", ignore_case=True)
    assert w.match("[A-C]x", "bX", ignore_case=True)


def test_operators() -> None:
    assert w.match("(a|b)&!b", "a")
    assert not w.match("(a|b)&!b", "b")
    assert w.match("!!a", "a")
    assert w.match(" a | b ", "b")
    assert w.match("a*&*b", "axb") and not w.match("a*&*b", "axc")


def test_brackets() -> None:
    assert w.match("[!a]", "b") and not w.match("[!a]", "a")
    assert w.match("[^a]", "b")
    assert w.match("[]]", "]") and w.match("[!]]", "a")
    assert w.match("[a-]", "-")
    assert not w.match("[z-a]", "m")
    assert w.match("x[", "x[")  # an unclosed bracket is literal
    assert w.match("[ |]", "|") and w.match("[ |]", " ")


@pytest.mark.parametrize("expr", ["a|", "|a", "(a", "a)", "()", "!", "a&&b", "a b|c", "a(b"])
def test_malformed(expr: str) -> None:
    assert w.compare(expr, "a") == -1
    assert not w.match(expr, "a")
    err = w.check(expr)
    assert isinstance(err, w.WildcardSyntaxError) and isinstance(err, ValueError)


def test_compare_results_and_cache() -> None:
    assert w.compare("a*", "ab") == 0
    assert w.compare("a*", "b") == 1
    assert w.check("a*|b") is None
    assert w.compile_expression("a*|b") is w.compile_expression("a*|b")


# --------------------------------------------------------------------------- reference

class RefSyntax(Exception):
    pass


def ref_bracket_close(p: str) -> int | None:
    """Index after the ']' closing p[0] == '['."""
    i = 1
    if p[i:i + 1] in ("!", "^") and len(p) > 1:
        i += 1
    if p[i:i + 1] == "]":
        i += 1
    while i < len(p):
        if p[i] == "\\" and i + 1 < len(p):
            i += 2
        elif p[i] == "]":
            return i + 1
        else:
            i += 1
    return None


def ref_in_set(body: str, ch: str) -> bool:
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    chars, i = [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            i += 1
        chars.append(body[i])
        i += 1
    found, j = False, 0
    while j < len(chars):
        if j + 2 < len(chars) and chars[j + 1] == "-":
            found = found or chars[j] <= ch <= chars[j + 2]
            j += 3
        else:
            found = found or chars[j] == ch
            j += 1
    return found != negate


def ref_glob(p: str, s: str) -> bool:
    """fnmatch(3) without flags, by plain recursion."""
    if not p:
        return not s
    if p[0] == "*":
        return any(ref_glob(p[1:], s[i:]) for i in range(len(s) + 1))
    if p[0] == "?":
        return bool(s) and ref_glob(p[1:], s[1:])
    if p[0] == "[" and (end := ref_bracket_close(p)) is not None:
        return bool(s) and ref_in_set(p[1:end - 1], s[0]) and ref_glob(p[end:], s[1:])
    if p[0] == "\\" and len(p) > 1:
        return bool(s) and s[0] == p[1] and ref_glob(p[2:], s[1:])
    return bool(s) and s[0] == p[0] and ref_glob(p[1:], s[1:])


def ref_pattern(e: str, value: str) -> tuple[bool, str]:
    i = 0
    while i < len(e) and e[i] not in "!|&() ":
        end = ref_bracket_close(e[i:]) if e[i] == "[" else None
        i += end if end is not None else 1
    if i == 0:
        raise RefSyntax
    pat = e[:i]
    ok = ref_glob(pat, value) if any(c in "*?[]" for c in pat) else pat == value
    return ok, e[i:].lstrip(" ")


def ref_simple(e: str, value: str) -> tuple[bool, str]:
    if e.startswith("!"):
        ok, rest = ref_simple(e[1:].lstrip(" "), value)
        return not ok, rest
    if e.startswith("("):
        ok, rest = ref_or(e[1:].lstrip(" "), value)
        if not rest.startswith(")"):
            raise RefSyntax
        return ok, rest[1:].lstrip(" ")
    return ref_pattern(e, value)


def ref_and(e: str, value: str) -> tuple[bool, str]:
    ok, rest = ref_simple(e, value)
    while rest.startswith("&"):
        more, rest = ref_simple(rest[1:].lstrip(" "), value)
        ok = ok and more
    return ok, rest


def ref_or(e: str, value: str) -> tuple[bool, str]:
    ok, rest = ref_and(e, value)
    while rest.startswith("|"):
        more, rest = ref_and(rest[1:].lstrip(" "), value)
        ok = ok or more
    return ok, rest


def ref_compare(expr: str, value: str, ignore_case: bool = False) -> int:
    if ignore_case:
        expr, value = expr.lower(), value.lower()
    if not any(c in "*?[]&|!()" for c in expr):
        return 0 if expr == value else 1
    try:
        ok, rest = ref_or(expr.lstrip(" "), value)
    except RefSyntax:
        return -1
    if rest:
        return -1
    return 0 if ok else 1


def test_reference_agrees_on_man_page() -> None:
    for expr, good, bad in MAN_PAGE_EXAMPLES:
        assert all(ref_compare(expr, g) == 0 for g in good)
        assert all(ref_compare(expr, b) == 1 for b in bad)


# --------------------------------------------------------------------------- hypothesis

VALUES = st.text(alphabet="abAB-|[]!* ", max_size=6)
RAW = st.text(alphabet="abA*?[]-!^|&() \\", max_size=10)
GLOB = st.text(alphabet="abA*?-\\", min_size=1, max_size=5) | st.builds(
    lambda a, body, b: f"{a}[{body}]{b}", st.text(alphabet="ab*", max_size=2),
    st.text(alphabet="ab!^-]|\\", max_size=4), st.text(alphabet="ab?*", max_size=2))


def _expressions() -> st.SearchStrategy[str]:
    return st.recursive(GLOB, lambda inner: st.one_of(
        st.builds(lambda x: f"!{x}", inner),
        st.builds(lambda x: f"({x})", inner),
        st.builds(lambda x, y: f"{x}|{y}", inner, inner),
        st.builds(lambda x, y: f"{x} & {y}", inner, inner),
    ), max_leaves=5)


@settings(max_examples=300)
@given(_expressions(), VALUES, st.booleans())
def test_well_formed_expressions_match_reference(expr: str, value: str, caseless: bool) -> None:
    assert w.compare(expr, value, ignore_case=caseless) == ref_compare(expr, value, caseless)


@settings(max_examples=300)
@given(RAW, VALUES)
def test_arbitrary_expressions_match_reference(expr: str, value: str) -> None:
    assert w.compare(expr, value) == ref_compare(expr, value)


@given(st.text(alphabet="abc-.", max_size=8))
def test_plain_strings_match_themselves(value: str) -> None:
    assert w.match(value, value)
    assert w.match("*", value)
    assert w.match("!" + value + "x", value) if value else True
