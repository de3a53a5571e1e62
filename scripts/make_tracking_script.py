r"""Write the tracking script's files into the layer's `sitelens/analytics/js/`: the source,
`sitelens/analytics/tracker.js`, minified by terser (npm) into the core, `script.js`, and
into a file for each combination of extensions (`script.outbound-links.file-downloads.js`,
...), each beside its gzipped (`.gz`, level 9) and brotli (`.br`, quality 11) copies, the
bytes the API sends. From the repository's root:

    make script

(which installs terser first, pinned in the Makefile, then runs this file). A compressed
copy that still holds its file's code is left as it is, so a new compressor alone changes
nothing. The files are committed: the layer, `make serve` and the tests need no Node.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import brotli

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers/common"))

from sitelens.analytics import script  # noqa: E402

SOURCE = ROOT / "layers/common/sitelens/analytics/tracker.js"
OUT = ROOT / "layers/common/sitelens/analytics/js"
MINIFIER = ROOT / "scripts/minify_tracker.cjs"
TERSER = ROOT / ".minifier/node_modules/terser"
# Each extension's constant in tracker.js: true in the files with it, false in the others
FLAGS = {
    "outbound-links": "OUTBOUND_LINKS",
    "file-downloads": "FILE_DOWNLOADS",
    "404": "NOT_FOUND",
    "scroll-depth": "SCROLL_DEPTH",
    "web-vitals": "WEB_VITALS",
}
DECOMPRESS = {".gz": gzip.decompress, ".br": brotli.decompress}


def missing() -> str | None:
    """Why the files cannot be built here (no Node, or no terser); None when they can."""
    if shutil.which("node") is None:
        return "Node is not installed: `make script` needs it (and npm) to minify the script"
    if not (TERSER / "package.json").is_file():
        return f"terser is not installed in {TERSER.parent.parent.name}/: `make script` installs it"
    return None


def minified() -> dict[str, bytes]:
    """Each file's name and its code, minified from the source."""
    files = {
        name: {flag: extension in name.split(".") for extension, flag in FLAGS.items()}
        for name in script.names()
    }
    request = json.dumps({"source": SOURCE.read_text("utf-8"), "files": files})
    node = shutil.which("node") or "node"
    done = subprocess.run(  # noqa: S603 - Node on this checkout's own files
        [node, str(MINIFIER), str(TERSER)],
        input=request,
        capture_output=True,
        text=True,
        check=True,
    )
    return {name: code.encode() for name, code in json.loads(done.stdout).items()}


def compressed(code: bytes) -> dict[str, bytes]:
    """The copies of `code` the API sends, by file suffix."""
    return {
        ".gz": gzip.compress(code, compresslevel=9, mtime=0),
        ".br": brotli.compress(code, mode=brotli.MODE_TEXT, quality=11),
    }


def write(out: Path = OUT) -> list[str]:
    """Write every file that differs from what the source builds; the names written."""
    assert set(FLAGS) == set(script.EXTENSIONS), "an extension without its flag, or the reverse"
    out.mkdir(parents=True, exist_ok=True)
    written = []
    built = minified()
    for name, code in built.items():
        target = out / name
        if not target.is_file() or target.read_bytes() != code:
            target.write_bytes(code)
            written.append(name)
        for suffix, body in compressed(code).items():
            copy = out / (name + suffix)
            if not copy.is_file() or DECOMPRESS[suffix](copy.read_bytes()) != code:
                copy.write_bytes(body)
                written.append(copy.name)
    wanted = {name + suffix for name in built for suffix in ("", *DECOMPRESS)}
    for stale in sorted({path.name for path in out.iterdir()} - wanted):
        (out / stale).unlink()
        written.append(f"{stale} (removed)")
    return written


if __name__ == "__main__":
    reason = missing()
    if reason:
        sys.exit(reason)
    changed = write()
    print(f"{OUT.relative_to(ROOT)}: {len(changed)} files written" if changed else "up to date")
