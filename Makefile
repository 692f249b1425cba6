# SPDX-License-Identifier: GPL-2.0
#
# trapcheck: make, make check, make demo, make install PREFIX=...
# Quiet by default; V=1 shows full commands.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/trapcheck
MANDIR ?= $(PREFIX)/share/man

LLVM_CONFIG ?= $(shell command -v llvm-config-14 || command -v llvm-config)
LLVM_INCDIR := $(shell $(LLVM_CONFIG) --includedir 2>/dev/null)
LLVM_LIBDIR := $(shell $(LLVM_CONFIG) --libdir 2>/dev/null)
LLVM_BINDIR := $(shell $(LLVM_CONFIG) --bindir 2>/dev/null)
LLVM_VERSION := $(shell $(LLVM_CONFIG) --version 2>/dev/null)
CLANG_RESOURCE_INCLUDE := $(LLVM_LIBDIR)/clang/$(LLVM_VERSION)/include

CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
	  -Wmissing-prototypes -Wstrict-prototypes -D_GNU_SOURCE
# The same commit builds the same binary wherever it is checked out (no
# build directory in the debug information): the real-kernel suites key
# their cached facts on the binary (tests/kernel/lib.sh), so a fresh
# clone finds those of an earlier one.
REPRO_FLAGS := -ffile-prefix-map=$(CURDIR)=.
CFLAGS += $(REPRO_FLAGS)
TRACECMD_CFLAGS := $(shell pkg-config --cflags libtracecmd 2>/dev/null)
TRACECMD_LIBS := $(shell pkg-config --libs libtracecmd 2>/dev/null)
CPPFLAGS += -Iinclude -Ichecker -I$(LLVM_INCDIR) $(TRACECMD_CFLAGS) \
	    -DCLANG_RESOURCE_INCLUDE='"$(CLANG_RESOURCE_INCLUDE)"' \
	    -DCLANG_BIN='"$(LLVM_BINDIR)/clang"'
LDLIBS += -L$(LLVM_LIBDIR) -Wl,-rpath,$(LLVM_LIBDIR) -lclang \
	  -ljansson -lsqlite3 -ldw -lelf $(TRACECMD_LIBS) -lgit2 -lpthread

V ?= 0
# Build with every CPU unless told otherwise (make -jN on the command line
# wins).
ifeq ($(MAKELEVEL),0)
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc)
endif
endif
ifeq ($(V),1)
Q :=
quiet = @:
else
Q := @
quiet = @printf '  %-7s %s\n'
endif

