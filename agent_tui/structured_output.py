"""`-p … --json-schema SCHEMA`: the final answer as JSON that a script can rely on.

The schema (a file, or the JSON text itself) is checked when the run starts (a schema that isn't
one is a usage error); the model is told to answer with one JSON value matching it; its final
answer — the whole text, or the one fenced ```json block in it — is parsed and validated with
`jsonschema` (the validator the `mcp` SDK already brings, every draft it knows: the schema's
`$schema`, else 2020-12). An answer that doesn't validate gets one retry, told exactly what was
wrong; a second miss ends the run with exit 1 and why. The value is the `json` result's
`structured_output` (Claude Code's field)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

_FENCED = re.compile(r"```(?:json)?[ \t]*\n(.*?)\n```", re.DOTALL)
#: the result's subtype when the answer never matched (Claude Code's)
FAILED_SUBTYPE = "error_max_structured_output_retries"


class SchemaError(ValueError):
    """A `--json-schema` that can't be used, in one line."""


def load_schema(value: str) -> dict[str, Any]:
    """The schema from `--json-schema` (inline JSON, or a file holding it), checked against its
    draft's meta-schema."""
    text = value
    if not value.lstrip().startswith(("{", "[")):
        try:
            text = Path(value).expanduser().read_text(encoding="utf-8")
        except OSError as exc:
            raise SchemaError(f"--json-schema {value}: {exc.strerror or exc}") from None
    try:
        schema = json.loads(text)
    except ValueError as exc:
        raise SchemaError(f"--json-schema is not JSON: {exc}") from None
    if not isinstance(schema, dict):
        raise SchemaError("--json-schema must be a JSON object (a JSON Schema)")
    from jsonschema import exceptions, validators

    try:
        validators.validator_for(schema).check_schema(schema)
    except exceptions.SchemaError as exc:
        raise SchemaError(f"--json-schema is not a valid JSON Schema: {exc.message}") from None
    return schema


def instruction(schema: dict[str, Any]) -> str:
    """What the system prompt adds: the answer's shape."""
    return (
        "When you have finished the task, your final answer must be exactly one JSON value that "
        "validates against the JSON Schema below: no other text, no code fence. Use your tools "
        "first as usual; only the last message is read as the answer.\n\n"
        + json.dumps(schema, indent=1)
    )


def parse(answer: str) -> tuple[Any, str | None]:
    """(the answer's JSON value, None) or (None, why it isn't JSON)."""
    text = answer.strip()
    blocks = _FENCED.findall(text)
    if len(blocks) == 1 and not text.startswith(("{", "[")):
        text = blocks[0].strip()
    elif text.startswith("```"):
        text = blocks[0].strip() if blocks else text.strip("`")
    if not text:
        return None, "the answer is empty"
    try:
        return json.loads(text), None
    except ValueError as exc:
        return None, f"the answer is not JSON ({exc})"


def problem(schema: dict[str, Any], value: Any) -> str | None:
    """Why `value` doesn't validate (the first error, with where it is), or None."""
    from jsonschema import validators

    validator = validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    first = errors[0]
    where = "/".join(str(p) for p in first.absolute_path)
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"at {'/' + where if where else 'the top'}: {first.message}{more}"


def check(schema: dict[str, Any], answer: str) -> tuple[Any, str | None]:
    """(the value, None) when `answer` is JSON matching `schema`, else (None, why not)."""
    value, error = parse(answer)
    if error is not None:
        return None, error
    why = problem(schema, value)
    return (value, None) if why is None else (None, f"the answer does not match the schema {why}")


def retry_prompt(error: str) -> str:
    """The one retry: what was wrong, and what to send instead."""
    return (
        f"Your final answer can't be used: {error}. Answer again with only one JSON value that "
        "validates against the JSON Schema you were given: no other text."
    )


class Shaped:
    """A headless run's structured answer: its value, or why there is none (`error`), and the
    turn that gave it (the retry's, if one was needed)."""

    def __init__(self, turn: Any) -> None:
        self.turn = turn
        self.value: Any = None
        self.error: str | None = None
        #: an answer was checked (a failed turn has none)
        self.checked = False

    def fields(self) -> dict[str, Any]:
        """What the `json` result adds: `structured_output`, or the error (Claude Code's)."""
        if not self.checked:
            return {}
        if self.error is None:
            return {"structured_output": self.value}
        return {"subtype": FAILED_SUBTYPE, "is_error": True, "errors": [self.error]}
