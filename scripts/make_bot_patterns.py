"""Write the layer's `sitelens/analytics/isbot_patterns.json`: the bot patterns of the npm
package isbot (maintained, used by Vercel and many analytics tools), which the event
function reads with `regex`. From the repository's root:

    npm install --prefix /tmp/isbot isbot && \\
        python scripts/make_bot_patterns.py /tmp/isbot/node_modules/isbot

needs Node (a development tool, not a runtime dependency).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# the layer's copy in this checkout, wherever the script is run from
OUT = Path(__file__).resolve().parents[1] / "layers/common/sitelens/analytics/isbot_patterns.json"


def main(package: str) -> None:
    script = (
        "const m = require(process.argv[1]);"
        "console.log(JSON.stringify({version: require(process.argv[1] + '/package.json')"
        ".version, patterns: m.list}))"
    )
    found = json.loads(
        subprocess.run(  # noqa: S603 - a developer runs this with their own Node
            ["node", "-e", script, str(Path(package).resolve())],  # noqa: S607
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    data = {"source": f"isbot {found['version']} (npm), its list of patterns", **found}
    data.pop("version")
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=0) + "\n")
    print(f"{len(data['patterns'])} patterns written to {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
