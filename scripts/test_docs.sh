#!/usr/bin/env bash
# Checks what docs/api.md and docs/operations.md quote from the code against
# the code, so that the reference cannot drift from what the library, the
# CLI, plush-server and the Python package really do (scripts/test_readme.sh
# does the same for the README's examples). Exits non-zero on a mismatch,
# naming the doc's line.
#
# Usage: scripts/test_docs.sh [BUILD_DIR]     (default: build/release)
#
# Needs BUILD_DIR's plush and plush-server, and redis-cli. A few seconds.
#
# Marked quotes. HTML comments (invisible on GitHub) mark what is run:
#
#   <!-- docs-test: session [SETUP] -->  before a ```console block: each
#         "$ " line is a command, run with bash after SETUP in a scratch
#         directory; the lines up to the next command are its output
#         (stdout and stderr). A line "..." stands for any number of lines,
#         "..." inside a line for any text. A command must exit 0.
#   <!-- docs-test: output COMMAND -->  before a fenced block: the block is
#         what COMMAND prints (stdout and stderr; any exit code), "..." as
#         above.
#   <!-- docs-test: quote COMMAND -->  in a paragraph or table, right before
#         a `quoted` span: the span (without enclosing double quotes) is a
#         whole line of what COMMAND prints, "..." as above.
#   <!-- docs-test: declaration -->  before a ```cpp block: its structs and
#         enums are those of include/plush/ (members, in order), and its
#         classes name the public methods of theirs.
#   <!-- docs-test: fields FILE NAME -->  before a table: the names in its
#         first column are the data members of the struct NAME in
#         include/FILE, or the keyword parameters of the function NAME in
#         python/src/plush/FILE.
#
# Commands run in a scratch directory with BUILD_DIR's plush and
# plush-server first on PATH, and with these helpers (a marker cannot hold
# "--": CommonMark would end the comment there):
#   new_pool NAME        creates a small pool NAME (plush create --small);
#   server_reply ARG...  the reply of a plush-server (on a small scratch
#                        pool) to the command ARG..., as redis-cli prints it.
#
# Checked without markers:
#   * constants: a table row "| `kName` | N ..." and a "N (`kName`)"
#     anywhere have the value of the constant or enumerator kName of
#     include/plush/*.h;
#   * Python, in api.md's "## Python" section: a `db.method(args)` or
#     `plush.function(args)` span has the signature of
#     python/src/plush/_plush.pyi (parameter names, kinds, defaults; a
#     trailing **name stands for the remaining keyword-only parameters;
#     "(...)" is not a signature); a `db.name` or `plush.Name` span names
#     something that exists; and every public method and property of the
#     stub's DB appears as `db.name`;
#   * every ```console block carries a marker, so none goes untested.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
arg=${1:-build/release}
build=$({ cd "$arg" || cd "$root/$arg"; } 2>/dev/null && pwd) || {
  echo "test_docs: no build directory '$arg'" >&2
  exit 1
}
for tool in tools/cli/plush tools/server/plush-server; do
  if [[ ! -x $build/$tool ]]; then
    echo "test_docs: $build/$tool is not built" >&2
    exit 1
  fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plush-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The helpers that marked commands may call (see above), sourced by each.
cat >"$tmp/helpers.sh" <<'HELPERS'
new_pool() { plush create --small "$1" >/dev/null; }
server_reply() {
  new_pool server.pool
  plush-server --pool server.pool --port 0 --threads 1 2>server.log &
  local server=$! port=
  for _ in $(seq 100); do
    port=$(sed -n 's/.* on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' server.log)
    [[ -n $port ]] && break
    sleep 0.05
  done
  if [[ -z $port ]]; then
    echo "server_reply: plush-server did not start: $(cat server.log)" >&2
    kill "$server" 2>/dev/null
    return 1
  fi
  redis-cli -p "$port" "$@"
  kill "$server"
  wait "$server" 2>/dev/null || true
}
HELPERS

export PLUSH_DOCS_ROOT=$root PLUSH_DOCS_TMP=$tmp
export PATH=$build/tools/cli:$build/tools/server:$PATH

python3 - <<'PYTHON'
import ast
import difflib
import glob
import os
import re
import subprocess
import sys

