r"""Write `title_widths.json`: each character's advance width in Liberation Sans Regular
(metric-compatible with Arial, the font of search results' titles), in 1/1000 em.

    python -m sitelens.seo.make_title_widths \
        /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf

needs fontTools (a development tool, not a runtime dependency) and Debian's fonts-liberation.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).with_name("title_widths.json")


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
