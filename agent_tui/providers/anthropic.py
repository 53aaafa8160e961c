"""The real Messages API through the official SDK.

`import anthropic` costs seconds, so it happens on the first request (or in `warm_up()`, which the
UI runs in a worker thread after the first frame), never at module import. SDK retries are off: the
agent loop retries itself, so it can tell the person and never resends after content arrived.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from typing import Any

from agent_tui.providers.base import MessageRequest, ProviderError
from agent_tui.redact import redact
from agent_tui.text import clause

#: the defaults when nothing names a model (`agent_tui.models.DEFAULT`, `SMALL`)
DEFAULT_MODEL = "claude-sonnet-5-5"
DEFAULT_SMALL_MODEL = "claude-haiku-5-5"
#: seconds a token count may take before the request goes on with the local bound
COUNT_TIMEOUT = 15.0
#: WebFetch's domain preflight (`domain_info`): the path under the base URL, and its time limit
DOMAIN_INFO_PATH = "/api/web/domain_info"
DOMAIN_INFO_TIMEOUT = 10.0


def platform() -> str:
    """Where requests go: "anthropic", "bedrock", "vertex" or "foundry" (from the environment)."""
    return _platform()


def _platform() -> str:
    if os.environ.get("CLAUDE_CODE_USE_BEDROCK") or os.environ.get("AGENT_TUI_USE_BEDROCK"):
        return "bedrock"
    if os.environ.get("CLAUDE_CODE_USE_VERTEX") or os.environ.get("AGENT_TUI_USE_VERTEX"):
        return "vertex"
    if os.environ.get("ANTHROPIC_FOUNDRY_RESOURCE") or os.environ.get("AGENT_TUI_USE_FOUNDRY"):
        return "foundry"
    return "anthropic"


#: platform -> (the SDK's client class, our optional extra that brings what it needs)
_CLIENTS = {
    "anthropic": ("AsyncAnthropic", ""),
    "bedrock": ("AsyncAnthropicBedrock", "bedrock"),
    "vertex": ("AsyncAnthropicVertex", "vertex"),
    "foundry": ("AsyncAnthropicFoundry", ""),
}
#: a module the extra installs, to check for before the first frame: platform -> module
EXTRA_MODULES = {"bedrock": "boto3", "vertex": "google.auth"}


#: what each platform needs besides the extra, for the line said when it can't be set up
CREDENTIALS = {
    "anthropic": "set ANTHROPIC_API_KEY (any value for a keyless server)",
    "bedrock": (
        "set AWS_REGION and AWS credentials (AWS_PROFILE, AWS_ACCESS_KEY_ID with "
        "AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK)"
    ),
    "vertex": (
        "set CLOUD_ML_REGION and ANTHROPIC_VERTEX_PROJECT_ID, and Google credentials "
        "(gcloud auth application-default login, or GOOGLE_APPLICATION_CREDENTIALS)"
    ),
    "foundry": "set ANTHROPIC_FOUNDRY_API_KEY (or sign in to Azure)",
}
_SETUP_WORDS = re.compile(r"resolve|credential|api_key|auth_token|project_id|region", re.I)
_TITLES = {"anthropic": "The Anthropic API", "bedrock": "Bedrock", "vertex": "Vertex AI"}


def not_set_up(platform: str, why: BaseException | str) -> ProviderError:
    """The platform's client can't be built or can't authenticate: one line with what to set."""
    title = _TITLES.get(platform, platform.title())
    # the SDK's first sentence (its advice after it names its own arguments, not our settings)
    reason = redact(str(why)).strip().strip('"').split(". ")[0].rstrip(".")
    return ProviderError(
        f"{title} is not set up ({reason}): {CREDENTIALS[platform]}.", kind="setup"
    )


def missing_extra(platform: str, extra: str, exc: BaseException | None = None) -> str:
    why = f" ({exc})" if exc else ""
    return (
        f"The {platform.title()} platform needs the SDK's {platform} client, which is not "
        f"installed{why}. Install it with: pip install 'agent-tui[{extra}]'"
    )


def platform_problem() -> str | None:
    """Why the configured platform can't be used (its optional extra is missing), or None.

    Checked at start-up without importing anything, so the person hears it at once instead of
    at the first request."""
    from importlib.util import find_spec

    platform = _platform()
    module = EXTRA_MODULES.get(platform)
    if module is None:
        return None
    try:
        found = find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    return None if found else missing_extra(platform, _CLIENTS[platform][1])


