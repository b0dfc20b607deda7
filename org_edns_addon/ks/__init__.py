"""Kickstart support: the ``%edns`` / ``%addon org_edns_addon`` section and a reader."""

from org_edns_addon.ks.edns import EdnsData, EdnsSection, option_parser
from org_edns_addon.ks.parse import ParsedKickstart, parse_kickstart

__all__ = ["EdnsData", "EdnsSection", "option_parser", "ParsedKickstart", "parse_kickstart"]
