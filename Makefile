# Thin wrapper: installs what is missing, then meson does the work.
BUILDDIR ?= _build
MESON_ARGS ?=

# Debian 12 packages needed to build and test
DEBIAN_PACKAGES = \
	gcc meson ninja-build pkg-config python3 \
	libglib2.0-dev libglib2.0-bin libjson-glib-dev zlib1g-dev libzstd-dev \
	desktop-file-utils appstream gettext itstool yelp-tools libxml2-utils \
	shared-mime-info \
	libcairo2-dev libpango1.0-dev fonts-dejavu-core \
	libgtk-4-dev libadwaita-1-dev xvfb \
	libunwind-dev libdw-dev libelf-dev libiberty-dev linux-perf \
	locales

# Locales the tests run under (tests/meson.build): a comma-decimal one,
# and the one newer GTK's gtk_test_init() switches to
TEST_LOCALES = de_DE.UTF-8 en_US.UTF-8

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CLI = $(BUILDDIR)/src/cli/flamediff-cli
APP = $(BUILDDIR)/src/app/flamediff
ifeq ($(CI),true)
WERROR = -Dwerror=true
endif

.PHONY: all deps print-packages build run check bench clean

all: build

deps:
	@missing=""; \
	for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	fi
	@# enabled in /etc/locale.gen, so that a later locale-gen keeps them
	@missing=""; \
	for l in $(TEST_LOCALES); do \
	  locale -a | grep -qx "$${l%.UTF-8}.utf8" || missing="$$missing $$l"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Generating locales:$$missing"; \
	  for l in $$missing; do \
	    grep -qx "$$l UTF-8" /etc/locale.gen 2>/dev/null || \
	      $(SUDO) sed -i "s/^# *$$l UTF-8\$$/$$l UTF-8/" /etc/locale.gen; \
	    grep -qx "$$l UTF-8" /etc/locale.gen 2>/dev/null || \
	      echo "$$l UTF-8" | $(SUDO) tee -a /etc/locale.gen >/dev/null; \
	  done; \
	  $(SUDO) locale-gen; \
	fi

# the same list for another Debian (tools/sid-check.sh)
print-packages:
	@echo $(DEBIAN_PACKAGES)

$(BUILDDIR)/build.ninja:
	meson setup $(BUILDDIR) $(WERROR) $(MESON_ARGS)

build: deps $(BUILDDIR)/build.ninja
	@if [ -n "$(WERROR)" ]; then meson configure $(BUILDDIR) $(WERROR) >/dev/null; fi
	ninja -C $(BUILDDIR)

# the application on the bundled example pair, uninstalled: the schema
# compiled into the build directory
run: build
	GSETTINGS_SCHEMA_DIR=$(BUILDDIR)/data $(APP) data/examples/baseline.folded data/examples/current.folded

check: build
	@status=0; meson test -C $(BUILDDIR) --print-errorlogs || status=$$?; \
	python3 tools/test-summary.py $(BUILDDIR)/meson-logs/testlog.json; exit $$status

bench: build
	tools/bench.sh $(BUILDDIR)

clean:
	rm -rf $(BUILDDIR)