root = os.environ["PLUSH_DOCS_ROOT"]
tmp = os.environ["PLUSH_DOCS_TMP"]
DOCS = ["docs/api.md", "docs/operations.md"]
COMMAND_TIMEOUT = 60  # seconds

failures = []


def fail(where, msg):
    failures.append(f"{where}: {msg}")
    print(f"test_docs: FAIL: {where}: {msg}\n", file=sys.stderr, flush=True)


def die(msg):
    """A doc this script cannot check as marked: stop at once."""
    raise SystemExit("test_docs: " + msg)


def read(path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


# ---- running commands ------------------------------------------------------

scratch_count = 0


def scratch():
    global scratch_count
    scratch_count += 1
    path = os.path.join(tmp, f"run{scratch_count}")
    os.makedirs(path)
    return path


def run(command, cwd):
    """(exit code, stdout and stderr) of a bash command in cwd."""
    script = f"source {tmp}/helpers.sh\n{command}"
    try:
        proc = subprocess.run(["bash", "-c", script], cwd=cwd,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL,
                              timeout=COMMAND_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, f"(did not finish within {COMMAND_TIMEOUT} s)\n"
    output = proc.stdout.decode("utf-8", errors="replace")
    if output and not output.endswith("\n"):
        output += "\n"
    return proc.returncode, output


def line_regex(line):
    return ".*".join(re.escape(part) for part in line.split("..."))


def block_regex(lines):
    parts = []
    for line in lines:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(line_regex(line) + r"\n")
    return re.compile("".join(parts), re.DOTALL)


def diff(want_lines, output):
    want = "".join(l + "\n" for l in want_lines)
    return "".join(difflib.unified_diff(
        want.splitlines(True), output.splitlines(True), "the doc", "actual"))


def check_session(where, setup, body, line):
    cwd = scratch()
    if setup:
        code, output = run(setup, cwd)
        if code != 0:
            fail(where, f"the setup '{setup}' exited {code}:\n{output}")
            return
    steps = []
    for n, text in enumerate(body):
        if text.startswith("$ "):
            steps.append((text[2:], [], line + n))
        elif not steps:
            die(f"{where}: a session must start with a '$ ' line")
        else:
            steps[-1][1].append(text)
    for command, expected, at in steps:
        code, output = run(command, cwd)
        if code != 0:
            fail(f"{where.split(':')[0]}:{at}",
                 f"'{command}' exited {code}; it printed:\n{output}")
            return
        if not block_regex(expected).fullmatch(output):
            fail(f"{where.split(':')[0]}:{at}",
                 f"'{command}' prints otherwise:\n" + diff(expected, output))
            return


def check_output(where, command, body):
    _, output = run(command, scratch())
    if not block_regex(body).fullmatch(output):
        fail(where, f"'{command}' prints otherwise:\n" + diff(body, output))


def check_quote(where, command, quote):
    if len(quote) >= 2 and quote[0] == quote[-1] == '"':
        quote = quote[1:-1]
    _, output = run(command, scratch())
    pattern = re.compile(line_regex(quote))
    if not any(pattern.fullmatch(l) for l in output.splitlines()):
        fail(where, f"no line of what '{command}' prints is\n  {quote}\n"
             f"it prints:\n{output}")


# ---- C++ declarations ------------------------------------------------------

def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.DOTALL)
    return re.sub(r"//[^\n]*", " ", text)


def top_level(body):
    """body with every nested {...} (function bodies, nested classes'
    members, brace initializers) replaced by a ';', which ends the
    declaration it closes."""
    out, depth = [], 0
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                out.append(";")
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def normalize(text):
    return " ".join(text.split())


DECLARATION = re.compile(
    r"\b(struct|class|enum class)\s+(?:PLUSH_EXPORT\s+)?([\w:]+)([^{;]*)\{")


def declarations(text):
    """{name: (kind, head, body)} of the structs, classes and enums in C++
    text; nested ones too (DB::UpdateAction is found as UpdateAction)."""
    text = strip_comments(text)
    found = {}
    for m in DECLARATION.finditer(text):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        name = m.group(2).split("::")[-1]
        found[name] = (m.group(1), normalize(m.group(3)), text[m.end():i - 1])
    return found


def public_part(kind, body):
    parts = re.split(r"\b(public|private|protected)\s*:", body)
    if kind == "struct" or len(parts) == 1:
        return body  # (a doc's shorthand class may name no access)
    keep, visible = [], False  # a class starts private
    for i, part in enumerate(parts):
        if i % 2 == 1:
            visible = part == "public"
        elif visible:
            keep.append(part)
    return " ".join(keep)


def members(kind, name, body):
    """What a declaration is compared by: a struct's data members, an
    enum's enumerators (both exactly, in order), a class's public method
    names (a set)."""
    if kind == "enum class":
        return [normalize(e) for e in body.split(",") if e.strip()]
    decls = [normalize(d) for d in top_level(public_part(kind, body)).split(";")]
    decls = [d for d in decls if d and not re.match(
        r"(using|typedef|friend|enum|class|struct)\b", d)]
    if kind == "struct":
        return [d for d in decls if "(" not in d]
    methods = set()
    for d in decls:
        m = re.search(r"(~?\w+)\s*\(", d)
        if m and m.group(1) not in (name, "~" + name, "operator"):
            methods.add(m.group(1))
    return sorted(methods)


header_declarations = {}
for path in sorted(glob.glob(os.path.join(root, "include/plush/*.h"))):
    header_declarations.update(declarations(open(path).read()))


def check_declaration(where, body):
    found = declarations("\n".join(body))
    if not found:
        die(f"{where}: a 'declaration' block declares no struct, class or enum")
    for name, (kind, head, doc_body) in found.items():
        if name not in header_declarations:
            fail(where, f"{kind} {name} is declared in no include/plush/ header")
            continue
        h_kind, h_head, h_body = header_declarations[name]
        doc, code = members(kind, name, doc_body), members(h_kind, name, h_body)
        if (kind, head) != (h_kind, h_head) or doc != code:
            fail(where, f"{kind} {name} differs from include/plush/:\n"
                 f"  the doc:   {kind} {name} {head} {doc}\n"
                 f"  the code:  {h_kind} {name} {h_head} {code}")


def struct_fields(path, name):
    found = declarations(read(path))
    if name not in found or found[name][0] != "struct":
        die(f"no struct {name} in {path}")
    return [re.match(r"[^=]*?(\w+)\s*(?:=.*)?$", d).group(1)
            for d in members("struct", name, found[name][2])]


# ---- constants -------------------------------------------------------------

def constants():
    """{kName: value} of include/plush/*.h: constexpr constants and
    enumerators with a value."""
    values = {}
    for path in sorted(glob.glob(os.path.join(root, "include/plush/*.h"))):
        text = strip_comments(open(path).read())
        for m in re.finditer(r"constexpr\s+[\w:]+\s+(k\w+)\s*=\s*([^;]+);", text):
            values[m.group(1)] = m.group(2)
        for m in re.finditer(r"\b(k[A-Z]\w*)\s*=\s*([^,;{}]+)[,}]", text):
            values.setdefault(m.group(1), m.group(2))
    out = {}
    for name, expr in values.items():
        if re.fullmatch(r"[\d\s*+<>()-]+", expr):
            out[name] = eval(expr)  # digits and operators only
    return out


def check_constants(path, lines, known):
    for n, line in enumerate(lines, 1):
        where = f"{path}:{n}"
        m = re.match(r"\|\s*`(k[A-Z]\w*)`\s*\|\s*(\d[\d,]*)\b", line)
        if m and m.group(1) in known:
            if int(m.group(2).replace(",", "")) != known[m.group(1)]:
                fail(where, f"{m.group(1)} is {known[m.group(1)]}, not "
                     f"{m.group(2)}")
        for m in re.finditer(r"\b(\d[\d,]*) \(`(k[A-Z]\w*)`\)", line):
            if m.group(2) in known and \
                    int(m.group(1).replace(",", "")) != known[m.group(2)]:
                fail(where, f"{m.group(2)} is {known[m.group(2)]}, not "
                     f"{m.group(1)}")


# ---- Python ----------------------------------------------------------------

stub = ast.parse(read("python/src/plush/_plush.pyi"))
stub_functions = {n.name: n for n in stub.body if isinstance(n, ast.FunctionDef)}
stub_db = next(n for n in stub.body
               if isinstance(n, ast.ClassDef) and n.name == "DB")
db_members = {n.name: n for n in stub_db.body if isinstance(n, ast.FunctionDef)}
package = ast.parse(read("python/src/plush/__init__.py"))
exported = {"__version__"}
for node in package.body:
    if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
        exported.update(ast.literal_eval(node.value))


def parameters(args, skip_self):
    """[(kind, name, default)] of ast.arguments; default None if none."""
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + args.defaults
    out = [("positional", a.arg, d) for a, d in zip(positional, defaults)]
    if skip_self and out and out[0][1] == "self":
        out = out[1:]
    if args.vararg:
        out.append(("*args", args.vararg.arg, None))
    out += [("keyword", a.arg, d)
            for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg:
        out.append(("**kwargs", args.kwarg.arg, None))
    return [(k, n, None if d is None else ast.unparse(d)) for k, n, d in out]


def render(params):
    out, star = [], False
    for kind, name, default in params:
        if kind == "keyword" and not star:
            out.append("*")
            star = True
        prefix = {"*args": "*", "**kwargs": "**"}.get(kind, "")
        star = star or kind == "*args"
        out.append(prefix + name + ("" if default is None else "=" + default))
    return "(" + ", ".join(out) + ")"


def same_signature(doc, code):
    """Whether the doc's parameters are the stub's: a default of ... in the
    stub matches any; a trailing **name in the doc stands for the stub's
    remaining keyword-only parameters."""
    if doc and doc[-1][0] == "**kwargs" and not any(
            k == "**kwargs" for k, _, _ in code):
        doc = doc[:-1]
        named = {n for _, n, _ in doc}
        rest = [p for p in code[len(doc):] if p[1] not in named]
        if any(k != "keyword" for k, _, _ in rest):
            return False
        code = code[:len(doc)]
    return len(doc) == len(code) and all(
        d[:2] == c[:2] and (d[2] == c[2] or c[2] == "...")
        for d, c in zip(doc, code))


def check_python(path, lines):
    start = next((i for i, l in enumerate(lines) if l == "## Python"), None)
    if start is None:
        die(f"{path}: no '## Python' section")
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith("## ")), len(lines))
    seen = set()
    for n in range(start, end):
        where = f"{path}:{n + 1}"
        # The quoted spans, and a line that is a signature on its own (in
        # a code block).
        for span in re.findall(r"`([^`]+)`", lines[n]) + [lines[n].strip()]:
            m = re.fullmatch(r"(db|plush)\.(\w+)(?:\((.*)\)(?:\s*->.*)?)?", span)
            if not m:
                continue
            owner, name, args = m.groups()
            if owner == "db":
                seen.add(name)
                code = db_members.get(name)
            else:
                if name not in exported:
                    fail(where, f"the package exports no plush.{name}")
                code = stub_functions.get(name)
            if owner == "db" and code is None:
                fail(where, f"plush.DB has no member '{name}' "
                     "(python/src/plush/_plush.pyi)")
            if args is None or args == "..." or code is None:
                continue
            try:
                doc = parameters(ast.parse(f"def f({args}): pass")
                                 .body[0].args, False)
            except SyntaxError:
                fail(where, f"'{span}' is not a Python signature")
                continue
            params = parameters(code.args, True)
            if not same_signature(doc, params):
                fail(where, f"{owner}.{name}{render(doc)} is "
                     f"{owner}.{name}{render(params)} in _plush.pyi")
    for name in db_members:
        if not name.startswith("_") and name not in seen:
            fail(path, f"plush.DB.{name} (_plush.pyi) is not documented "
                 "as `db." + name + "` in the Python section")


