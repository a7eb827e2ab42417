from __future__ import annotations

from itertools import pairwise

from hypothesis import assume, given
from hypothesis import strategies as st
from kconnect_connector_file._lines import LineSplitter

# Line text never contains a terminator; include multi-byte characters.
line_text = st.text(
    alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=12
)
terminators = st.sampled_from(["\n", "\r", "\r\n"])


@given(
    lines=st.lists(st.tuples(line_text, terminators), max_size=20),
    tail=line_text,
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
)
def test_any_chunking_yields_the_written_lines_and_byte_ends(
    lines: list[tuple[str, str]], tail: str, cuts: list[int]
) -> None:
    # "x\r" followed by an empty line ended by "\n" is one "x\r\n" line, not two.
    for (_, term), (text, next_term) in pairwise(lines):
        assume(not (term == "\r" and text == "" and next_term.startswith("\n")))
    assume(not (lines and lines[-1][1] == "\r" and tail == ""))
    encoded = [(text + term).encode() for text, term in lines]
    expected_ends = []
    total = 0
    for piece in encoded:
        total += len(piece)
        expected_ends.append(total)
    data = b"".join(encoded) + tail.encode()

    splitter = LineSplitter()
    got_lines: list[str] = []
    got_ends: list[int] = []
    bounds = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    for start, stop in pairwise(bounds):
        new_lines, new_ends = splitter.feed(data[start:stop])
        got_lines += new_lines
        got_ends += new_ends

    assert got_lines == [text for text, _ in lines]
    assert got_ends == expected_ends


def test_a_lone_trailing_cr_is_held() -> None:
    splitter = LineSplitter()

    assert splitter.feed(b"a\r") == ([], [])
    assert splitter.feed(b"") == ([], [])
    assert splitter.feed(b"\n") == (["a"], [3])
    assert splitter.position == 3


def test_positions_continue_from_the_starting_position() -> None:
    splitter = LineSplitter(100)

    assert splitter.feed("é\n".encode()) == (["é"], [103])
