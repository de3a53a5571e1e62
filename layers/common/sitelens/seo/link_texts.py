"""Link texts that say nothing of where a link leads, per language (primary subtag).

en, ja, es, pt, ko, sv, de, ta and fa are the lists of Lighthouse's link-text audit
(core/audits/seo/link-text.js), kept as they are so that the two agree; fr, it, nl, pl,
ru, zh, tr and da are ours, in the same spirit: "click here", "here", "more", "read more",
"link", "this", "go", "start". Texts are compared lower-cased, whitespace collapsed.
"""

from __future__ import annotations

from typing import Final

GENERIC: Final[dict[str, frozenset[str]]] = {
    "en": frozenset(
        {
            "click here",
            "click this",
            "go",
            "here",
            "information",
            "learn more",
            "more",
            "more info",
            "more information",
            "right here",
            "read more",
            "see more",
            "start",
            "this",
        }
    ),
    "ja": frozenset(
        {"ここをクリック", "こちらをクリック", "リンク", "続きを読む", "続く", "全文表示"}
    ),
    "es": frozenset(
        {
            "click aquí",
            "click aqui",
            "clicka aquí",
            "clicka aqui",
            "pincha aquí",
            "pincha aqui",
            "aquí",
            "aqui",
            "más",
            "mas",
            "más información",
            "más informacion",
            "mas información",
            "mas informacion",
            "este",
            "enlace",
            "este enlace",
            "empezar",
        }
    ),
    "pt": frozenset(
        {"clique aqui", "ir", "mais informação", "mais informações", "mais", "veja mais"}
    ),
    "ko": frozenset(
        {
            "여기",
            "여기를 클릭",
            "클릭",
            "링크",
            "자세히",
            "자세히 보기",
            "계속",
            "이동",
            "전체 보기",
        }
    ),
    "sv": frozenset({"här", "klicka här", "läs mer", "mer", "mer info", "mer information"}),
    "de": frozenset(
        {"klicke hier", "hier klicken", "hier", "mehr", "siehe", "dies", "das", "weiterlesen"}
    ),
    "ta": frozenset(
        {
            "அடுத்த பக்கம்",
            "மறுபக்கம்",
            "முந்தைய பக்கம்",
            "முன்பக்கம்",
            "மேலும் அறிக",
            "மேலும் தகவலுக்கு",
            "மேலும் தரவுகளுக்கு",
            "தயவுசெய்து இங்கே அழுத்தவும்",
            "இங்கே கிளிக் செய்யவும்",
        }
    ),
    "fa": frozenset(
        {
            "اطلاعات بیشتر",
            "اطلاعات",
            "این",
            "اینجا بزنید",
            "اینجا کلیک کنید",
            "اینجا",
            "برو",
            "بیشتر بخوانید",
            "بیشتر بدانید",
            "بیشتر",
            "شروع",
        }
    ),
    "fr": frozenset(
        {
            "cliquez ici",
            "cliquer ici",
            "clique ici",
            "ici",
            "plus",
            "en savoir plus",
            "lire la suite",
            "lire plus",
            "voir plus",
            "plus d'infos",
            "plus d'informations",
            "lien",
            "ce lien",
            "suite",
        }
    ),
    "it": frozenset(
        {
            "clicca qui",
            "clicca qua",
            "qui",
            "qua",
            "di più",
            "altro",
            "leggi di più",
            "leggi tutto",
            "continua a leggere",
            "scopri di più",
            "maggiori informazioni",
            "più informazioni",
            "link",
            "questo link",
        }
    ),
    "nl": frozenset(
        {"klik hier", "hier", "meer", "lees meer", "meer info", "meer informatie", "link"}
    ),
    "pl": frozenset(
        {"kliknij tutaj", "tutaj", "więcej", "czytaj więcej", "więcej informacji", "link"}
    ),
    "ru": frozenset(
        {"нажмите здесь", "здесь", "тут", "подробнее", "читать далее", "далее", "ссылка", "больше"}
    ),
    "zh": frozenset(
        {
            "点击这里",
            "点击此处",
            "这里",
            "更多",
            "阅读更多",
            "了解更多",
            "链接",
            "點擊這裡",
            "更多資訊",
        }
    ),
    "tr": frozenset({"buraya tıklayın", "buraya tıkla", "burada", "daha fazla", "devamını oku"}),
    "da": frozenset({"klik her", "her", "mere", "læs mere", "mere info"}),
}
ANY_LANGUAGE: Final = frozenset().union(*GENERIC.values())
