#!/usr/bin/env bash
# Checks that every repository path a doc or a comment cites exists, so that
# a renamed or removed file cannot leave readers pointing at nothing. Exits
# non-zero listing "FILE:LINE: cites X, which does not exist". No build
# needed; under a second.
#
# Usage: scripts/test_citations.sh    (checks the repository it is in)
#
# Where citations are looked for: all the text of the Markdown files, and
# the comments (C++ // and /* */; # in shell, Python, CMake, YAML and the
# Makefile; Python docstrings) of the files under include/ src/ tools/
# tests/ scripts/ python/ examples/ cmake/, of CMakeLists.txt and of the
# Makefile. Files are those git knows of or would add (not ignored ones).
#
# What is a citation: a word (split at white space, quotes, backticks,
# brackets, commas, semicolons, pipes), its trailing punctuation stripped,
# that
#   * contains a '/' and starts with a directory of the repository
#     (src/db/, util/, ../docs/, tools/common), or ends in a source, doc or
#     configuration extension (.h .cc .md .py .sh .cmake .yml .txt .json
#     .toml .in ...);
#   * or, without a '/', names a source or doc file: .h .cc .md .py .pyi
#     .sh .cmake (api.md, hello.cc). Bare names of other kinds are left
#     alone: in examples they name the reader's files (nutcracker.yml,
#     results.json), as do names like my.pool or records.tsv.
# Not citations: URLs, absolute paths, paths under build/, names without a
# stem (.md), words with a placeholder in capitals (include/FILE,
# BUILD_DIR/tools), and words holding $ { } < > = @ % (shell variables,
# templates, options).
#
# Where a citation may point: relative to the citing file's folder, to the
# repository root, to src/ (include style: db/write_path.h) or to include/
# (plush/db.h); a name without a '/' also to a file of that name anywhere
# in the repository; a word with '*' is a glob that must match something;
# tests/crash_explorer.{h,cc} cites both files. Beyond the file:
#   * docs/api.md#stats: the anchor must be GitHub's for one of the file's
#     headings (and a link (#anchor) in a Markdown file one of its own);
#   * docs/format.md §5.2 (§ right after the file, several allowed: "§5,
#     §7"): a numbered heading of the file ("## 5." or "### 5.2 ...").
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

python3 - "$root" <<'PYTHON'
import fnmatch
import glob
import io
import os
import re
import subprocess
import sys
import tokenize

root = sys.argv[1]

COMMENTED_DIRS = ("include/", "src/", "tools/", "tests/", "scripts/",
                  "python/", "examples/", "cmake/")
CPP = (".h", ".cc")
PYTHON = (".py", ".pyi")
HASH = (".sh", ".cmake", ".yml", ".yaml", ".toml", ".in")
HASH_NAMES = ("CMakeLists.txt", "Makefile")
SOURCE_EXT = re.compile(r"(?<=[^./])\.(h|cc|md|py|pyi|sh|cmake)$")
CITED_EXT = re.compile(
    r"(?<=[^./])\.(h|cc|md|py|pyi|sh|cmake|yml|yaml|txt|json|toml|in)$")
NOT_A_PATH = re.compile(r"://|^www\.|^[/~-]|[${}<>=@%\\]")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*$")
WORD = re.compile(r"[^\s`'\"()\[\],;|]+")
BRACES = re.compile(r"\{([\w.]+(?:,[\w.]+)+)\}")
SECTIONS = re.compile(r"^[\s,]*((?:§\s*\d+(?:\.\d+)*\.?[\s,]*(?:and\s+)?)+)")


def files():
    out = subprocess.run(
        ["git", "-C", root, "ls-files", "--cached", "--others",
         "--exclude-standard"],
        check=True, capture_output=True, text=True).stdout.split("\n")
    return sorted(p for p in set(out)
                  if p and os.path.isfile(os.path.join(root, p)))


FILES = files()
BASENAMES = {os.path.basename(p) for p in FILES}
DIRS = {os.path.dirname(p) for p in FILES}
DIRS |= {d.rsplit("/", i)[0] for d in DIRS for i in range(d.count("/") + 1)}

# ---- the text to search: (line number, text) of each file ----------------

def markdown_lines(text):
    return list(enumerate(text.split("\n"), 1))


def cpp_comments(text):
    lines, in_block = [], False
    for number, line in enumerate(text.split("\n"), 1):
        found, i = [], 0
        while i < len(line):
            if in_block:
                end = line.find("*/", i)
                found.append(line[i:] if end < 0 else line[i:end])
                if end < 0:
                    break
                in_block, i = False, end + 2
                continue
            line_comment, block = line.find("//", i), line.find("/*", i)
            if line_comment >= 0 and (block < 0 or line_comment < block):
                found.append(line[line_comment + 2:])
                break
            if block < 0:
                break
            in_block, i = True, block + 2
        if found:
            lines.append((number, " ".join(found)))
    return lines


def hash_comments(text):
    lines = []
    for number, line in enumerate(text.split("\n"), 1):
        match = re.search(r"(?:^|\s)#(.*)", line)
        if match:
            lines.append((number, match.group(1)))
    return lines


def python_comments(text):
    lines = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return hash_comments(text)
    for token in tokens:
        if token.type == tokenize.COMMENT:
            lines.append((token.start[0], token.string[1:]))
        elif token.type == tokenize.STRING and re.match(
                r"^[rRbBuU]*('''|\"\"\")", token.string):
            for offset, line in enumerate(token.string.split("\n")):
                lines.append((token.start[0] + offset, line))
    return lines