def sendable(request: MessageRequest) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The body as sent and the beta headers: `MODEL[1m]` goes as MODEL with the 1M-context
    beta where the model needs one (`agent_tui.models.for_api`)."""
    from agent_tui.models import for_api

    body = request.body()
    body["model"], betas = for_api(request.model)
    return body, tuple(dict.fromkeys((*request.betas, *betas)))


class AnthropicProvider:
    def __init__(self, model: str = DEFAULT_MODEL, *, timeout: float = 600.0) -> None:
        self.name = _platform()
        self.label = model
        self._timeout = timeout
        self._client: Any = None
        self._cannot_count = False
        #: why the platform's client could not be built (after `warm_up`), or None
        self.setup_error: str | None = None

    def supports_web_search(self, model: str) -> bool:
        # Server-side web search exists on the first-party API and Foundry; on Vertex only for
        # Claude 4-family models; not on Bedrock.
        if self.name in ("anthropic", "foundry"):
            return True
        if self.name == "vertex":
            return any(tag in model for tag in ("-4", "4-", "opus-4", "sonnet-4", "haiku-4"))
        return False

    def warm_up(self) -> None:
        """Import the SDK and build the client (call from a worker thread). A platform that is
        not set up is remembered in `setup_error` (and raised again by the first request)."""
        try:
            self._get_client()
        except ProviderError as exc:
            self.setup_error = exc.message

    def _get_client(self) -> Any:
        if self._client is None:
            import anthropic  # deferred: the heaviest import of the app

            cls_name, extra = _CLIENTS[self.name]
            try:
                self._client = getattr(anthropic, cls_name)(max_retries=0, timeout=self._timeout)
            except ImportError as exc:
                raise ProviderError(missing_extra(self.name, extra, exc), kind="setup") from None
            except (ValueError, TypeError, RuntimeError) as exc:  # no region, project, key…
                raise not_set_up(self.name, exc) from None
        return self._client

    async def domain_info(self, domain: str) -> bool | None:
        """Whether the API says `domain` may be fetched (WebFetch's preflight, as Claude Code
        asks it): `GET /api/web/domain_info?domain=` on this client's base URL. None on a platform
        without the check (only the first-party API has it); raises `ProviderError` when the
        check itself fails."""
        if self.name != "anthropic":
            return None
        import anthropic

        client = self._get_client()
        try:
            answer = await client.get(
                DOMAIN_INFO_PATH,
                cast_to=object,
                options={"params": {"domain": domain}, "timeout": DOMAIN_INFO_TIMEOUT},
            )
        except anthropic.APIStatusError as exc:
            raise ProviderError(
                f"HTTP {exc.status_code} from {redact(str(client.base_url))}",
                status=exc.status_code,
                kind="domain_check",
            ) from None
        except anthropic.APITimeoutError:
            raise ProviderError(
                f"no answer within {DOMAIN_INFO_TIMEOUT:.0f} s", kind="domain_check"
            ) from None
        except anthropic.APIConnectionError as exc:
            raise ProviderError(
                _connection_error(exc, str(client.base_url)).message, kind="domain_check"
            ) from None
        can_fetch = answer.get("can_fetch") if isinstance(answer, dict) else None
        if not isinstance(can_fetch, bool):
            raise ProviderError("the answer was not a domain-info answer", kind="domain_check")
        return can_fetch

    async def count_tokens(self, request: MessageRequest) -> int | None:
        """The request's input tokens by the API's token counting (free, one round trip), or
        None when they can't be had: Bedrock and Vertex (not through these clients), a server
        that doesn't count (remembered after its first 404), or any failure."""
        if self.name not in ("anthropic", "foundry") or self._cannot_count:
            return None
        import anthropic

        body, betas = sendable(request)
        body.pop("max_tokens", None)
        try:
            client = self._get_client()
            if betas or "context_management" in body:
                counted = await client.beta.messages.count_tokens(
                    **body, betas=list(betas), timeout=COUNT_TIMEOUT
                )
            else:
                counted = await client.messages.count_tokens(**body, timeout=COUNT_TIMEOUT)
            return int(counted.input_tokens)
        except anthropic.APIStatusError as exc:
            if exc.status_code in (404, 405, 501):
                self._cannot_count = True
            return None
        except (anthropic.APIError, ProviderError, ValueError, TypeError, AttributeError):
            return None

    async def stream(self, request: MessageRequest) -> AsyncIterator[dict[str, Any]]:
        import anthropic

        client = self._get_client()
        body, betas = sendable(request)
        arrived = False
        try:
            if betas:
                stream = await client.beta.messages.create(**body, betas=list(betas), stream=True)
            else:
                stream = await client.messages.create(**body, stream=True)
            async with stream:
                async for event in stream:
                    arrived = True
                    # warnings=False: a block type this SDK doesn't know yet serializes as it
                    # came, without pydantic's UserWarning on stderr (the assembler skips it)
                    yield event.to_dict(warnings=False)
        except anthropic.APIStatusError as exc:
            raise _status_error(exc) from None
        except anthropic.APITimeoutError:
            raise ProviderError("The request timed out.", retryable=True, kind="timeout") from None
        except anthropic.APIConnectionError as exc:
            if arrived:  # it was reached: the answer broke off
                raise _broke_mid_answer(exc) from None
            raise _connection_error(exc, str(client.base_url)) from None
        except ImportError as exc:  # the platform's signing needs the extra (boto3, google)
            extra = _CLIENTS[self.name][1] or self.name
            raise ProviderError(missing_extra(self.name, extra, exc), kind="setup") from None
        except (TypeError, RuntimeError) as exc:
            # The SDK found no key or credentials ("Could not resolve authentication method",
            # "Could not resolve AWS credentials from session", no project_id…); anything else
            # is a bug the loop reports as such.
            if not _SETUP_WORDS.search(str(exc)):
                raise
            raise not_set_up(self.name, exc) from None
        except ValueError as exc:  # invalid JSON on the wire
            raise ProviderError(
                f"The stream sent data that could not be read: {redact(str(exc))}",
                kind="invalid_stream",
            ) from None