# The library: every module of every layer folder but the programs' and
# the architectures' (docs/design.md; the layer order is checker/LAYERS).
# The architectures register themselves (checker/arch/arches.c) and no
# other module names them: their objects are linked whole into every
# program, never pulled from an archive by a reference.
LIB_SRCS := $(filter-out checker/programs/% checker/arch/%,\
	      $(wildcard checker/*/*.c))
ARCH_SRCS := $(wildcard checker/arch/*.c) $(wildcard checker/arch/*/*.c)
ARCH_OBJS := $(ARCH_SRCS:.c=.o)
LIB_OBJS := $(LIB_SRCS:.c=.o)
LIB := libtrapcheck.a
PROG := trapcheck

UNIT_TESTS := tests/unit/test-flags tests/unit/test-graph \
	      tests/unit/test-compdb tests/unit/test-util tests/unit/test-sinks \
	      tests/unit/test-guards tests/unit/test-factsio \
	      tests/unit/test-cocci-emit tests/unit/test-patch \
	      tests/unit/test-checkargs tests/unit/test-kconfig \
	      tests/unit/test-bodyskip tests/unit/test-switches \
	      tests/unit/test-shape tests/unit/test-db tests/unit/test-graphio \
	      tests/unit/test-fileloc \
	      tests/unit/test-macros tests/unit/test-machine

# The same library, tests and program under AddressSanitizer and
# UndefinedBehaviorSanitizer, in their own build directory.
ASAN_DIR := build-asan
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	      -fno-sanitize-recover=all $(REPRO_FLAGS)
ASAN_OBJS := $(patsubst checker/%.o,$(ASAN_DIR)/%.o,$(LIB_OBJS) $(ARCH_OBJS))
ASAN_TESTS := $(patsubst tests/unit/%,$(ASAN_DIR)/%,$(UNIT_TESTS))
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	    UBSAN_OPTIONS=print_stacktrace=1 \
	    TRAPCHECK_ROOTS_DIR=$(CURDIR)/roots

all: deps-checked $(PROG)

# Build dependencies are installed first, before anything is compiled:
# make makes the included stamp when it is missing or older than the
# script, then reads this Makefile again, so llvm-config above is found on
# a fresh machine and no compiler job races apt-get (make -jN).  The stamp
# keeps it idempotent.  make clean needs no packages.
ifneq ($(filter-out clean,$(or $(MAKECMDGOALS),all)),)
include .deps-installed
endif
deps-checked: .deps-installed
# make DEPS_FLAGS=--run: only what building trapcheck needs (CI jobs).
.deps-installed: scripts/install-deps.sh
	$(quiet) DEPS install-deps.sh
	$(Q)scripts/install-deps.sh $(DEPS_FLAGS)
	$(Q)echo '# scripts/install-deps.sh ran (Makefile)' > $@

%.o: %.c
	$(quiet) CC $@
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

checker/input/flags.o: checker/input/flags.def
checker/input/checkargs.o: checker/input/checkflags.def
$(LIB_OBJS) $(ARCH_OBJS) $(ASAN_OBJS): checker/model/facts.def
checker/model/guards.o: checker/model/phases.def
checker/clang/extract-body.o: checker/model/cold.def \
	checker/model/dispatch.def checker/model/regions.def
checker/model/dispatch.o: checker/model/dispatch.def
checker/rules/rules.o: checker/rules/rules.def
checker/graph/graph.o: checker/model/cold.def
checker/output/emit-sarif.o: checker/output/rule-help.inc
checker/output/rule-help.inc: docs/diagnostics.md scripts/gen-rule-help.py
	$(quiet) GEN $@
	$(Q)python3 scripts/gen-rule-help.py $< > $@.tmp && mv $@.tmp $@

# README's option table and the man page come from checker/programs/options.def;
# docs/design.md's tables of layers and interfaces from checker/LAYERS and
# the headers' opening comments (nm of the built objects).
docs: scripts/gen-options.py checker/programs/options.def checker/base/exits.def \
      scripts/gen-design.py all
	$(quiet) GEN "README.md docs/trapcheck.1 docs/design.md"
	$(Q)python3 scripts/gen-options.py readme README.md
	$(Q)python3 scripts/gen-options.py man docs/trapcheck.1
	$(Q)python3 scripts/gen-design.py write

# The hot list of semantic-patches/hot_idreg_read.cocci comes from the
# shipped root sets (the file is committed: make coccicheck needs no
# trapcheck); make check says when it is stale.
cocci-hot: scripts/gen-cocci-hot.py
	$(quiet) GEN semantic-patches/hot_idreg_read.cocci
	$(Q)python3 scripts/gen-cocci-hot.py roots \
	    semantic-patches/hot_idreg_read.cocci

$(LIB): $(LIB_OBJS)
	$(quiet) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# The program: main.c's options and modes, one file a mode
# (checker/programs/prog.h).
PROG_OBJS := $(patsubst %.c,%.o,$(wildcard checker/programs/*.c))

$(PROG): $(PROG_OBJS) $(ARCH_OBJS) $(LIB)
	$(quiet) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

checker/programs/main.o: checker/programs/options.def checker/base/exits.def

# The LD_PRELOAD shim that makes the Nth write to the database fail
# (tests/e2e/dbfail.t).
FAULT_SHIM := tests/fault/failwrite.so
$(FAULT_SHIM): tests/fault/failwrite.c
	$(quiet) CC $@
	$(Q)$(CC) $(CFLAGS) -shared -fPIC -o $@ $< -ldl

tests/unit/%: tests/unit/%.c $(ARCH_OBJS) $(LIB)
	$(quiet) CC $@
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(ARCH_OBJS) $(LIB) $(LDLIBS) \
	    -lcmocka

# make demo: the bundled kernel-shaped fixture trees, findings and
# chains: arm64, then x86.
demo: all
	$(Q)./$(PROG) -p tests/fixtures/kernel \
	    --roots tests/fixtures/kernel/variants.roots; \
	    rc=$$?; [ $$rc -le 1 ] || exit $$rc
	$(Q)echo "== x86 (tests/fixtures/x86)"; \
	    ./$(PROG) -p tests/fixtures/x86; rc=$$?; [ $$rc -le 1 ] || exit $$rc

# The end-to-end suites make check runs: those of ASAN_E2E under the
# sanitizers only (tests/asan/, in the same prove run as the others, so
# both cores stay busy; the longest first), the others with the release
# binary; check-full runs ASAN_E2E with the release binary too, and
# check-asan runs them under the sanitizers alone.
ASAN_E2E := tests/e2e/db.t tests/e2e/badinput.t tests/e2e/shard.t \
	    tests/e2e/hostdata.t \
	    tests/e2e/trust.t tests/e2e/fixture.t tests/e2e/lint.t \
	    tests/e2e/lintmacro.t
# dbfail.t both ways: the release binary at every third write and kill
# point (all of them in check-full), ASan at every twelfth.
CHECK_E2E := $(patsubst tests/e2e/%,tests/asan/%,$(ASAN_E2E)) \
	     tests/asan/dbfail.t \
	     $(if $(filter full,$(TRAPCHECK_KERNEL_PROFILE)),$(wildcard tests/e2e/*.t),\
	     $(filter-out $(ASAN_E2E),$(wildcard tests/e2e/*.t)))

# make check: unit tests (cmocka), then the TAP suites under prove; the
# real-kernel suites on the focus trees, side by side (what they share is
# made under a lock: trees, cold runs, variants; docs/testing.md: what runs
# where, and how long it takes).
# dbfail.t: every third write failed and kill point in make check, every
# one in check-full (docs/testing.md).
TRAPCHECK_DBFAIL_STEP ?= 3
export TRAPCHECK_DBFAIL_STEP
# Each suite prove is given must exist before the half hour of tests
# starts (a suite added to ASAN_E2E without its tests/asan/ wrapper).
check: all $(UNIT_TESTS) $(ASAN_DIR)/trapcheck $(ASAN_TESTS) $(FAULT_SHIM) \
	$(CHECK_E2E)
	+$(Q)fail=0; for t in $(UNIT_TESTS); do \
	    echo "== $$t"; ./$$t || fail=1; done; \
	    echo "== unit tests under sanitizers (ASan, UBSan, LSan)"; \
	    for t in $(ASAN_TESTS); do $(ASAN_ENV) ./$$t > $$t.log 2>&1 && \
	    echo "$$t: ok" || { cat $$t.log; fail=1; }; done; \
	    echo "== fuzzers (libFuzzer, briefly)"; \
	    $(MAKE) -s fuzz-ci || fail=1; \
	    prove -j$$(nproc) --timer $(CHECK_E2E) || fail=1; \
	    $(if $(strip $(KERNEL_SUITES)),prove -j$$(nproc) --timer -v \
	    $(KERNEL_SUITES) || fail=1;) \
	    exit $$fail

# make check-full: the same suites on the full trees (1,262 TUs of 6.12),
# with what is too slow for every change: -j1 against -jN, the whole
# database under ASan, --emit-cocci with verification; then the whole
# build (9,508 C files, tests/whole/) and the quick bench.
FULL_ENV := TRAPCHECK_KERNEL_PROFILE=full TRAPCHECK_ASAN_FULL=1 \
	    EMITCOCCI_VERIFY=1 TRAPCHECK_DBFAIL_STEP=1
check-full:
	+$(Q)$(FULL_ENV) $(MAKE) check
	$(Q)prove --timer -v tests/whole/whole.t tests/whole/lintreplay.t
	$(Q)bench/run --quick

# The whole 6.12 defconfig build alone (about an hour and a half at -j2
# when its cold run is not cached): tests/whole/whole.t, then the lint
# replayed there (tests/whole/lintreplay.t, two cold runs per patch).
check-whole: all
	$(Q)prove --timer -v tests/whole/whole.t tests/whole/lintreplay.t

# The real-kernel suites alone, e.g. one job of a nightly matrix:
# make check-kernel [KERNEL_SUITES=tests/kernel/x86.t] [FULL=1] (FULL=1:
# check-full's profile; docs/testing.md: check-full in pieces).
KERNEL_SUITES ?= $(wildcard tests/kernel/*.t)
check-kernel: all $(ASAN_DIR)/trapcheck
	+$(Q)$(if $(FULL),$(FULL_ENV)) \
	    prove -j$$(nproc) --timer -v $(KERNEL_SUITES)

$(ASAN_DIR)/%.o: checker/%.c checker/output/rule-help.inc
	$(quiet) ASAN $@
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(ASAN_FLAGS) -MMD -MP -c -o $@ $<

$(ASAN_DIR)/trapcheck: $(patsubst checker/%.o,$(ASAN_DIR)/%.o,$(PROG_OBJS)) $(ASAN_OBJS)
	$(quiet) LD $@
	$(Q)$(CC) $(ASAN_FLAGS) -o $@ $^ $(LDLIBS)

$(ASAN_DIR)/test-%: tests/unit/test-%.c $(ASAN_OBJS)
	$(quiet) ASAN $@
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(ASAN_FLAGS) -o $@ $< $(ASAN_OBJS) \
	    $(LDLIBS) -lcmocka

check-asan: all $(ASAN_DIR)/trapcheck $(ASAN_TESTS) $(FAULT_SHIM)
	$(Q)fail=0; for t in $(ASAN_TESTS); do echo "== $$t"; \
	    $(ASAN_ENV) ./$$t || fail=1; done; \
	    $(ASAN_ENV) TRAPCHECK_BIN=$(CURDIR)/$(ASAN_DIR)/trapcheck \
	    prove -j$$(nproc) $(ASAN_E2E) || \
	    fail=1; exit $$fail

# make fuzz: each libFuzzer target of tests/fuzz/ for FUZZ_TIME seconds,
# after replaying the regression inputs (build-fuzz/).
FUZZ_TIME ?= 60
fuzz: all checker/output/rule-help.inc
	$(Q)tests/fuzz/run.sh $(FUZZ_TIME)

# What make check runs: the regressions, then 5 s per target.
fuzz-ci: all checker/output/rule-help.inc
	$(Q)tests/fuzz/run.sh 5

install: all
	$(quiet) INSTALL $(DESTDIR)$(BINDIR)/$(PROG)
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/roots \
	    $(DESTDIR)$(DATADIR)/semantic-patches $(DESTDIR)$(MANDIR)/man1
	$(Q)install -m 755 $(PROG) $(DESTDIR)$(BINDIR)/$(PROG)
	$(Q)install -m 755 contrib/presubmit.sh \
	    $(DESTDIR)$(BINDIR)/$(PROG)-presubmit
	$(Q)install -m 755 scripts/trapcheck-compdb $(DESTDIR)$(BINDIR)/
	$(Q)install -m 755 scripts/kbuild-stub-cc scripts/install-deps.sh \
	    $(DESTDIR)$(DATADIR)/
	$(Q)install -m 644 roots/*.roots $(DESTDIR)$(DATADIR)/roots/
	$(Q)install -m 644 semantic-patches/*.cocci \
	    $(DESTDIR)$(DATADIR)/semantic-patches/
	$(Q)install -m 644 docs/trapcheck.1 $(DESTDIR)$(MANDIR)/man1/

# bench/parse-modes: libclang's parse options timed on kernel TUs
# (bench/parse-modes.sh, docs/performance.md).
bench/parse-modes: bench/parse-modes.c
	$(quiet) CC $@
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LDLIBS)

clean:
	$(quiet) CLEAN
	$(Q)rm -f $(PROG) $(LIB) bench/parse-modes checker/*/*.[od] checker/arch/*.[od] checker/arch/*/*.[od] $(UNIT_TESTS) \
	    checker/output/rule-help.inc $(FAULT_SHIM)
	$(Q)rm -rf $(ASAN_DIR) build-fuzz

.PHONY: all check check-full check-whole check-kernel check-asan cocci-hot docs demo install clean deps-checked fuzz fuzz-ci

-include $(LIB_OBJS:.o=.d) $(ARCH_OBJS:.o=.d) $(PROG_OBJS:.o=.d)
-include $(ASAN_OBJS:.o=.d) $(patsubst checker/%.o,$(ASAN_DIR)/%.d,$(PROG_OBJS))
