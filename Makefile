PYTHON ?= python3
DESTDIR ?=
OUT ?= out

.PHONY: setup test check demo clean

# Install every Debian and PyPI package the demo and the tests need.
setup:
	./scripts/setup.sh

# The tests, assuming `make setup` has run.
test:
	./scripts/run-tests.sh -q

# Everything from a fresh machine: set-up, then the tests (what CI runs).
check: setup test

# The main job on the bundled example.
demo: setup
	./scripts/demo.sh $(OUT)

clean:
	rm -rf $(OUT) build dist *.egg-info .pytest_cache

.PHONY: updates.img install

# An Anaconda updates image with the addon (boot with inst.updates=URL).
UPDATES_IMG ?= updates.img
updates.img:
	PYTHONPATH=$(CURDIR) $(PYTHON) -m org_edns_addon.cli updates-img -o $(UPDATES_IMG)

# The addon's files below DESTDIR, in the layout of the updates image (the RPM uses this).
install:
	PYTHONPATH=$(CURDIR) $(PYTHON) -m org_edns_addon.packaging --destdir "$(or $(DESTDIR),/)"

# Benchmarks print figures against a baseline measured in the same run; they never fail on a time.
.PHONY: bench
bench:
	PYTHONPATH=$(CURDIR) $(PYTHON) benchmarks/check.py
	PYTHONPATH=$(CURDIR) $(PYTHON) benchmarks/validate.py
	PYTHONPATH=$(CURDIR) $(PYTHON) benchmarks/tui_startup.py
	PYTHONPATH=$(CURDIR) $(PYTHON) benchmarks/apply.py
	PYTHONPATH=$(CURDIR) $(PYTHON) benchmarks/overlay.py
	PYTHONPATH=$(CURDIR) $(PYTHON) benchmarks/service_start.py
