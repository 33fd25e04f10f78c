"""The one place JSON from outside is parsed: nothing but JsonTextError escapes it."""

import codecs

import pytest

from mcp_inspector.core.base.json_text import MAX_DEPTH, JsonTextError, loads_strict, parse_frame, too_deep


@pytest.mark.parametrize(
    "text",
    [
        "[" * 1000,
        "[" * 1000 + "]" * 1000,
        '{"a":' * 5000 + "1" + "}" * 5000,
        "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
    ],
)
def test_deep_nesting_is_an_error_not_a_recursion_error(text):
    with pytest.raises(JsonTextError, match="nested deeper than"):
        loads_strict(text)
    with pytest.raises(JsonTextError, match="nested deeper than"):
        parse_frame(text.encode())


def test_depth_at_the_limit_is_accepted():
    value = loads_strict("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    assert not too_deep(value) and too_deep(value, MAX_DEPTH - 1)


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_bare_constants(token):
    with pytest.raises(JsonTextError, match="is not a JSON value"):
        loads_strict(f'{{"a": {token}}}')
    value, notes = parse_frame(f'{{"a": {token}}}'.encode())
    assert notes == [f"{token} is not JSON (a bare token some encoders write)"]


def test_numbers():
    with pytest.raises(JsonTextError, match="out of range"):
        loads_strict("[1e400]")
    with pytest.raises(JsonTextError, match="an integer of 5000 digits"):
        loads_strict("1" * 5000)
    with pytest.raises(JsonTextError, match="5000 digits"):
        parse_frame(b"[" + b"9" * 5000 + b"]")
    value, notes = parse_frame(b'{"id": 9007199254740993, "x": 1.5e308, "y": 1e999}')
    assert value["id"] == 9007199254740993
    assert notes == ["number out of range: 1e999 (read as infinity)"]
    assert parse_frame(b"[-1e400]")[1] == ["number out of range: -1e400 (read as infinity)"]
    assert parse_frame(b"[9007199254740991, 1.5]") == ([9007199254740991, 1.5], [])


def test_duplicate_keys_say_which_won():
    value, notes = parse_frame(b'{"id": 1, "id": 2}')
    assert value == {"id": 2}
    assert notes == ['duplicate key "id" (the last one wins)']
    value, notes = parse_frame(b"[" + b",".join(b'{"a":1,"a":2}' for _ in range(10)) + b"]")
    assert notes[-1] == "10 duplicate keys in all" and len(notes) == 4


@pytest.mark.parametrize(
    "codec,label",
    [("utf-16-le", "UTF-16-LE"), ("utf-16-be", "UTF-16-BE"), ("utf-32-le", "UTF-32-LE"), ("utf-32-be", "UTF-32-BE")],
)
def test_other_encodings_are_read_and_noted(codec, label):
    value, notes = parse_frame('{"a": "é"}'.encode(codec))
    assert value == {"a": "é"}
    assert notes == [f"encoded as {label} (MCP requires UTF-8)"]


@pytest.mark.parametrize(
    "bom,codec", [(codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF32_BE, "utf-32-be")]
)
def test_byte_order_marks(bom, codec):
    value, notes = parse_frame(bom + b'{"a": 1}'.decode().encode(codec))
    assert value == {"a": 1}
    assert "byte order mark" in notes[0]


def test_invalid_utf8_is_replaced_and_noted():
    value, notes = parse_frame(b'{"a": "\xff"}')
    assert value == {"a": "\ufffd"}
    assert notes == ["invalid UTF-8 (bytes replaced with U+FFFD)"]


def test_strict_accepts_a_utf8_bom_and_refuses_other_bytes():
    assert loads_strict(codecs.BOM_UTF8 + b'{"a": 1}') == {"a": 1}
    assert loads_strict('\ufeff{"a": 1}') == {"a": 1}
    with pytest.raises(JsonTextError, match="not UTF-8"):
        loads_strict(b'{"a": "\xff"}')


@pytest.mark.parametrize("text", ["", "{", "[1,]", "'a'", '{"a" 1}', "\x00"])
def test_malformed(text):
    with pytest.raises(JsonTextError, match="not JSON"):
        loads_strict(text)


def test_ids_beyond_what_javascript_can_hold_are_noted():
    from mcp_inspector.core.base.jsonrpc import classify

    info = classify(b'{"jsonrpc":"2.0","id":9007199254740993,"result":{}}')
    assert info.id == 9007199254740993
    assert info.problem == "id 9007199254740993 is beyond ±2^53 (JavaScript clients lose precision)"
    assert classify(b'{"jsonrpc":"2.0","id":9007199254740991,"result":{}}').problem is None


def test_fast_and_careful_paths_agree():
    # A frame with a duplicate key takes the careful path; the value is the same either way.
    plain = b'{"a": [1, 2.5, {"b": "c"}], "d": null}'
    assert parse_frame(plain) == ({"a": [1, 2.5, {"b": "c"}], "d": None}, [])
    value, notes = parse_frame(b'{"a": [1, 2.5, {"b": "c"}], "d": null, "d": null}')
    assert value == {"a": [1, 2.5, {"b": "c"}], "d": None} and len(notes) == 1
