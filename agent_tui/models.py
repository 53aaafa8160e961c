"""The Claude models agent-tui knows (`MODELS`, as Anthropic's model pages list them in December
2026: platform.claude.com/docs/en/models/…; the SDK's `anthropic.types.Model` names the same
ids): what `/model` lists, Claude Code's aliases (`opus`, `sonnet`, `haiku`, `fable`; `MODEL[1m]`
for a 1M window), and what a request to each needs — adaptive or extended thinking, effort, the
1M-context beta header. Prices and context windows are `agent.cost`'s and `agent.context`'s
(data/prices.toml, data/context_windows.toml, which the person may override). A model this table
doesn't know (a proxy's own name, a platform id) is sent as it is, with extended thinking as
before. A Python table, not TOML: the boot asks it (is thinking on?) and no TOML parser loads
for that (issue 34)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ONE_M = "[1m]"
#: the beta header a 200K model's 1M window needs
BETA_1M = "context-1m-2025-08-07"
EFFORTS = ("low", "medium", "high", "xhigh", "max")


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """One row of the table."""

    id: str
    name: str
    status: str
    max_output: int
    #: "always", "adaptive" or "extended" (see `MODELS`)
    thinking: str
    effort: bool = False
    default_effort: str | None = None
    #: the beta header its 1M window needs (None: it has 1M natively, or none)
    beta_1m: str | None = None


LATEST, LEGACY, RETIRED = "latest", "legacy", "retired"
ADAPTIVE, EXTENDED = "adaptive", "extended"
#: thinking: "always" (adaptive, can't be turned off), "adaptive" (`thinking: {type: adaptive}`,
#: on by default here), "extended" (a token budget, off by default). status: latest, legacy,
#: deprecated (still served), retired (no longer served: not listed)
MODELS = (
    ModelInfo("claude-fable-5-2", "Claude Fable 5.2", LATEST, 128_000, "always", True, "high"),
    ModelInfo("claude-opus-5-5", "Claude Opus 5.5", LATEST, 128_000, "always", True, "medium"),
    ModelInfo("claude-sonnet-5-5", "Claude Sonnet 5.5", LATEST, 128_000, ADAPTIVE, True, "high"),
    ModelInfo("claude-haiku-5-5", "Claude Haiku 5.5", LATEST, 128_000, ADAPTIVE, True, "medium"),
    ModelInfo("claude-fable-5-1", "Claude Fable 5.1", LEGACY, 128_000, "always", True, "high"),
    ModelInfo("claude-opus-5", "Claude Opus 5", LEGACY, 128_000, ADAPTIVE, True, "high"),
    ModelInfo("claude-sonnet-5", "Claude Sonnet 5", LEGACY, 128_000, ADAPTIVE, True, "high"),
    ModelInfo("claude-fable-5", "Claude Fable 5", LEGACY, 128_000, "always", True, "high"),
    ModelInfo("claude-opus-4-8", "Claude Opus 4.8", LEGACY, 128_000, ADAPTIVE, True),
    ModelInfo("claude-opus-4-7", "Claude Opus 4.7", LEGACY, 128_000, ADAPTIVE, True, None, BETA_1M),
    ModelInfo("claude-opus-4-6", "Claude Opus 4.6", LEGACY, 128_000, ADAPTIVE, True, None, BETA_1M),
    ModelInfo("claude-sonnet-4-6", "Claude Sonnet 4.6", LEGACY, 128_000, ADAPTIVE, True),
    ModelInfo("claude-opus-4-5", "Claude Opus 4.5", LEGACY, 64_000, "extended", True),
    ModelInfo("claude-haiku-4-5", "Claude Haiku 4.5", LEGACY, 64_000, "extended"),
    # retired November 30, 2026
    ModelInfo("claude-sonnet-4-5", "Claude Sonnet 4.5", RETIRED, 64_000, EXTENDED, beta_1m=BETA_1M),
)  # fmt: skip
#: Claude Code's model aliases (`--model opus`, settings.json "model": "sonnet")
ALIASES = {
    "fable": "claude-fable-5-2",
    "opus": "claude-opus-5-5",
    "sonnet": "claude-sonnet-5-5",
    "haiku": "claude-haiku-5-5",
}
#: the models when nothing names one
DEFAULT, SMALL = "claude-sonnet-5-5", "claude-haiku-5-5"


def catalog() -> dict[str, ModelInfo]:
    return {m.id: m for m in MODELS}


def aliases() -> dict[str, str]:
    return dict(ALIASES)


def default_model() -> str:
    return DEFAULT


def small_model() -> str:
    return SMALL


def resolve(name: str) -> str:
    """A model as the person named it (`opus`, `sonnet[1m]`, an id), as the id it stands for
    (the `[1m]` suffix kept: it says which window to ask for)."""
    bare, one_m = split_1m(name.strip())
    return aliases().get(bare.lower(), bare) + (ONE_M if one_m else "")


def split_1m(model: str) -> tuple[str, bool]:
    """(`model` without a `[1m]` suffix, whether it had one)."""
    if model.lower().endswith(ONE_M):
        return model[: -len(ONE_M)], True
    return model, False


def info(model: str) -> ModelInfo | None:
    """The row of the longest id `model` starts with (Bedrock and Vertex ids are matched on their
    Claude name; a dated id on its model), or None."""
    bare, _ = split_1m(model)
    at = bare.find("claude-")
    bare = bare[at:] if at > 0 else bare
    rows = catalog()
    matches = [k for k in rows if bare == k or bare.startswith((k + "-", k + "@", k + ":"))]
    return rows[max(matches, key=len)] if matches else None


def for_api(model: str) -> tuple[str, tuple[str, ...]]:
    """(the model id to send, the beta headers it needs): `claude-opus-4-6[1m]` is sent as
    `claude-opus-4-6` with the 1M-context beta; a model with 1M natively needs none."""
    bare, one_m = split_1m(model)
    row = info(bare)
    betas = (row.beta_1m,) if one_m and row is not None and row.beta_1m else ()
    return bare, betas


def thinking_param(model: str, budget: int | None) -> dict[str, Any] | None:
    """The request's `thinking`: adaptive where the model has it (`budget` None: off, unless
    the model thinks always), else extended thinking with `budget` tokens (None: off)."""
    row = info(model)
    kind = row.thinking if row is not None else "extended"
    if kind == "always" or (kind == "adaptive" and budget is not None):
        return {"type": "adaptive"}
    return {"type": "enabled", "budget_tokens": budget} if budget else None


def thinks_adaptively(model: str) -> bool:
    row = info(model)
    return row is not None and row.thinking in ("always", "adaptive")


def output_config(model: str, effort: str | None) -> dict[str, Any] | None:
    """`output_config` with the person's effort, for a model that takes one (None: the model's
    own default, nothing sent)."""
    row = info(model)
    if effort is None or row is None or not row.effort:
        return None
    return {"effort": effort}


def max_output(model: str, wanted: int) -> int:
    """`wanted` output tokens, within what the model can write."""
    row = info(model)
    return min(wanted, row.max_output) if row is not None else wanted
