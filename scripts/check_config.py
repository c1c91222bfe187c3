#!/usr/bin/env python3
"""docs/configuration.md against the code and the template, both ways.

Fails (with what to add or remove, and where) when:
- the Rust code reads an environment variable the tables do not list;
- the tables list a variable nothing reads (the rows under "Read by the libraries" excepted);
- template.yaml has a parameter the "Template parameters" table does not list, or lists with
  another default, or the table lists one the template does not have;
- template.yaml sets a function's environment variable the tables do not list.

What counts as reading a variable, in the .rs files of core/, infra/, functions/ and tests/:
`env::var("X")`, `env::var_os("X")` (but cargo's own `CARGO_*`), any `var("X", …)`-style helper call with the name as its
first argument, `env!("X")`, `option_env!("X")`, a `const NAME: &str = "MADANG_…";` (the
variables read through a constant), and `RUST_LOG` when `EnvFilter` reads its default variable.

Usage: scripts/check_config.py [--self-test]. --self-test first shows that a table missing a
row the code reads, or holding a row nothing reads, fails.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = "docs/configuration.md"
SOURCES = ["core", "infra", "functions", "tests"]

READS = [
    re.compile(r'\bvar(?:_os)?\(\s*"([A-Z][A-Z0-9_]*)"'),
    re.compile(r'\b(?:option_)?env!\(\s*"([A-Z][A-Z0-9_]*)"'),
    re.compile(r'\bconst\s+[A-Z0-9_]+\s*:\s*&str\s*=\s*"(MADANG_[A-Z0-9_]*)"'),
]


def code_reads():
    """{variable: first place it is read}."""
    found = {}
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*.rs")):
            if "node_modules" in path.parts or "target" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            for pattern in READS:
                for m in pattern.finditer(text):
                    if m.group(1).startswith("CARGO_"):
                        continue  # cargo's own, set for every build
                    line = text.count("\n", 0, m.start()) + 1
                    found.setdefault(m.group(1), f"{path.relative_to(ROOT)}:{line}")
            if "from_default_env" in text:
                line = text.count("\n", 0, text.index("from_default_env")) + 1
                found.setdefault("RUST_LOG", f"{path.relative_to(ROOT)}:{line}")
    return found


def template():
    """({parameter: default}, {variable set in a function's Environment: line})."""
    text = (ROOT / "template.yaml").read_text(encoding="utf-8")
    lines = text.splitlines()
    params, env = {}, {}
    start = lines.index("Parameters:")
    current = None
    for line in lines[start + 1:]:
        if line and not line.startswith(" "):
            break
        m = re.match(r"^  ([A-Za-z0-9]+):\s*$", line)
        if m:
            current = m.group(1)
            params[current] = None
            continue
        m = re.match(r"^    Default:\s*(.*?)\s*$", line)
        if m and current:
            params[current] = m.group(1)
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)Variables:\s*$", line)
        if not m:
            continue
        indent = None
        for j in range(i + 1, len(lines)):
            n = len(lines[j]) - len(lines[j].lstrip())
            if lines[j].strip() == "" or lines[j].lstrip().startswith("#"):
                continue
            if n <= len(m.group(1)):
                break
            indent = indent if indent is not None else n
            k = re.match(r"^\s*([A-Z][A-Z0-9_]*):", lines[j])
            if n == indent and k:
                env.setdefault(k.group(1), j + 1)
    return params, env


def tables(text):
    """({variable: section}, {parameter: default}) from the doc's tables."""
    variables, params = {}, {}
    section = ""
    for line in text.splitlines():
        if line.startswith("#"):
            section = line.lstrip("#").strip()
            continue
        m = re.match(r"^\|\s*`([A-Za-z][A-Za-z0-9_]*)`\s*\|([^|]*)\|", line)
        if not m:
            continue
        if section == "Template parameters":
            params[m.group(1)] = m.group(2).strip().strip("`")
        else:
            variables[m.group(1)] = section
    return variables, params


def check(doc_text):
    """The problems, as sentences saying what to do."""
    problems = []
    reads = code_reads()
    params, template_env = template()
    listed, listed_params = tables(doc_text)
    for name, where in sorted(reads.items()):
        if name not in listed:
            problems.append(
                f"{where} reads the environment variable {name}, which {DOC} does not list: "
                f"add a row `| `{name}` | who reads it (local, Lambda, a test…) | what it does | "
                f"its default |` to the table of its section (\"Environment variables\", \"At "
                f"build time\" or \"Tests and tools\")"
            )
    for name, section in sorted(listed.items()):
        if name not in reads and section != "Read by the libraries":
            problems.append(
                f"{DOC} lists {name} (section \"{section}\"), but no code in "
                f"{', '.join(SOURCES)} reads it: remove its row (or move it under \"Read by the "
                f"libraries\" if a library reads it)"
            )
    for name, line in sorted(template_env.items()):
        if name not in listed:
            problems.append(
                f"template.yaml:{line} sets the environment variable {name}, which {DOC} does "
                f"not list: add its row to \"Environment variables\""
            )
    for name, default in params.items():
        if name not in listed_params:
            problems.append(
                f"template.yaml has the parameter {name} (default {default}), which {DOC} does "
                f"not list: add `| `{name}` | `{default}` | what it does |` to its table "
                f"\"Template parameters\""
            )
        elif default is not None and listed_params[name] != default:
            problems.append(
                f"{DOC} gives the parameter {name} the default `{listed_params[name]}`, "
                f"template.yaml `{default}`: make the row say `{default}`"
            )
    for name in listed_params:
        if name not in params:
            problems.append(
                f"{DOC} lists the template parameter {name}, which template.yaml does not "
                f"have: remove its row"
            )
    return problems


def self_test(text):
    """A row removed, and a row nothing reads added, must each be caught."""
    missing = re.sub(r"^\| `MADANG_ADDR` .*\n", "", text, count=1, flags=re.M)
    assert any("MADANG_ADDR" in p for p in check(missing)), "a missing row was not caught"
    extra = text.replace(
        "| `MADANG_ADDR` |", "| `MADANG_NOT_READ` | local | nothing | unset |\n| `MADANG_ADDR` |"
    )
    assert any("MADANG_NOT_READ" in p for p in check(extra)), "an unread row was not caught"
    param = re.sub(r"^\| `Cdn` .*\n", "", text, count=1, flags=re.M)
    assert any("parameter Cdn" in p for p in check(param)), "a missing parameter was not caught"


def main():
    text = (ROOT / DOC).read_text(encoding="utf-8")
    if "--self-test" in sys.argv[1:]:
        self_test(text)
    problems = check(text)
    for p in problems:
        print(f"configuration: {p}", file=sys.stderr)
    if problems:
        sys.exit(1)
    reads = code_reads()
    print(f"   {DOC}: {len(reads)} variables the code reads, all listed; the template's "
          f"{len(template()[0])} parameters, all listed with their defaults")


if __name__ == "__main__":
    main()
