PYTHON ?= python3
DESTDIR ?=
OUT ?= out

.PHONY: setup lint test matrix check demo clean

# Install every Debian and PyPI package the demo and the tests need.
setup:
	./scripts/setup.sh

# The linter (ruff, pinned in requirements-test.txt; its rules are in pyproject.toml).
LINTED = org_edns_addon setup.py tests benchmarks scripts lab
lint:
	$(PYTHON) -m ruff check $(LINTED)

# The tests, assuming `make setup` has run: this machine's python3 with the newest
# releases requirements.txt allows.
# The tests run in parallel (pytest-xdist; a test that needs its own network, bus name or
# files makes them itself; a module whose set-up is costly keeps its tests on one worker
# with xdist_group): one worker more than there are CPUs, as some tests wait on processes
# (on 2 CPUs make test took 3 min 1 s with 3 workers, 3 min 14 s with 2, 3 min 9 s with
# 4). TEST_WORKERS=0 runs them in one process.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
TEST_PARALLEL = -n $(TEST_WORKERS) --dist loadgroup
test:
	./scripts/run-tests.sh -q $(TEST_PARALLEL)

# The tests once per row of the support matrix (docs/support-matrix.md), each on its Python with
# exactly its library versions (requirements-ROW.txt); every row runs, then any
# failure fails. The benchmarks' runs are left out: make bench uses python3 alone.
MATRIX_ROWS ?= el9 el10 fedora
matrix:
	@failed=""; for row in $(MATRIX_ROWS); do \
	    ./scripts/matrix.sh $$row -q $(TEST_PARALLEL) -m "not make_bench" || failed="$$failed $$row"; \
	done; \
	if [ -n "$$failed" ]; then echo "matrix: failed on:$$failed"; exit 1; fi

# Everything from a fresh machine: set-up, the linter, the tests, then the matrix (what
# CI runs).
check: setup lint test matrix

# The main job on the bundled example.
demo: setup
	./scripts/demo.sh $(OUT)

clean:
	rm -rf $(OUT) build dist *.egg-info .pytest_cache .matrix

# Translations (po/). The catalogue template, po/DOMAIN.pot, holds every sentence marked
# in the Python sources (_, N_, P_) and in the glade file; a translator copies it to
# po/LANG.po (msginit) and translates it; make install, the RPM and the updates image
# compile each po/LANG.po into /usr/share/locale/LANG/LC_MESSAGES/DOMAIN.mo (packaging.py).
# DOMAIN is constants.TRANSLATION_DOMAIN; the template is rewritten only when a message
# changed, not for its date alone.
DOMAIN = $(shell PYTHONPATH=$(CURDIR) $(PYTHON) -c 'from org_edns_addon.constants import TRANSLATION_DOMAIN as d; print(d)')
POT ?= po/$(DOMAIN).pot
XGETTEXT_SOURCES = $(shell find org_edns_addon -name '*.py' -o -name '*.glade' | LC_ALL=C sort)
.PHONY: potfile update-po check-po
potfile: check-po
	xgettext --from-code=UTF-8 --keyword=_ --keyword=N_ --keyword=P_:1,2 \
	    --add-comments=TRANSLATORS: --package-name=$(DOMAIN) --sort-by-file \
	    --output=$(POT).new $(XGETTEXT_SOURCES)
	@if [ -f $(POT) ] && diff -q -I '^"POT-Creation-Date:' $(POT) $(POT).new >/dev/null; then \
	    rm $(POT).new; echo "potfile: $(POT) is up to date"; \
	else mv $(POT).new $(POT); echo "potfile: wrote $(POT)"; fi