def python_keywords(name):
    if name not in stub_functions:
        die(f"no function {name} in python/src/plush/_plush.pyi")
    return [n for k, n, _ in parameters(stub_functions[name].args, True)
            if k == "keyword"]


def check_fields(where, file, name, table):
    documented = []
    for row in table:
        documented += re.findall(r"`(\w+)`", row.split("|")[1])
    code = (python_keywords(name) if file.endswith(".pyi")
            else struct_fields(os.path.join("include", file), name))
    if sorted(documented) != sorted(code):
        missing = [f for f in code if f not in documented]
        extra = [f for f in documented if f not in code]
        fail(where, f"the table of {name}'s fields differs from {file}: "
             f"undocumented {missing}, not in the code {extra}")


# ---- the docs --------------------------------------------------------------

MARKER = re.compile(r"^<!--\s*docs-test:\s*(\w+)\s*(.*?)\s*-->\s*$")
INLINE = re.compile(r"<!--\s*docs-test:\s*quote\s+(.*?)\s*-->(`+)(.+?)\2",
                    re.DOTALL)
FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")
known = constants()

def check_doc(path):
    """Runs the checks of one doc; returns how many marked quotes it has."""
    lines = read(path).split("\n")
    check_constants(path, lines, known)
    if path == "docs/api.md":
        check_python(path, lines)
    prose = list(lines)  # blanked where code blocks are, for inline quotes
    checked = 0
    pending = None  # (kind, argument, line) of a marker before its block
    i = 0
    while i < len(lines):
        line = lines[i]
        if "docs-test:" in line and re.search(r"<!--.*--.*-->", line):
            # CommonMark ends an HTML comment at the first "--": the rest
            # of the marker would show on the page.
            die(f"{path}:{i + 1}: a marker must not contain '--' (a "
                "helper of scripts/test_docs.sh can hide an option)")
        m = MARKER.match(line)
        f = FENCE.match(line)
        if m and m.group(1) != "quote":
            if pending:
                die(f"{path}:{pending[2]}: a marker without its block")
            pending = (m.group(1), m.group(2), i + 1)
        elif f:
            fence, lang = f.group(1), f.group(2).lower()
            j = i + 1
            while j < len(lines) and not lines[j].startswith(fence):
                j += 1
            if j == len(lines):
                die(f"{path}:{i + 1}: unterminated code block")
            body, where = lines[i + 1:j], f"{path}:{i + 1}"
            kind, argument = (pending or (None, None))[:2]
            if kind == "session":
                check_session(where, argument, body, i + 2)
            elif kind == "output":
                check_output(where, argument, body)
            elif kind == "declaration":
                check_declaration(where, body)
            elif kind is not None:
                die(f"{where}: a '{kind}' marker before a code block")
            elif lang == "console":
                die(f"{where}: a console block without a '<!-- docs-test: "
                    "session -->' marker: mark it (scripts/test_docs.sh)")
            checked += kind is not None
            pending = None
            prose[i:j + 1] = [""] * (j + 1 - i)
            i = j
        elif pending and pending[0] == "fields" and line.startswith("|"):
            j = i
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            words = pending[1].split()
            if len(words) != 2:
                die(f"{path}:{pending[2]}: 'fields' takes FILE NAME")
            check_fields(f"{path}:{i + 1}", words[0], words[1], lines[i:j])
            checked += 1
            pending = None
            i = j - 1
        elif pending and line.strip():
            die(f"{path}:{pending[2]}: the marker is not followed by its "
                "block")
        i += 1
    if pending:
        die(f"{path}:{pending[2]}: a marker without its block")
    text = "\n".join(prose)
    quotes = list(INLINE.finditer(text))
    if len(quotes) != len(re.findall(r"<!--\s*docs-test:\s*quote\b", text)):
        die(f"{path}: a quote marker not followed at once by a `span`")
    for m in quotes:
        where = f"{path}:{text.count(chr(10), 0, m.start()) + 1}"
        check_quote(where, " ".join(m.group(1).split()),
                    " ".join(m.group(3).split()))
        checked += 1
    return checked


checked = sum(check_doc(path) for path in DOCS)

if failures:
    print(f"test_docs: {len(failures)} doc quote(s) differ from the code",
          file=sys.stderr)
    sys.exit(1)
print(f"test_docs: {checked} marked quotes, the constants and the Python "
      "signatures of " + " and ".join(DOCS) + " match the code",
      file=sys.stderr)
PYTHON