def _first_reason(exc: BaseException) -> str:
    """The first words in `exc`'s chain of causes; an exception without any (a stream reset
    mid-answer) is named by its class, never said as an empty reason."""
    chain: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and cause not in chain:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    said = next((str(c).strip() for c in chain[1:] + chain[:1] if str(c).strip()), "")
    if said:
        return said
    names = [type(c).__name__ for c in chain if type(c).__name__ != "Exception"]
    return f"the connection broke ({names[-1] if names else 'no reason given'})"


def _broke_mid_answer(exc: Exception) -> ProviderError:
    """The stream had started: the API was reached and the connection broke during its answer."""
    return ProviderError(
        f"The connection to the API broke mid-answer: {clause(redact(_first_reason(exc)))}. "
        "What arrived is kept.",
        retryable=True,
        kind="connection_broken",
    )


def _connection_error(exc: Exception, base_url: str) -> ProviderError:
    """Name where we tried to connect; when nothing listens there, one quick retry is enough."""
    cause: BaseException | None = exc
    refused = False
    while cause is not None:
        refused = refused or isinstance(cause, ConnectionRefusedError) or "refused" in str(cause)
        cause = cause.__cause__ or cause.__context__
    why = "nothing is listening there" if refused else clause(redact(_first_reason(exc)))
    return ProviderError(
        f"Could not reach the API at {redact(base_url)}: {why}. Check ANTHROPIC_BASE_URL and "
        "the network.",
        retryable=True,
        kind="connection_error",
        max_retries=1 if refused else None,
    )


def _status_error(exc: Any) -> ProviderError:
    status = getattr(exc, "status_code", None)
    body = getattr(exc, "body", None)
    kind = "api_error"
    message = str(getattr(exc, "message", exc))
    if isinstance(body, dict):
        inner = body.get("error")
        err = inner if isinstance(inner, dict) else body
        kind = str(err.get("type", kind))
        message = str(err.get("message", message))
    response = getattr(exc, "response", None)
    retry_after = retry_after_seconds(response.headers) if response is not None else None
    retryable = kind in ("overloaded_error", "rate_limit_error") or status in (
        429,
        500,
        502,
        503,
        529,
    )
    if status == 200:
        # `event: error` in the middle of a stream: the SDK reports the HTTP status of the stream.
        status = None
    text = _friendly(kind, status, message)
    return ProviderError(
        redact(text), retryable=retryable, status=status, kind=kind, retry_after=retry_after
    )


def retry_after_seconds(headers: Any) -> float | None:
    """How long the server asks us to wait, in seconds: `retry-after-ms`, then `retry-after` as
    seconds or as an HTTP date (the forms the SDK itself reads); None when it doesn't say."""
    import email.utils
    import time

    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) / scale)
        except (TypeError, ValueError):
            pass
        when = email.utils.parsedate_tz(str(value))
        if when is not None:
            return max(0.0, email.utils.mktime_tz(when) - time.time())
    return None


def _friendly(kind: str, status: int | None, message: str) -> str:
    if kind == "authentication_error" or status == 401:
        return f"The API key was rejected ({message}). Check ANTHROPIC_API_KEY."
    if kind == "permission_error" or status == 403:
        return f"Permission denied by the API: {message}"
    if kind == "not_found_error" or status == 404:
        return f"Not found: {message} (is the model name right?)"
    if kind == "overloaded_error" or status == 529:
        return "The API is overloaded right now."
    if kind == "rate_limit_error" or status == 429:
        return f"Rate limited: {message}"
    prefix = f"API error {status}" if status else "API error"
    return f"{prefix} ({kind}): {message}"
