r"""Write the layer's `sitelens/seo/title_widths.json`: each character's advance width in
Liberation Sans Regular (metric-compatible with Arial, the font of search results' titles),
in 1/1000 em. From the repository's root:

    python scripts/make_title_widths.py \
        /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf

needs fontTools (a development tool, not a runtime dependency) and Debian's fonts-liberation.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

# the layer's copy in this checkout, wherever the script is run from
OUT = Path(__file__).resolve().parents[1] / "layers/common/sitelens/seo/title_widths.json"


def main(font_path: str) -> None:
    from fontTools.ttLib import TTFont

    font = TTFont(font_path)
    per_em = font["head"].unitsPerEm
    advances = font["hmtx"].metrics
    widths = {
        str(codepoint): round(1000 * advances[glyph][0] / per_em)
        for codepoint, glyph in sorted(font.getBestCmap().items())
        if codepoint >= 0x20
    }
    OUT.write_text(json.dumps(widths, separators=(",", ":")) + "\n")
    print(f"{len(widths)} characters written to {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