# Every po/LANG.po brought up to date with the template (translations kept, new messages
# added untranslated, changed ones marked fuzzy).
update-po: potfile
	@for po in po/*.po; do [ -f "$$po" ] || continue; \
	    msgmerge --quiet --update --backup=none "$$po" $(POT) && echo "update-po: $$po"; done
	@$(MAKE) --no-print-directory check-po

# Every po/LANG.po as make install, the updates image and the RPM compile it (packaging.py):
# msgfmt --check, so that a translation whose placeholders do not fit its sentence's
# (one %s too many or too few, a %(name)s renamed) is refused by name here already.
check-po:
	@for po in po/*.po; do [ -f "$$po" ] || continue; \
	    msgfmt --check --output-file=/dev/null "$$po" || { \
	        echo "check-po: $$po is not a valid translation" >&2; exit 1; }; \
	    echo "check-po: $$po"; done

.PHONY: updates.img install rpm

# An Anaconda updates image with the addon (boot with inst.updates=URL).
UPDATES_IMG ?= updates.img
updates.img:
	PYTHONPATH=$(CURDIR) $(PYTHON) -m org_edns_addon.cli updates-img -o $(UPDATES_IMG)

# The addon's files below DESTDIR, in the layout of the updates image (the RPM uses this).
install:
	PYTHONPATH=$(CURDIR) $(PYTHON) -m org_edns_addon.packaging --destdir "$(or $(DESTDIR),/)"

# The RPMs (edns-anaconda-addon, edns-addon) of this tree, with rpmbuild -bb, into OUT/rpm.
rpm:
	PYTHON=$(PYTHON) ./scripts/build-rpm.sh $(OUT)/rpm

# Benchmarks print figures against a baseline measured in the same run; they never fail on a time.
# Each runs Python as installed (bytecode cached, benchmarks/paired.py as_installed), all of
# them from one cache compiled once, removed at the end; the output is kept in OUT/bench.txt,
# dated, where the figures of docs/performance.md come from.
BENCHMARKS = check dot_tax validate tui_startup apply overlay service_start
.PHONY: bench
bench: SHELL := /bin/bash
bench:
	mkdir -p $(OUT)
	cache=$$(mktemp -d); trap 'rm -rf "$$cache"' EXIT; \
	{ date -u '+make bench, %Y-%m-%d %H:%M UTC'; \
	  for benchmark in $(BENCHMARKS); do \
	    EDNS_BENCH_PYCACHE="$$cache" PYTHONPATH=$(CURDIR) $(PYTHON) benchmarks/$$benchmark.py \
	      || exit 1; \
	  done; } 2>&1 | tee $(OUT)/bench.txt; exit $${PIPESTATUS[0]}

# The Debian trees of the real-stack tests (lab/vmlab/debian_tree.py), each cached outside
# the repository (EDNS_TRIXIE_TREE, EDNS_FORKY_TREE; default /var/cache/edns-addon/SUITE);
# quick when already built: Debian 13 (trixie, NetworkManager 1.52) and testing (forky,
# NetworkManager 1.58). make check's NetworkManager tests run on both.
.PHONY: trixie-tree forky-tree
trixie-tree forky-tree:
	PYTHONPATH=$(CURDIR) $(PYTHON) -m lab.vmlab.debian_tree $(@:-tree=)

# The third tier: the addon on the real stack in booted images (root, qemu, a few minutes;
# EDNS_TREE=trixie|forky names the tree booted, trixie by default; DNSCONFD_ROOT=DIR adds
# dnsconfd from a tree it was installed into, built for that tree). See docs/proofs.md.
.PHONY: vm-proof vm-proof-sabotage vm-bench bench-initramfs
vm-proof:
	PYTHONPATH=$(CURDIR) $(PYTHON) -m lab.vmlab.proof

# The cost at boot (issue 21): what the overlay and the dracut drop-in add to an initramfs
# and that dracut's time (no VM), then kernel start to the first answer, DoT against
# plaintext, in booted images (DNSCONFD_ROOT for the installer's DoT). Figures, never a
# pass/fail on time; docs/proofs.md has the last run's.
vm-bench: bench-initramfs
	PYTHONPATH=$(CURDIR) $(PYTHON) -m lab.vmlab.bench

bench-initramfs:
	PYTHONPATH=$(CURDIR) $(PYTHON) benchmarks/initramfs.py

# The proof's own mutation test: each sabotage in a scratch copy, the fastest case that
# must catch it; fails unless every one is caught (docs/proofs.md says how long it takes).
vm-proof-sabotage:
	PYTHONPATH=$(CURDIR) $(PYTHON) -m lab.vmlab.sabotage