def searched_lines(path):
    name = os.path.basename(path)
    if path.endswith(".md"):
        extract = markdown_lines
    elif name in HASH_NAMES and (path in HASH_NAMES
                                 or path.startswith(COMMENTED_DIRS)):
        extract = hash_comments
    elif not path.startswith(COMMENTED_DIRS):
        return []
    elif path.endswith(CPP):
        extract = cpp_comments
    elif path.endswith(PYTHON):
        extract = python_comments
    elif path.endswith(HASH):
        extract = hash_comments
    else:
        return []
    with open(os.path.join(root, path), encoding="utf-8",
              errors="replace") as f:
        return extract(f.read())


# ---- what a Markdown file offers: anchors and numbered sections ----------

headings_cache = {}


def headings(md_path):
    """GitHub's anchors of the file's headings, and their leading numbers."""
    if md_path not in headings_cache:
        anchors, numbers, seen, fenced = set(), set(), {}, False
        with open(md_path, encoding="utf-8") as f:
            for line in f:
                if re.match(r"^\s*(```|~~~)", line):
                    fenced = not fenced
                    continue
                match = re.match(r"^#{1,6}\s+(.*?)\s*#*$", line)
                if fenced or not match:
                    continue
                title = match.group(1)
                number = re.match(r"^(\d+(?:\.\d+)*)\.?\s", title)
                if number:
                    numbers.add(number.group(1))
                text = re.sub(r"[`*]|\[([^\]]*)\]\([^)]*\)", r"\1", title)
                slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
                count = seen.get(slug, 0)
                seen[slug] = count + 1
                anchors.add(slug if count == 0 else f"{slug}-{count}")
        headings_cache[md_path] = (anchors, numbers)
    return headings_cache[md_path]


# ---- resolving a citation --------------------------------------------------

def bases(citing):
    return [os.path.dirname(citing), "", "src", "include"]


def starts_with_a_directory(word, citing):
    first = [p for p in word.split("/") if p not in ("", ".")][0]
    return first == ".." or any(
        os.path.normpath(os.path.join(base, first)) in DIRS
        for base in bases(citing))


def is_citation(word, citing):
    if NOT_A_PATH.search(word):
        return False
    parts = [p for p in word.split("/") if p not in ("", ".", "..")]
    if not parts or parts[0].startswith("build") or any(
            PLACEHOLDER.match(p) for p in parts):
        return False
    if "/" not in word:
        return bool(SOURCE_EXT.search(word))
    # Not "read/write" or "key/value": prose, not paths.
    return bool(CITED_EXT.search(parts[-1])) or starts_with_a_directory(
        word, citing)


def resolve(word, citing):
    """The cited path on disk, or None."""
    for base in bases(citing):
        candidate = os.path.normpath(os.path.join(root, base, word))
        if "*" in word:
            if glob.glob(candidate):
                return candidate
        elif os.path.exists(candidate):
            return candidate
    if "/" not in word:
        for path in FILES:
            if fnmatch.fnmatchcase(os.path.basename(path), word):
                return os.path.join(root, path)
    return None


def expand_braces(text):
    """tests/crash_explorer.{h,cc} -> tests/crash_explorer.h ...cc"""
    def expand(match):
        word = match.group(0)
        group = BRACES.search(word)
        return " ".join(word[:group.start()] + choice + word[group.end():]
                        for choice in group.group(1).split(","))
    return re.sub(r"\S*" + BRACES.pattern + r"\S*", expand, text)


def check_line(citing, number, text, problems):
    where = f"{citing}:{number}"
    text = expand_braces(text)
    for match in WORD.finditer(text):
        word = match.group(0).rstrip(".:!?")
        while len(word) > 2 and word[0] == word[-1] == "*":  # *emphasis*
            word = word[1:-1]
        path, _, anchor = word.partition("#")
        if not path or not is_citation(path, citing):
            continue
        found = resolve(path, citing)
        if found is None:
            problems.append(f"{where}: cites {path}, which does not exist")
            continue
        if not found.endswith(".md") or not os.path.isfile(found):
            continue
        anchors, numbers = headings(found)
        if anchor and anchor not in anchors:
            problems.append(f"{where}: cites {path}#{anchor}, which has no "
                            f"such heading")
        sections = SECTIONS.match(text[match.end():])
        for section in re.findall(r"§\s*(\d+(?:\.\d+)*)",
                                  sections.group(1) if sections else ""):
            if section not in numbers:
                problems.append(f"{where}: cites {path} §{section}, which "
                                f"has no such section")
    if citing.endswith(".md"):  # links to the file's own headings
        for anchor in re.findall(r"\]\(#([^)\s]+)\)", text):
            if anchor not in headings(os.path.join(root, citing))[0]:
                problems.append(f"{where}: cites #{anchor}, which has no "
                                f"such heading")


problems = []
for path in FILES:
    for number, text in searched_lines(path):
        check_line(path, number, text, problems)
for problem in problems:
    print(problem, file=sys.stderr)
if problems:
    sys.exit(f"test_citations: {len(problems)} citation(s) of nothing")
print(f"test_citations: every cited path exists ({len(FILES)} files searched)")
PYTHON
