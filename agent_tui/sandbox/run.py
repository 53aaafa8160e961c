"""One command started inside the sandbox, from its start to its settled change set."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.sandbox.reaper import Records, remove_placeholder

if TYPE_CHECKING:
    from agent_tui.sandbox.layout import Layout
    from agent_tui.sandbox.live import LiveTransaction
    from agent_tui.sandbox.proxy import Proxy
    from agent_tui.sandbox.settle import ReviewFn, Settled
    from agent_tui.sandbox.transaction import Transaction


@dataclass
class SandboxRun:
    """One command started inside the sandbox: its argv, environment, layout, proxy and
    transaction, to `finish` and `settle` once its processes are gone."""

    argv: list[str]
    env: dict[str, str]
    layout: Layout
    proxy: Proxy | None
    records: Records
    txn: Transaction | None = None
    #: this command's own folder (the cache overlays' work dirs), removed when it finishes
    work: Path | None = None
    record: Path | None = None
    #: what the boundary stopped, once finished
    blocked: list[str] = field(default_factory=list)
    settled: Settled | None = None
    home_root: bool = False
    #: a background shell's transaction, synced and mirrored as it runs (`live.py`)
    live: LiveTransaction | None = None

    def started(self, pgid: int) -> None:
        """The command runs as process group `pgid`: record it for the reaper."""
        self.record = self.records.add(pgid, list(self.layout.placeholders))

    async def finish(self, command: str, output: str) -> list[str]:
        """After the sandbox's processes are gone: clean up; what was blocked."""
        if self.proxy is not None:
            await self.proxy.close()
        for path, kind in self.layout.placeholders:
            remove_placeholder(path, kind)
        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)
        Records.remove(self.record)
        from agent_tui.sandbox import report

        refused = list(self.proxy.refused) if self.proxy is not None else []
        self.blocked = report.blocked(self.layout, command, output, refused)
        return self.blocked

    async def settle(
        self,
        ask: ReviewFn | None,
        *,
        review: bool = False,
        blobs: Any = None,
        by: str = "Bash",
        nobody: str = "no one is there to approve it",
    ) -> Settled | None:
        """Judge and apply the change set (once); None when the command had no transaction (or
        a live one, which settles as it runs)."""
        if self.txn is None or self.live is not None:
            return None
        if self.settled is None:
            from agent_tui.sandbox.settle import settle

            self.settled = await settle(
                self.txn,
                ask=ask,
                review=review,
                blobs=blobs,
                by=by,
                home_root=self.home_root,
                nobody=nobody,
            )
        return self.settled

    def hold(self, reason: str) -> None:
        """The command was stopped: its change set waits for the person, nothing is applied."""
        if self.txn is not None and self.settled is None:
            from agent_tui.sandbox.settle import Settled

            if self.txn.empty():
                self.txn.discard()
                self.settled = Settled()
                return
            self.txn.hold(reason)
            self.settled = Settled(held={"(all)": reason}, held_id=self.txn.id)
