# Copyright (C) 2026 The org_edns_addon authors
#
# This program is free software: you can redistribute it and/or modify it under
# the terms of the GNU General Public License as published by the Free Software
# Foundation, either version 2 of the License, or (at your option) any later
# version. It is distributed in the hope that it will be useful, but WITHOUT ANY
# WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS FOR A
# PARTICULAR PURPOSE. See the GNU General Public License (the file COPYING).
#
# SPDX-License-Identifier: GPL-2.0-or-later

"""A plain ASCII DNS name skips IDNA's tables, with exactly IDNA's result and errors."""

import string

from hypothesis import example, given, settings, strategies as st

from org_edns_addon.names import _LABEL, _idna_name
from org_edns_addon.names import normalize_dns_name
from org_edns_addon.problems import ModelError

# Characters that decide the rules: label characters in both cases, the separator, the
# hyphens of "xn--", and ASCII that IDNA refuses.
_NAME_LIKE = st.text(alphabet=string.ascii_letters[:6] + "xnXN" + string.digits[:3] + "-." +
                     "_ *@", max_size=70)
# Labels near the 63-character limit, names near the 253-character limit.
_LONG = st.lists(st.text(alphabet="ab-", min_size=60, max_size=64), min_size=3,
                 max_size=5).map(".".join)


def outcome(normalize, text):
    """What NORMALIZE gives for TEXT: ("ok", name) or ("error", message)."""
    try:
        return "ok", normalize(text, "TLS name")
    except ModelError as error:
        return "error", str(error)


def idna_path(text, what):
    """The normalization with IDNA for every name, as before the ASCII path."""
    given = text
    if text.endswith(".") and text != ".":
        text = text[:-1]
    return _idna_name(given, text, what, False, _LABEL)


@settings(max_examples=800, deadline=None)
@given(st.one_of(st.text(alphabet=st.characters(max_codepoint=127), min_size=1, max_size=80),
                 _NAME_LIKE.filter(bool), _LONG))
@example("Dot.Corp.Example.")
@example("xn--bcher-kva.example")
@example("XN--BCHER-KVA.example")
@example("ab--cd.example")
@example("-a.example")
@example("a..b")
@example(".")
@example("a" * 63 + "." + "b" * 63 + "." + "c" * 63 + "." + "d" * 61)
@example("a" * 63 + "." + "b" * 63 + "." + "c" * 63 + "." + "d" * 62)
@example("a" * 64)
def test_an_ascii_name_gives_what_idna_gives(text):
    assert outcome(normalize_dns_name, text) == outcome(idna_path, text)


def idna_path_any(text, what, underscore):
    """The normalization with IDNA on the whole name, as before the label-wise path."""
    from org_edns_addon.names import _DOMAIN_LABEL
    given = text
    if text.endswith(".") and text != ".":
        text = text[:-1]
    return _idna_name(given, text, what, underscore, _DOMAIN_LABEL if underscore else _LABEL)


# Non-ASCII names: letters that map (upper case, ß, full-width), dots IDNA also splits on,
# a combining mark, a right-to-left letter, what IDNA refuses, and ASCII around them.
_UNICODE_NAME_LIKE = st.text(alphabet="abxn-_.üÜßﬀＡ。．｡\u0301\u05d0\u0661☃ 9", min_size=1,
                             max_size=40)


@settings(max_examples=1500, deadline=None)
@given(_UNICODE_NAME_LIKE, st.booleans())
@example("dot1.bücher.example", False)
@example("Dot1.BÜCHER.example", False)
@example("bücher.example。", False)
@example("a．bücher", False)
@example("_msdcs.bücher.example", True)
@example("b_ü.example", True)
@example("xn--bcher-kva.bücher", False)
@example("ab--cd.bücher", False)
@example("xn--a.bücher", False)
@example("ü" * 60 + ".example", False)
@example("ü.." + "a", False)
def test_a_unicode_name_label_by_label_gives_what_idna_gives_on_the_whole_name(text,
                                                                                underscore):
    def whole(name, what):
        return idna_path_any(name, what, underscore)

    def ours(name, what):
        return normalize_dns_name(name, what, underscore=underscore)
    assert outcome(ours, text) == outcome(whole, text)
