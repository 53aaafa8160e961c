"""Option tables of the commands that only read and print (GNU coreutils 9, grep 3, diffutils 3,
findutils 4.9, ripgrep 14, file 5, tree 2, jq 1.7, util-linux column), written from their
manuals. They let the engine run these unasked the way Read and Grep run: every option must be
one listed here (anything else asks), every file they read must be inside the project, and the
options that write, follow symlinks out of the tree, or read a list of other files are refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_tui.permissions.getopt import NONE, OPTIONAL, REQUIRED, Spec


@dataclass(frozen=True)
class Reader:
    spec: Spec
    #: how operands are read: "paths"; "pattern" (the first is a pattern unless -e/-f gave
    #: one); "none" (strings, not files); "first-path" (at most one path: uniq's second is
    #: its output)
    operands: str = "paths"
    #: options whose value is a file that is read
    path_values: frozenset[str] = frozenset()
    #: options that make the command more than a reader
    refuse: frozenset[str] = frozenset()
    #: options that supply the pattern (so every operand is a path)
    pattern_options: frozenset[str] = frozenset()
    #: `-NUM` is an option (head -5, grep -3)
    numeric_option: bool = False


def _long(none: str = "", required: str = "", optional: str = "") -> dict[str, int]:
    out = dict.fromkeys(none.split(), NONE)
    out.update(dict.fromkeys(required.split(), REQUIRED))
    out.update(dict.fromkeys(optional.split(), OPTIONAL))
    out.update({"help": NONE, "version": NONE})
    return out


def _r(
    name: str,
    short: str,
    long: dict[str, int],
    operands: str = "paths",
    paths: str = "",
    refuse: str = "",
    patterns: str = "",
    numeric: bool = False,
) -> Reader:
    return Reader(
        Spec(name, short, long, stop_at_operand=False),
        operands,
        frozenset(paths.split()),
        frozenset(refuse.split()),
        frozenset(patterns.split()),
        numeric,
    )


_GREP = _r(
    "grep",
    "A:B:C:D:EFGHIJLNPRTUVZabcd:e:f:hilm:noqrsuvwxyz",
    _long(
        "extended-regexp fixed-strings basic-regexp perl-regexp ignore-case no-ignore-case "
        "word-regexp line-regexp null-data no-messages invert-match byte-offset line-number "
        "line-buffered with-filename no-filename only-matching quiet silent text recursive "
        "dereference-recursive files-without-match files-with-matches count initial-tab null",
        "regexp file max-count label binary-files directories devices include exclude "
        "exclude-from exclude-dir before-context after-context context",
        "color colour",
    ),
    "pattern",
    paths="-f --file --exclude-from",
    refuse="-R --dereference-recursive -D --devices",
    patterns="-e -f --regexp --file",
    numeric=True,
)

_RG = _r(
    "rg",
    "A:B:C:d:E:e:f:g:j:M:m:r:T:t:abcFHhIiLlNnoPpqSsUuVvwxz0.",
    _long(
        "text byte-offset count count-matches fixed-strings with-filename no-filename "
        "ignore-case files files-with-matches files-without-match follow hidden no-hidden "
        "no-ignore no-ignore-vcs no-ignore-dot no-ignore-parent no-ignore-global "
        "no-ignore-exclude no-ignore-files no-messages line-number no-line-number "
        "only-matching pretty pcre2 quiet smart-case case-sensitive multiline "
        "multiline-dotall unrestricted invert-match word-regexp line-regexp null null-data "
        "json vimgrep heading no-heading column no-column stats trim crlf one-file-system "
        "no-config binary no-require-git type-list debug trace passthru sort-files "
        "no-unicode block-buffered line-buffered include-zero max-columns-preview "
        "no-filename ignore-case invert-match search-zip",
        "after-context before-context context max-depth encoding regexp file glob iglob "
        "threads max-columns max-count replace type-not type type-add type-clear sort sortr "
        "color colors context-separator field-context-separator field-match-separator "
        "path-separator max-filesize dfa-size-limit regex-size-limit engine ignore-file pre "
        "pre-glob hostname-bin hyperlink-format generate",
    ),
    "pattern",
    paths="-f --file --ignore-file",
    refuse="-L --follow --pre --pre-glob --hostname-bin -z --search-zip",
    patterns="-e -f --regexp --file",
)

_LS = _r(
    "ls",
    "abcdfghiklmnopqrstuvw:xABCDFGHI:LNQRST:UXZ1",
    _long(
        "all almost-all author escape ignore-backups directory dired file-type full-time "
        "group-directories-first no-group human-readable si dereference-command-line "
        "dereference-command-line-symlink-to-dir inode kibibytes dereference "
        "numeric-uid-gid literal hide-control-chars show-control-chars quote-name reverse "
        "recursive size context zero",
        "block-size format hide indicator-style ignore quoting-style sort time time-style "
        "tabsize width",
        "color classify hyperlink",
    ),
)

READERS: dict[str, Reader] = {
    "cat": _r(
        "cat",
        "AbeEnstTuv",
        _long("show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting"),
    ),
    "head": _r(
        "head",
        "c:n:qvz",
        _long("quiet silent verbose zero-terminated", "bytes lines"),
        numeric=True,
    ),
    "tail": _r(
        "tail",
        "c:fFn:qs:vz",
        _long(
            "quiet silent retry verbose zero-terminated",
            "bytes lines max-unchanged-stats pid sleep-interval",
            "follow",
        ),
        numeric=True,
    ),
    "wc": _r(
        "wc",
        "clmwL",
        _long("bytes chars lines words max-line-length", "total files0-from"),
        refuse="--files0-from",
    ),
    "du": _r(
        "du",
        "0abB:cd:DhHklLmsSt:xX:",
        _long(
            "null all apparent-size bytes total dereference-args human-readable inodes si "
            "dereference count-links separate-dirs summarize one-file-system",
            "block-size max-depth threshold time-style exclude-from exclude files0-from",
            "time",
        ),
        paths="-X --exclude-from",
        refuse="-L --dereference --files0-from",
    ),
    "sort": _r(
        "sort",
        "bCcdfghik:Mmno:RrsS:t:T:uVz",
        _long(
            "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort "
            "ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort "
            "reverse version-sort debug merge stable unique zero-terminated",
            "random-source sort batch-size compress-program files0-from key output "
            "buffer-size field-separator temporary-directory parallel",
            "check",
        ),
        paths="--random-source",
        refuse="-o --output -T --temporary-directory --compress-program --files0-from",
    ),
    "uniq": _r(
        "uniq",
        "cdDf:is:uw:z",
        _long(
            "count repeated ignore-case unique zero-terminated",
            "skip-fields skip-chars check-chars",
            "all-repeated group",
        ),
        "first-path",
    ),
    "cut": _r(
        "cut",
        "b:c:d:f:nsz",
        _long(
            "complement only-delimited zero-terminated",
            "bytes characters delimiter fields output-delimiter",
        ),
    ),
    "tr": _r("tr", "cCdst", _long("complement delete squeeze-repeats truncate-set1"), "none"),
    "nl": _r(
        "nl",
        "b:d:f:h:i:l:n:ps:v:w:",
        _long(
            "no-renumber",
            "body-numbering section-delimiter footer-numbering header-numbering "
            "line-increment join-blank-lines number-format number-separator "
            "starting-line-number number-width",
        ),
    ),
    "tac": _r("tac", "brs:", _long("before regex", "separator")),
    "column": _r(
        "column",
        "c:deE:H:i:Jl:LN:n:O:o:p:R:r:s:S:T:tW:xC:hV",
        _long(
            "table-noheadings table-header-repeat json keep-empty-lines table fillrows",
            "output-width table-noextreme table-hide tree-id table-columns-limit "
            "table-columns table-name table-order output-separator tree-parent table-right "
            "tree separator use-spaces table-truncate table-wrap table-column",
        ),
    ),
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": _RG,
    "ls": _LS,
    "tree": _r(
        "tree",
        "adlfxL:RP:I:qNQpugshDFvtcUriASnCXJH:T:o:",
        _long(
            "gitignore ignore-case matchdirs metafirst prune info noreport si du inodes "
            "device dirsfirst filesfirst nolinks fflinks hintro houtro",
            "charset filelimit timefmt sort infofile",
            "fromfile",
        ),
        paths="--infofile",
        refuse="-l -R -o -H --fromfile",
    ),
    "file": _r(
        "file",
        "bcCde:EF:f:hiklLm:NnpP:rsSvz0Z",
        _long(
            "brief checking-printout compile extension no-dereference mime mime-type "
            "mime-encoding keep-going list dereference no-pad no-buffer preserve-date raw "
            "special-files uncompress uncompress-noreport print0",
            "exclude exclude-quiet files-from separator magic-file parameter",
        ),
        paths="-m --magic-file",
        refuse="-C --compile -f --files-from -z -Z --uncompress --uncompress-noreport",
    ),
    "stat": _r("stat", "c:fLt", _long("dereference file-system terse", "format printf cached")),
    "diff": _r(
        "diff",
        "abBcC:dD:eEfF:hHiI:lL:nNpPqrsS:tTuU:vwW:x:X:y",
        _long(
            "normal brief report-identical-files ed rcs side-by-side left-column "
            "suppress-common-lines show-c-function expand-tabs initial-tab "
            "suppress-blank-empty recursive no-dereference new-file unidirectional-new-file "
            "ignore-file-name-case no-ignore-file-name-case ignore-case ignore-tab-expansion "
            "ignore-trailing-space ignore-space-change ignore-all-space ignore-blank-lines "
            "text strip-trailing-cr minimal speed-large-files",
            "width show-function-line label tabsize exclude exclude-from starting-file "
            "from-file to-file ignore-matching-lines ifdef old-group-format new-group-format "
            "unchanged-group-format changed-group-format line-format old-line-format "
            "new-line-format unchanged-line-format horizon-lines palette",
            "context unified color",
        ),
        paths="-X --exclude-from --from-file --to-file",
        # -r follows symlinks met in the folders it compares (out of the project too)
        refuse="-l --paginate -r --recursive",
        numeric=True,
    ),
    "cmp": _r("cmp", "bi:ln:sv", _long("print-bytes verbose quiet silent", "ignore-initial bytes")),
    "basename": _r("basename", "as:z", _long("multiple zero", "suffix"), "none"),
    "dirname": _r("dirname", "z", _long("zero"), "none"),
    "realpath": _r(
        "realpath",
        "eEmLPqsz",
        _long(
            "canonicalize-existing canonicalize-missing logical physical quiet strip "
            "no-symlinks zero",
            "relative-to relative-base",
        ),
        paths="--relative-to --relative-base",
    ),
    "readlink": _r(
        "readlink",
        "efmnqsvz",
        _long(
            "canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent "
            "verbose zero"
        ),
    ),
    "date": _r(
        "date",
        "d:f:I::r:Rs:u",
        _long("debug rfc-email universal utc", "date file rfc-3339 reference set", "iso-8601"),
        "none",
        paths="-f --file -r --reference",
        refuse="-s --set",
    ),
    "which": _r("which", "as", {}, "none"),
    "pwd": _r("pwd", "LP", {}, "none"),
    "sed": _r(
        "sed",
        "nrsuzEe:f:l:",
        _long(
            "quiet silent debug follow-symlinks null-data zero-terminated posix "
            "regexp-extended separate sandbox unbuffered",
            "expression file line-length",
        ),
        "pattern",
        patterns="-e -f --expression --file",
    ),
    "awk": _r(
        "awk",
        "F:v:",
        _long(
            "posix traditional re-interval characters-as-bytes use-lc-numeric sandbox csv",
            "field-separator assign",
        ),
        "pattern",
    ),
    "jq": _r(
        "jq",
        "nrjascCMSeR",
        _long(
            "null-input raw-output join-output ascii-output slurp compact-output "
            "color-output monochrome-output sort-keys exit-status raw-input tab seq stream "
            "stream-errors raw-output0 unbuffered",
            "indent",
        ),
        "pattern",
    ),
    "whoami": _r("whoami", "", {}, "none"),
    "uname": _r(
        "uname",
        "asnrvmpio",
        _long(
            "all kernel-name nodename kernel-release kernel-version machine processor "
            "hardware-platform operating-system"
        ),
        "none",
    ),
    "nproc": _r("nproc", "", _long("all", "ignore"), "none"),
    # the environment: the app's credentials are not in it (the Bash tool removes them)
    "printenv": _r("printenv", "0", _long("null"), "none"),
}
for _alias, _of in (("gawk", "awk"), ("mawk", "awk"), ("nawk", "awk"), ("gsed", "sed")):
    READERS[_alias] = READERS[_of]
READERS.update(
    {
        "comm": _r(
            "comm",
            "123z",
            _long("check-order nocheck-order total zero-terminated", "output-delimiter"),
        ),
        "paste": _r("paste", "d:sz", _long("serial zero-terminated", "delimiters")),
        "fold": _r("fold", "bsw:", _long("bytes spaces", "width")),
        "expand": _r("expand", "it:", _long("initial", "tabs")),
        "rev": _r("rev", "0", {}),
    }
)

#: find's actions that write or run (read by find_exec.py and command_risks; never read-only),
#: the tests that name a file it reads, and the options that follow symlinks
FIND_WRITES_OR_RUNS = frozenset(
    [
        "-exec",
        "-execdir",
        "-ok",
        "-okdir",
        "-delete",
        "-fprint",
        "-fprint0",
        "-fprintf",
        "-fls",
        "-files0-from",
    ]
)
FIND_FILE_TESTS = frozenset(["-newer", "-anewer", "-cnewer", "-samefile"])
FIND_FOLLOWS = frozenset({"-L", "-follow"})
