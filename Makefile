# vtrace: one GNU Makefile, no autotools.
#
#   make            build everything into build/
#   make test       every test, in the plain and the ASan/UBSan builds;
#                   ends with "N passed, N failed" (tests/README.md says
#                   what it runs, in order)
#   make demo       build, then analyse the bundled 4-rank trace
#   make bench      generate a >= 1 GB trace and measure MB/s and peak RSS
#   make fuzz       a longer libFuzzer run of every target in tests/fuzz/
#                   (FUZZ_SECONDS each, default 300)
#   make golden     regenerate testdata/golden/ (review the diff!)
#   make install    programs, manual pages, libvtrace, vtrace.h, vtrace.pc, the
#                   Python module and the documents under $(PREFIX) (default
#                   /usr/local), staged under $(DESTDIR) when it is set
#   make uninstall  remove exactly what 'make install' puts there
#
# Variables: DEV=1 adds -Werror; SANITIZE=address,undefined builds into
# build-san/; CFLAGS replaces -O2 -g; V=1 shows the commands.

CC ?= cc
CFLAGS ?= -O2 -g

# Where 'make install' puts things; each can be set on its own.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/vtrace
PYTHON ?= python3
# python3's directory of pure modules under PREFIX (dist-packages on Debian),
# asked only when installing.
PYTHONDIR ?= $(shell $(PYTHON) scripts/pythondir.py '$(PREFIX)')

ifneq ($(SANITIZE),)
BUILD ?= build-san
# float-cast-overflow is not part of 'undefined': a double past INT64_MAX
# cast to int64_t is undefined behaviour all the same.
SAN_FLAGS = -fsanitize=$(SANITIZE) $(if $(findstring undefined,$(SANITIZE)),-fsanitize=float-cast-overflow) \
	    -fno-sanitize-recover=all -fno-omit-frame-pointer
else
BUILD ?= build
SAN_FLAGS =
endif

WARN = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wvla -Wformat=2
ifeq ($(DEV),1)
WARN += -Werror
endif

HAVE_ISAL := $(shell test -e /usr/include/isa-l/igzip_lib.h && echo 1)
ZLIB_CFLAGS := $(shell pkg-config --cflags zlib 2>/dev/null)
ZLIB_LIBS := $(shell pkg-config --libs zlib 2>/dev/null || echo -lz)

ALL_CFLAGS = $(WARN) -D_GNU_SOURCE -fopenmp $(CFLAGS) $(SAN_FLAGS) $(ZLIB_CFLAGS) -MMD -MP
LIBS = $(ZLIB_LIBS) -lcsv -lm
ifeq ($(HAVE_ISAL),1)
ALL_CFLAGS += -DHAVE_ISAL
LIBS += -lisal
endif
ALL_LDFLAGS = -fopenmp $(SAN_FLAGS) $(LDFLAGS)

