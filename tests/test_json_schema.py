"""`-p … --json-schema SCHEMA` through the real CLI at the loopback API: the answer becomes the
json result's `structured_output`; one that doesn't validate is sent back once with what was
wrong, and a second miss exits 1 saying why; the schema (inline or a file) is told to the model,
and one that is no JSON Schema is a usage error. Plus the checks themselves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conversation_rules import reply, text
from scripted_calls import setup, to_sse
from sse_server import SSEServer, run_agent_tui

from agent_tui.structured_output import SchemaError, check, load_schema

SCHEMA = {
    "type": "object",
    "properties": {"files": {"type": "integer", "minimum": 0}, "language": {"type": "string"}},
    "required": ["files", "language"],
    "additionalProperties": False,
}


def answers(*texts: str) -> Any:
    def responder(index: int, body: Any) -> str:
        return to_sse(reply(text(texts[min(index, len(texts) - 1)])))

    return responder


def last_user_text(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


async def run(tmp_path: Path, schema: str, *texts: str) -> tuple[int, dict[str, Any], str, Any]:
    work, home = setup(tmp_path)
    async with SSEServer(answers(*texts)) as server:
        code, out, err = await run_agent_tui(
            server, work, home, "-p", "count the files", "--json-schema", schema,
            "--output-format", "json",
        )  # fmt: skip
        requests = [r.json for r in server.requests]
    lines = out.decode().strip().splitlines()
    return code, json.loads(lines[-1]) if lines else {}, err.decode(), requests


async def test_a_valid_answer_is_the_structured_output(tmp_path: Path) -> None:
    code, result, err, requests = await run(
        tmp_path, json.dumps(SCHEMA), '```json\n{"files": 3, "language": "Python"}\n```'
    )
    assert code == 0, err
    assert result["structured_output"] == {"files": 3, "language": "Python"}
    assert result["subtype"] == "success" and len(requests) == 1
    system = "".join(b["text"] for b in requests[0]["system"])
    assert "validates against the JSON Schema below" in system
    assert '"additionalProperties": false' in system


async def test_one_retry_with_the_validation_error(tmp_path: Path) -> None:
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    code, result, err, requests = await run(
        tmp_path, str(schema_file), '{"files": -1, "language": "Python"}',
        '{"files": 2, "language": "Go"}',
    )  # fmt: skip
    assert code == 0, err
    assert result["structured_output"] == {"files": 2, "language": "Go"}
    retry = last_user_text(requests[1])
    assert "at /files: -1 is less than the minimum of 0" in retry


async def test_a_second_miss_exits_1_saying_why(tmp_path: Path) -> None:
    code, result, err, requests = await run(
        tmp_path, json.dumps(SCHEMA), "There are three files.", '{"files": 3}'
    )
    assert code == 1
    assert len(requests) == 2 and "the answer is not JSON" in last_user_text(requests[1])
    assert "'language' is a required property" in err and "after one retry" in err
    assert result["subtype"] == "error_max_structured_output_retries" and result["is_error"]
    assert "structured_output" not in result


@pytest.mark.parametrize(
    ("value", "said"),
    [('{"type": "nope"}', "not a valid JSON Schema"), ("[1]", "must be a JSON object"),
     ("/no/such/file.json", "No such file"), ("{bad", "is not JSON")],
)  # fmt: skip
def test_a_bad_schema_is_refused(value: str, said: str) -> None:
    with pytest.raises(SchemaError, match=said):
        load_schema(value)


async def test_a_bad_schema_is_a_usage_error(tmp_path: Path) -> None:
    code, _result, err, requests = await run(tmp_path, '{"type": 12}', "{}")
    assert code == 2 and "not a valid JSON Schema" in err and requests == []


def test_checks() -> None:
    assert check(SCHEMA, '{"files": 1, "language": "C"}') == ({"files": 1, "language": "C"}, None)
    assert check({"type": "array"}, "  [1, 2]  ")[0] == [1, 2]
    _, why = check(SCHEMA, '{"files": 1, "language": "C", "extra": true}')
    assert why is not None and "Additional properties are not allowed" in why
    assert check(SCHEMA, "")[1] == "the answer is empty"
