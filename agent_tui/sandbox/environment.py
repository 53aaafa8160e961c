"""The environment a model-run command gets: an allow-list, not the app's whole environment.

A command the model runs sees the variables programs need to find their tools and speak the
person's language (PATH, HOME, LANG, TERM, TZ, the toolchains' own settings), and nothing that
grants access: no token, key, secret or password (by name, and a URL with a password in it by
value), no agent or multiplexer socket (SSH_AUTH_SOCK, TMUX, STY, DBUS_SESSION_BUS_ADDRESS,
DOCKER_HOST, ...), and never the app's own credentials (ANTHROPIC_API_KEY and the Bedrock /
Vertex ones), whatever the settings say. The person adds names with `[sandbox] env = ["NAME",
"PREFIX_*"]` (or sets values with `[sandbox.env] NAME = "value"`). The same list applies where
no sandbox runs (`--sandbox off`, or bubblewrap unavailable), so the app's key never reaches a
command's output; a command the person lets run outside the sandbox (`excludedCommands`, or an
approved `dangerouslyDisableSandbox`) gets the person's environment less the app's credentials.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping

#: passed as they are (exact names)
ALLOWED = frozenset(
    {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "COLORTERM", "TZ"}
    | {"EDITOR", "VISUAL", "PAGER", "LESS", "MANPATH", "INFOPATH", "HOSTNAME", "NO_COLOR"}
    | {"FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "CI", "COLUMNS", "LINES", "TERM_PROGRAM"}
    | {"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_DATA_DIRS"}
    | {"XDG_CONFIG_DIRS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE"}
    | {"CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "CC", "CXX", "CPP", "LD", "AR", "CFLAGS"}
    | {"CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LIBS", "PKG_CONFIG_PATH", "LD_LIBRARY_PATH"}
    | {"LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "MAKEFLAGS"}
    | {"VIRTUAL_ENV", "VIRTUAL_ENV_PROMPT", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_EXE"}
    | {"PYENV_ROOT", "PYENV_VERSION", "PYENV_SHELL", "PYTHONPATH", "PYTHONHOME"}
    | {"PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONUNBUFFERED"}
    | {"NVM_DIR", "NVM_BIN", "NVM_INC", "NODE_PATH", "NODE_ENV", "NODE_OPTIONS", "VOLTA_HOME"}
    | {"PNPM_HOME", "BUN_INSTALL", "DENO_DIR", "DENO_INSTALL", "CARGO_HOME", "RUSTUP_HOME"}
    | {"RUSTUP_TOOLCHAIN", "RUSTFLAGS", "RUST_BACKTRACE", "RUST_LOG", "CARGO_TARGET_DIR"}
    | {"GOPATH", "GOROOT", "GOBIN", "GOFLAGS", "GOPROXY", "GOPRIVATE", "GONOSUMDB", "GO111MODULE"}
    | {"GOTOOLCHAIN", "CGO_ENABLED", "JAVA_HOME", "JAVA_TOOL_OPTIONS", "MAVEN_HOME", "M2_HOME"}
    | {"GRADLE_HOME", "GRADLE_USER_HOME", "ANDROID_HOME", "ANDROID_SDK_ROOT", "GEM_HOME"}
    | {"GEM_PATH", "RBENV_ROOT", "RBENV_VERSION", "BUNDLE_PATH", "DOTNET_ROOT", "JULIA_DEPOT_PATH"}
    | {"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"}
    | {"EMAIL", "DEBFULLNAME", "DEBEMAIL", "TMPDIR", "SOURCE_DATE_EPOCH"}
)
#: passed by prefix (a toolchain's own settings), unless the name or value looks secret
ALLOWED_PREFIXES = ("LC_", "PIP_", "UV_", "POETRY_", "PIPENV_", "CMAKE_", "CONDA_", "npm_config_")
#: never passed, whatever the settings say: the app's own credentials
APP_CREDENTIALS = frozenset(
    {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"}
    | {
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_BEARER_TOKEN_BEDROCK",
    }
    | {"GOOGLE_APPLICATION_CREDENTIALS", "ANTHROPIC_FOUNDRY_API_KEY"}
)
#: never passed unless the person names them: sockets that reach their other programs
SOCKETS = frozenset(
    {"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "TMUX", "TMUX_PANE", "STY", "WINDOW"}
    | {"DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY"}
    | {"XDG_RUNTIME_DIR", "KITTY_LISTEN_ON", "WEZTERM_UNIX_SOCKET", "ZELLIJ", "NVIM"}
    | {"VSCODE_IPC_HOOK_CLI", "EMACS_SOCKET_NAME", "PODMAN_HOST", "CONTAINER_HOST"}
)
_SECRET_NAME = re.compile(
    r"(TOKEN|SECRET|PASSW(OR)?D|PASSPHRASE|_PASS$|^PASS|CREDENTIAL|_KEY$|_KEY_|APIKEY|API_KEY"
    r"|AUTH(?!OR)|COOKIE|SESSION|PRIVATE|_PAT$|SIGNING|WEBHOOK|DSN$|CONNECTION_STRING)",
    re.IGNORECASE,
)
#: a URL with credentials in it: `postgres://user:pw@host/db`, and a token carried as the user
#: name (`https://TOKEN@pypi.fury.io/…`, how many private indexes are configured)
_URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s@]+@", re.IGNORECASE)


def secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name)) or name in APP_CREDENTIALS


def secret_value(value: str) -> bool:
    return bool(_URL_PASSWORD.search(value))


def _listed(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def command_environment(
    environ: Mapping[str, str], extra: Iterable[str] = (), values: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment for a model-run command: the allow-list, plus the person's `extra` names
    (exact or with `*`), plus `values`; never the app's credentials."""
    extra = tuple(extra)
    out: dict[str, str] = {}
    for name, value in environ.items():
        if name in APP_CREDENTIALS:
            continue
        if _listed(name, extra):
            out[name] = value  # the person's choice, even for a secret-looking name
            continue
        if name in SOCKETS or secret_value(value):
            continue
        if name in ALLOWED or (name.startswith(ALLOWED_PREFIXES) and not secret_name(name)):
            out[name] = value
    for name, value in (values or {}).items():
        if name not in APP_CREDENTIALS:
            out[name] = value
    return out


def outside_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """For a command the person let run outside the sandbox: their environment, less the app's
    own credentials."""
    return {k: v for k, v in environ.items() if k not in APP_CREDENTIALS}


def left_out(environ: Mapping[str, str], passed: Mapping[str, str]) -> list[str]:
    """The names of `environ` a command doesn't get (for `/sandbox`)."""
    return sorted(n for n in environ if n not in passed)