# lib/ in tiers, each using only those before it: util (memory, buffers,
# logging, sorting, writing files), read (gzip, the JSON scanner, events,
# the trace readers), model (the report and its JSON form), stats (what is
# computed over reports: cross-rank statistics, suggestions), prog (what
# the programs share: the command-line layer).
LIB_TIERS := util read model stats prog
LIB_INC := $(addprefix -Ilib/,$(LIB_TIERS))
LIB_SRC := $(sort $(wildcard $(addsuffix /*.c,$(addprefix lib/,$(LIB_TIERS)))))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB_A := $(BUILD)/libvt.a

# Programs and the libraries between them and lib/: librender (render/:
# everything people read: the three terminal summaries, HTML, charts, CSV,
# and the one output dispatch) and libanalyze (analyzer/ without its main,
# so that vcompare analyses traces exactly as vanalyze does).  vcompare's
# comparison and vaggregate's merge are computations over reports, in
# lib/stats.
PROGS := $(BUILD)/vanalyze $(if $(wildcard aggregate/*.c),$(BUILD)/vaggregate) \
	 $(if $(wildcard compare/*.c),$(BUILD)/vcompare)
RENDER_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard render/*.c)))
RENDER_A := $(BUILD)/librender.a
ANALYZE_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(sort $(filter-out analyzer/main.c,$(wildcard analyzer/*.c))))
ANALYZE_A := $(BUILD)/libanalyze.a
AGGREGATE_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard aggregate/*.c)))
TOOLS := $(BUILD)/gentrace $(BUILD)/inflate_only
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# Programs the CLI tests run (not unit tests: tests/run.sh runs test_* alone).
TEST_HELPERS := $(BUILD)/tests/event_links
ALL_TARGETS = $(PROGS) $(TOOLS)

.PHONY: all check-build check-clang test demo bench fuzz golden install uninstall clean deps
# Test objects are intermediate files to make; kept, so that a second
# 'make test' relinks and recompiles nothing that has not changed.
.SECONDARY:
.DEFAULT_GOAL := all

# The collector keeps its own rules beside its code; before 'all', which
# takes ALL_TARGETS as it stands here.
-include collector/collector.mk

all: $(ALL_TARGETS)

# Objects depend on the flags they were built with: a build after
# deps.sh installs ISA-L, or 'make bench' after 'make', must not link
# objects compiled for another configuration.
FLAGS_STAMP := $(BUILD)/flags.stamp
$(shell mkdir -p $(BUILD) && echo '$(ALL_CFLAGS)' | cmp -s - $(FLAGS_STAMP) || \
	echo '$(ALL_CFLAGS)' >$(FLAGS_STAMP))

# Scoped headers: each part sees lib/ and its own folder; the programs
# also see render/ (librender's interface) and vcompare sees analyzer/include/
# (libanalyze's interface), never another program's private headers.  Unit
# tests see every module they test.
$(BUILD)/%.o: INC = $(LIB_INC)
$(BUILD)/render/%.o: INC = $(LIB_INC) -Irender
$(BUILD)/analyzer/%.o: INC = $(LIB_INC) -Ianalyzer -Ianalyzer/include -Irender
$(BUILD)/aggregate/%.o: INC = $(LIB_INC) -Iaggregate -Irender
$(BUILD)/compare/%.o: INC = $(LIB_INC) -Ianalyzer/include -Irender
$(BUILD)/tests/unit/%.o: INC = $(LIB_INC) -Ianalyzer -Ianalyzer/include -Irender \
	-Itests/unit

# One short line per step, as Linux and git do; V=1 shows the commands.
ifneq ($(V),1)
quiet = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

$(BUILD)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) $(INC) -c -o $@ $<

$(BUILD)/%.a:
	@rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^

$(LIB_A): $(LIB_OBJ)
$(RENDER_A): $(RENDER_OBJ)
$(ANALYZE_A): $(ANALYZE_OBJ)

$(BUILD)/vanalyze: $(BUILD)/analyzer/main.o $(ANALYZE_A) $(RENDER_A) $(LIB_A)
$(BUILD)/vaggregate: $(AGGREGATE_OBJ) $(RENDER_A) $(LIB_A)
$(BUILD)/vcompare: $(BUILD)/compare/main.o $(ANALYZE_A) $(RENDER_A) $(LIB_A)
$(BUILD)/gentrace: $(BUILD)/testdata/gentrace.o $(LIB_A)
$(BUILD)/inflate_only: $(BUILD)/bench/inflate_only.o $(LIB_A)
$(PROGS) $(TOOLS):
	$(call quiet,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(ANALYZE_A) $(RENDER_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

check-build: all $(UNIT_BIN) $(TEST_HELPERS)

deps:
	@scripts/deps.sh build

# Each build is a sub-make so that HAVE_ISAL and pkg-config see the packages
# deps.sh may just have installed.
# The four builds use every core unless make was given -j itself: CI runs a
# plain 'make test', and one compile at a time was a third of its time.
TEST_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))

test:
	@scripts/deps.sh test
	@scripts/stylecheck.sh
	@$(MAKE) --no-print-directory $(TEST_JOBS) check-build
	@$(MAKE) --no-print-directory $(TEST_JOBS) check-build SANITIZE=address,undefined CFLAGS="-O1 -g"
	@$(MAKE) --no-print-directory $(TEST_JOBS) check-clang
	@$(MAKE) --no-print-directory $(TEST_JOBS) $(FUZZ_BIN)
	@tests/run.sh build build-san

# The other compiler: everything builds warning-free with clang too, and its
# unit tests pass (a compiler's own reading of the same C, not a second run).
check-clang:
	@$(MAKE) --no-print-directory check-build CC=clang BUILD=build-clang
	@for t in $(UNIT_BIN:$(BUILD)/%=build-clang/%); do \
		$$t >/dev/null 2>&1 || { echo "clang build: $$t failed" >&2; exit 1; }; \
	done; echo "clang build: $(words $(UNIT_BIN)) unit tests passed"

demo: deps
	@$(MAKE) --no-print-directory all
	$(BUILD)/vanalyze --frames 81 --target-fps 16 testdata/demo

bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory all CFLAGS="-O2 -g -DNDEBUG"
	bench/run.sh $(BUILD)
	@if [ -x bench/collector.sh ]; then bench/collector.sh $(BUILD); fi
	bench/render.sh $(BUILD)
	@if [ -x bench/aggregate.sh ]; then bench/aggregate.sh $(BUILD); fi
	bench/reduce.sh $(BUILD)
	bench/scale.sh $(BUILD)

# libFuzzer needs clang.  lib/ is compiled once into build-fuzz/ with
# coverage (fuzzer-no-link) and linked into every target.
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/%)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=build-fuzz/%.o)
FUZZ_SAN := address,undefined,float-cast-overflow
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -g -O1 $(LIB_INC) -fopenmp=libgomp $(ZLIB_CFLAGS) -MMD -MP
build-fuzz/lib/%.o: lib/%.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -c -o $@ $<
build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_OBJ)
	$(call quiet,FUZZ,$@)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $< \
		$(FUZZ_LIB_OBJ) $(LIBS)
# The whole analysis (fuzz_analyze) links libanalyze's objects, built alike.
FUZZ_ANALYZE_OBJ := $(ANALYZE_OBJ:$(BUILD)/%=build-fuzz/%)
FUZZ_ANALYZE_INC := -Ianalyzer -Ianalyzer/include -Irender
build-fuzz/analyzer/%.o: analyzer/%.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)clang $(FUZZ_CFLAGS) $(FUZZ_ANALYZE_INC) \
		-fsanitize=fuzzer-no-link,$(FUZZ_SAN) -c -o $@ $<
build-fuzz/fuzz_analyze: tests/fuzz/fuzz_analyze.c $(FUZZ_ANALYZE_OBJ) $(FUZZ_LIB_OBJ)
	$(call quiet,FUZZ,$@)clang $(FUZZ_CFLAGS) $(FUZZ_ANALYZE_INC) \
		-fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $< $(FUZZ_ANALYZE_OBJ) $(FUZZ_LIB_OBJ) $(LIBS)
.PHONY: fuzz-build
fuzz-build:
	@scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory $(FUZZ_BIN)

FUZZ_SECONDS ?= 300
fuzz: fuzz-build
	tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

golden: all
	tests/golden.sh $(BUILD)

# What 'make install' puts where; 'make uninstall' removes the same files.
INSTALL_BIN := $(PROGS) $(BUILD)/vtrace-export
INSTALL_LIB := $(BUILD)/libvtrace.so $(BUILD)/libvtrace.a
INSTALL_MAN1 := $(sort $(wildcard doc/man/*.1))
INSTALL_MAN3 := $(sort $(wildcard doc/man/*.3))
INSTALL_DOC := $(sort $(wildcard doc/*.md))

# The installed vtrace.py finds the installed libvtrace.so by its path
# relative to the module, so that a tree staged under DESTDIR works too.
install: all
	@test -n '$(PYTHONDIR)' || { echo "install: cannot ask $(PYTHON) for PYTHONDIR" >&2; exit 1; }
	@install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(DOCDIR)/doc $(DESTDIR)$(PYTHONDIR)
	$(call quiet,INSTALL,$(BINDIR))install -m 755 $(INSTALL_BIN) $(DESTDIR)$(BINDIR)/
	$(call quiet,INSTALL,$(LIBDIR))install -m 755 $(BUILD)/libvtrace.so $(DESTDIR)$(LIBDIR)/ && \
		install -m 644 $(BUILD)/libvtrace.a $(DESTDIR)$(LIBDIR)/
	$(call quiet,INSTALL,$(INCLUDEDIR))install -m 644 collector/vtrace.h $(DESTDIR)$(INCLUDEDIR)/
	$(call quiet,INSTALL,$(PKGCONFIGDIR))install -m 644 $(BUILD)/vtrace.pc $(DESTDIR)$(PKGCONFIGDIR)/
	$(call quiet,INSTALL,$(MANDIR))install -m 644 $(INSTALL_MAN1) $(DESTDIR)$(MANDIR)/man1/ && \
		install -m 644 $(INSTALL_MAN3) $(DESTDIR)$(MANDIR)/man3/
	$(call quiet,INSTALL,$(DOCDIR))install -m 644 README.md $(DESTDIR)$(DOCDIR)/ && \
		install -m 644 $(INSTALL_DOC) $(DESTDIR)$(DOCDIR)/doc/
	$(call quiet,INSTALL,$(PYTHONDIR)/vtrace.py)rel=$$($(PYTHON) -c \
		'import os, sys; print(os.path.relpath(*sys.argv[1:]))' '$(LIBDIR)' '$(PYTHONDIR)') && \
	sed "s|^_INSTALLED_LIBDIR = None\$$|_INSTALLED_LIBDIR = \"$$rel\"|" \
		collector/python/vtrace.py >$(DESTDIR)$(PYTHONDIR)/vtrace.py && \
	grep -q '^_INSTALLED_LIBDIR = "' $(DESTDIR)$(PYTHONDIR)/vtrace.py && \
	chmod 644 $(DESTDIR)$(PYTHONDIR)/vtrace.py

uninstall:
	@test -n '$(PYTHONDIR)' || { echo "uninstall: cannot ask $(PYTHON) for PYTHONDIR" >&2; exit 1; }
	$(call quiet,RM,$(PREFIX))rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(INSTALL_BIN))) \
		$(addprefix $(DESTDIR)$(LIBDIR)/,$(notdir $(INSTALL_LIB))) \
		$(DESTDIR)$(INCLUDEDIR)/vtrace.h $(DESTDIR)$(PKGCONFIGDIR)/vtrace.pc \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(INSTALL_MAN1))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(INSTALL_MAN3))) \
		$(DESTDIR)$(DOCDIR)/README.md $(addprefix $(DESTDIR)$(DOCDIR)/doc/,$(notdir $(INSTALL_DOC))) \
		$(DESTDIR)$(PYTHONDIR)/vtrace.py $(DESTDIR)$(PYTHONDIR)/__pycache__/vtrace.*.pyc
	@rmdir $(DESTDIR)$(DOCDIR)/doc $(DESTDIR)$(DOCDIR) 2>/dev/null || true

clean:
	rm -rf build build-san build-clang build-fuzz

-include $(shell find $(BUILD) build-fuzz -name '*.d' 2>/dev/null)
