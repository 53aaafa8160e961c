"""The property of issue 46: no command a rule allows writes outside the project.

A generator spells the output of every tool in the tables (and some no table knows) the ways
their option readers take it — short and long options, abbreviations, attached values, bundles,
positional outputs, prefixes, backup templates, target directories — at targets outside the
project spelled as an absolute path, a relative `../`, a link in the project (`link/`) or `~`;
inside wrappers. Each command runs in a real bash first; whenever it changes something outside,
no engine may allow it, not even one with an allow rule for every command it names.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from permissions.outside_oracle import Project, allowed_by

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is the oracle")

#: {T}: a file to write, {D}: a folder to write in
TEMPLATES = [
    "shuf f -o {T}", "shuf -o{T} f", "shuf --output={T} f", "shuf --outp {T} f",
    "shuf -zo{T} f",
    "xxd f {T}", "xxd -c 8 f {T}", "xxd -cols 8 -g 2 f {T}", "xxd -p f {T}",
    "uniq f {T}", "uniq -u f {T}", "uniq --skip-chars 1 f {T}", "uniq -w1 f {T}",
    "iconv -f ascii -t utf-8 -o {T} f", "iconv --output={T} f", "iconv -o{T} f",
    "iconv --outp {T} f",
    "split -l1 f {T}", "split --bytes=1 f {T}", "split -a3 -d f {T}",
    "split --additional-suffix=.x -l1 f {T}",
    "csplit -s -f {T} f 2", "csplit --prefix={T} -s f 2", "csplit -sf{T} f 2",
    "csplit --pre {T} -s f 2",
    "openssl enc -base64 -in f -out {T}", "openssl dgst -md5 -out {T} f",
    "openssl rand -out {T} 4",
    "sort -o {T} f", "sort f --outp={T}", "sort -uo{T} f",
    "tee {T} < f", "tee -a {T} < f", "cat f | tee -i {T}",
    "cp f {T}", "cp -t {D} f", "cp --target-dir={D} f", "cp --target-directory {D} f",
    "install -m 644 f {T}", "ln -s f {T}", "ln -t {D} -s f",
    "cp f g; mv g {T}", "cp f g; mv -t{D} g", "cp f g; mv --targ {D} g",
    "git bundle create {T} HEAD", "git log -1 --output={T}", "git show -s --output {T}",
    "git diff HEAD --output={T}", "git format-patch -q -1 -o {D}",
    "git format-patch -q -1 --output-directory={D}", "git archive -o {T} HEAD",
    "git archive --output={T} HEAD", "git init -q {T}",
    "sed -i'{T}*' s/a/b/ f", "sed --in-place='{T}*' s/a/b/ f", "sed -n 'w {T}' f",
    "sed -e p -i.b -i'{T}*' f",
    "tar -cf {T} f", "tar --file={T} -c f", "tar cf {T} f", "tar -c --file {T} f",
    "tar cvf {T} f",
    "sqlite3 {T} 'create table t(x)'",
    "history -s x; history -w {T}", "history -s x; history -a {T}",
    "mktemp -p {D}", "mktemp --tmpdir={D}", "mktemp {T}.XXXX", "mktemp -d -p {D}",
    "dd if=f of={T} status=none", "touch {T}", "mkdir {T}", "truncate -s 1 {T}",
    "zip -q {T} f", "gzip -c f > {T}", "cat f > {T}", "echo x >> {T}",
    "curl -s file:///etc/hostname -o {T}", "curl -so {T} file:///etc/hostname",
    "curl -s --output-dir {D} -O file:///etc/hostname",
    "script -qc true {T}", "script -q -c true -O {T}", "strace -qo {T} true",
    "strace --output {T} true", "valgrind -q --log-file={T} true",
    "patch -so {T} f /dev/null", "rsync f {T}",
    "ar rc {T} f", "zstd -q f -o {T}", "strip -o {T} /bin/true",
    "awk '{{ print > \"{T}\" }}' f", "find . -maxdepth 0 -fprint {T}",
    "dd if=f of={T} conv=notrunc status=none",
]  # fmt: skip
WRAPPERS = ["", "timeout 5 ", "nice -n 1 ", "env LC_ALL=C ", "command ", "time -p "]
#: where a target leads: the outside folder by its path, by `../`, through a link, by `~`
TARGETS = ["OUT/{n}", "../outside/{n}", "link/{n}", "./link/../link/{n}", "~/{n}"]
FOLDERS = ["OUT", "../outside", "link", "~"]

STATS = {"generated": 0, "fired": 0}


def _needs(template: str) -> bool:
    tool = template.split()[0]
    return shutil.which(tool) is not None or tool in ("history", "echo", "cat", "cp", "find")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    yield Project(tmp_path_factory.mktemp("outputs"))
    print(f"\noutside writes: {STATS['generated']} commands, {STATS['fired']} fired")
    if STATS["generated"] >= 100:
        assert STATS["fired"] * 2 >= STATS["generated"]  # the generator is meaningful


@st.composite
def command(draw: st.DrawFn) -> str:
    template = draw(st.sampled_from([t for t in TEMPLATES if _needs(t)]))
    name = f"x{draw(st.integers(0, 9))}"
    target = draw(st.sampled_from(TARGETS)).replace("{n}", name)
    folder = draw(st.sampled_from(FOLDERS))
    wrapper = draw(st.sampled_from(WRAPPERS))
    if ";" in template or "|" in template or template.startswith(("history", "echo", "cat f >")):
        wrapper = ""  # a wrapper runs one program, not a list (nor a builtin)
    return wrapper + template.replace("{T}", target).replace("{D}", folder)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(spelled=command())
def test_no_command_a_rule_allows_writes_outside(project: Project, spelled: str) -> None:
    STATS["generated"] += 1
    project.reset()
    cmd = project.spell(spelled)
    if not project.fires(cmd):
        return
    STATS["fired"] += 1
    project.reset()
    assert allowed_by(project.work, cmd) is None, (cmd, allowed_by(project.work, cmd))


@pytest.mark.parametrize("template", [t for t in TEMPLATES if _needs(t)])
def test_every_template_writes_outside_when_run_unguarded(project: Project, template: str) -> None:
    """The generator's templates really fire in bash (so the property is not idle), and each,
    at the plainest target, is never allowed."""
    project.reset()
    cmd = project.spell(template.replace("{T}", "OUT/t").replace("{D}", "OUT"))
    assert project.fires(cmd), cmd
    project.reset()
    assert allowed_by(project.work, cmd) is None, (cmd, allowed_by(project.work, cmd))
