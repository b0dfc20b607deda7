"""Kickstart support: the ``%addon org_edns_addon`` / ``%edns`` section (``edns``), the
reader of whole kickstarts (``reader``), its result (``result``) and rules (``rules``),
the rewrite of ``%edns`` (``convert``) and the Anaconda module's part (``module``)."""
