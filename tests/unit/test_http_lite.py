"""The request heads and answers of the read-only HTTP endpoints (common.http_lite)."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from common.http_lite import HttpError, error_response, parse_head, response


@given(st.binary(max_size=300))
def test_any_head_parses_or_is_refused_in_http_terms(head: bytes) -> None:
    try:
        request = parse_head(head, ("GET", "HEAD"))
    except HttpError as err:
        assert err.code in (400, 405)
        assert error_response(err).startswith(f"HTTP/1.1 {err.code} ".encode())
    else:
        assert request.method in ("GET", "HEAD") and request.path.startswith("/")


def test_a_request_with_query_and_headers() -> None:
    request = parse_head(b"GET /api/why?job=12&x=1 HTTP/1.1\r\nAccept: text/plain\r\n"
                         b"X-Odd:  a:b \r\n\r\n")
    assert (request.method, request.path) == ("GET", "/api/why")
    assert request.query == {"job": ["12"], "x": ["1"]}
    assert request.headers == {"accept": "text/plain", "x-odd": "a:b"}


@pytest.mark.parametrize("head,code", [(b"POST / HTTP/1.1\r\n\r\n", 405),
                                       (b"GET http://evil/ HTTP/1.1\r\n\r\n", 400),
                                       (b"GET / SPDY/3\r\n\r\n", 400), (b"\r\n\r\n", 400)])
def test_what_is_refused(head: bytes, code: int) -> None:
    with pytest.raises(HttpError) as err:
        parse_head(head)
    assert err.value.code == code


def test_an_answer_says_its_length_and_closes() -> None:
    answer = response(200, "OK", "text/plain", b"abc", "X-A: 1\r\n")
    assert answer == (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
                      b"Connection: close\r\nX-A: 1\r\n\r\nabc")
    assert b"Content-Length: 9\r\n" in response(200, "OK", "text/plain", b"", length=9)
